"""The memfail suite: which operation of a memory system failed (seed 001, MemFail).

Six procedurally generated datasets; each is one context, so its sessions fill one shared
store per memory system, and each graded question is one item. The judge attributes every
failure to storage, summary, retrieval or reasoning (or abstention), deterministically from
the generator's spans, or with the paper's staged LLM judge when memories are rewritten.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ...errors import ConfigError
from ...types import Context, Item, ItemView, Message
from ..base import IndexEntry, Suite, SuiteOptions
from ...records import PairedMetric, Record, Report, SuiteSummary
from .datasets import BY_NAME, DATASETS, build
from .figures import memfail_figures
from .judge import MemfailJudge
from .markers import marker_descriptions
from .model import DEFAULT_SEED, Question
from .reader import MemfailReader
from .summary import METRIC_NAMES, compare, summarize

SUITE = "memfail"


class MemfailSuite(Suite):
    name = SUITE
    markers = marker_descriptions()
    metric_names = METRIC_NAMES

    def __init__(self, options: SuiteOptions) -> None:
        super().__init__(options)
        self.seeds = options.seeds or (DEFAULT_SEED,)

    def index(self) -> list[IndexEntry]:
        return [
            IndexEntry(f"{context}-{q.key}", context, q.marks)
            for seed in self.seeds
            for d in DATASETS
            for context in [context_id(seed, d.name)]
            for q in build(seed, d.name, self.options.size).questions
        ]

    def context(self, context_id: str) -> Context:
        seed, dataset = split_context_id(context_id)
        sessions = build(seed, dataset, self.options.size).sessions
        return Context(context_id, tuple(tuple(Message("user", text) for text in session) for session in sessions))

    def item(self, item_id: str) -> Item:
        parts = item_id.split("-", 2)
        if len(parts) != 3:
            raise ConfigError(f"memfail: malformed item id {item_id!r} (expected s<seed>-<dataset>-<question>)")
        context, key = f"{parts[0]}-{parts[1]}", parts[2]
        seed, dataset = split_context_id(context)
        question = _question(seed, dataset, self.options.size, key, item_id)
        return Item(
            id=item_id,
            context_id=context,
            cluster=f"{context}-{question.cluster_key}",
            view=ItemView(suite=SUITE, task=BY_NAME[dataset].task, question=question.text, answer_space=question.answer_space),
            gold=question.gold,
            strata={**question.strata, "seed": str(seed)},
            private={"facts": [f.to_json() for f in question.facts], "grading": dict(question.grading)},
        )

    def reader(self) -> MemfailReader:
        return MemfailReader()

    def judge(self) -> MemfailJudge:
        return MemfailJudge()

    def llm_prompt(self) -> Any:
        from .llm_prompt import MemfailPrompt

        return MemfailPrompt()

    def llm_judge(self, panel: Any) -> Any:
        from .llm_judge import MemfailLLMJudge

        return MemfailLLMJudge(panel)

    def summarize(self, records: Sequence[Record]) -> SuiteSummary:
        return summarize(records, self.options.bootstrap)

    def compare(self, a: Sequence[Record], b: Sequence[Record]) -> Mapping[str, PairedMetric]:
        return compare(a, b, self.options.bootstrap)

    def figures(self, report: Report) -> list[Any]:
        return memfail_figures(report, self.name)


def context_id(seed: int, dataset: str) -> str:
    return f"s{seed}-{dataset}"


def split_context_id(context: str) -> tuple[int, str]:
    prefix, _, dataset = context.partition("-")
    if not prefix.startswith("s") or not prefix[1:].isdigit() or dataset not in BY_NAME:
        raise ConfigError(f"memfail: malformed context id {context!r} (expected s<seed>-<dataset>)")
    return int(prefix[1:]), dataset


def _question(seed: int, dataset: str, size: str, key: str, item_id: str) -> Question:
    for question in build(seed, dataset, size).questions:
        if question.key == key:
            return question
    raise ConfigError(f"memfail: no item {item_id!r} at --memeval-size={size}")
