"""The memfail suite: which operation of a memory system failed (seed 001, MemFail).

Six procedurally generated datasets, or, with --memeval-data, the five datasets of the
authors' release (ishirgarg/MemFail). Each dataset is one context, so its sessions fill one
shared store per memory system, and each graded question is one item. Ids say where an
item comes from: `s42-cond_easy-017` is generated (seed 42, row 17 counted from 0),
`release-s42-cond_easy-001` is the release's first data row, stored in the order of the
release's harness with seed 42. With an LLM responder, every stored message is answered by
the model first and both turns are stored, as in the paper (storage_turns.py).
The judge attributes every failure to storage, summary, retrieval or reasoning (or
abstention): deterministically from the generator's spans, or with the paper's staged LLM
judge (which the released data, having no spans, needs for any attribution).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pytest_memeval.errors import ConfigError
from pytest_memeval.framework.canonical import canonical_params, canonical_seeds
from pytest_memeval.framework.suite import IndexEntry, Suite, SuiteOptions
from pytest_memeval.results.records import PairedMetric, Record, Report, SuiteSummary
from pytest_memeval.types import Context, Evidence, Item, ItemView, Message

from .datasets import BY_NAME, DATASETS, build
from .figures import memfail_figures
from .judge import MemfailJudge
from .llm_prompt import DEFAULT_VARIANT, TEMPLATES, prompt_setting
from .markers import marker_descriptions
from .model import DEFAULT_SEED, DatasetBuild, Fact, Question
from .reader import MemfailReader, ReleaseReader
from .release_build import RELEASED_DATASETS, build_released
from .release_rows import Release, load_release
from .storage_turns import USER_ONLY, WITH_REPLIES, converse, user_sessions
from .summary import METRIC_NAMES, compare, summarize

if TYPE_CHECKING:
    from pytest_memeval.framework.figures import Figure
    from pytest_memeval.llm.judge import PanelFactory

    from .llm_judge import MemfailLLMJudge
    from .llm_prompt import MemfailPrompt

SUITE = "memfail"
RELEASE_PREFIX = "release-"


class MemfailSuite(Suite):
    name = SUITE
    markers = marker_descriptions()
    metric_names = METRIC_NAMES
    metric_bounds = {
        **{name: (0.0, 1.0) for name in METRIC_NAMES if name.startswith(("success", "share_"))},
        "share": (0.0, 1.0),  # the failure_stage breakdown's cells
        "tokens_per_memory": (0.0, float("inf")),
        "tokens_per_question": (0.0, float("inf")),
    }
    headline_metric = "success"
    reads_data_dir = True  # the release's datasets/ CSV files
    declares_evidence = True  # the stored messages that hold the facts a question needs (Item.evidence)
    # a dataset is one store shared by all its questions, filled once per memory system
    # (with an LLM responder, by a conversation that is not replayed): every k reads it
    splits_by_k = False
    responder_stores_replies = True  # storage_turns.converse
    judge_reads_the_run = True  # llm_judge.MemfailLLMJudge
    parameters = {
        "prompt": f"the answer prompt: {' or '.join(TEMPLATES)} (default {DEFAULT_VARIANT}: the paper's D.2 graded "
        "turn; guided adds our abstention instructions, not comparable with the paper)",
    }

    def __init__(self, options: SuiteOptions) -> None:
        super().__init__(options)
        self.seeds = options.seeds or (DEFAULT_SEED,)
        self.prompt = prompt_setting(options.params.get("prompt"))
        self.release: Release | None = load_release(options.data_dir) if options.data_dir is not None else None

    def protocol_params(self, params: Mapping[str, str]) -> dict[str, str]:
        return canonical_params(params, {"prompt": prompt_setting})

    def protocol_seeds(self, seeds: tuple[int, ...] | None) -> tuple[int, ...] | None:
        return canonical_seeds(seeds or (DEFAULT_SEED,), (DEFAULT_SEED,))

    def protocol_split(self, split: str | None) -> str | None:
        return None  # every question is held out

    @property
    def datasets(self) -> tuple[str, ...]:
        return RELEASED_DATASETS if self.release is not None else tuple(d.name for d in DATASETS)

    def index(self) -> list[IndexEntry]:
        return [
            IndexEntry(f"{context}-{q.key}", context, q.marks)
            for seed in self.seeds
            for dataset in self.datasets
            for context in [self.context_id(seed, dataset)]
            for q in self._build(seed, dataset).questions
        ]

    def context_id(self, seed: int, dataset: str) -> str:
        return f"{RELEASE_PREFIX if self.release is not None else ''}s{seed}-{dataset}"

    def context(self, context_id: str) -> Context:
        seed, dataset = self._split_context_id(context_id)
        sessions = self._build(seed, dataset).sessions
        llm = self.options.responder_llm
        stored = user_sessions(sessions) if llm is None else converse(sessions, llm, context_id)
        return Context(context_id, stored)

    def item(self, item_id: str) -> Item:
        source = RELEASE_PREFIX if self.release is not None else ""
        parts = item_id.removeprefix(source).split("-", 2) if item_id.startswith(source) else []
        if len(parts) != 3:
            raise ConfigError(f"memfail: malformed item id {item_id!r} (expected {source}s<seed>-<dataset>-<question>)")
        context = f"{source}{parts[0]}-{parts[1]}"
        seed, dataset = self._split_context_id(context)
        question = _question(self._build(seed, dataset), parts[2], item_id, self.options.size)
        return Item(
            id=item_id,
            context_id=context,
            cluster=f"{context}-{question.cluster_key}",
            view=ItemView(
                suite=SUITE, task=BY_NAME[dataset].task, question=question.text, answer_space=question.answer_space
            ),
            gold=question.gold,
            strata={**question.strata, "seed": str(seed)},
            private={
                "facts": [f.to_json() for f in question.facts],
                "grading": dict(question.grading),
                "stored_turns": USER_ONLY if self.options.responder_llm is None else WITH_REPLIES,
            },
            evidence=_evidence(user_sessions(self._build(seed, dataset).sessions), question.facts),
        )

    def reader(self) -> MemfailReader | ReleaseReader:
        return ReleaseReader() if self.release is not None else MemfailReader()

    def judge(self) -> MemfailJudge:
        return MemfailJudge()

    def llm_prompt(self) -> MemfailPrompt:
        from .llm_prompt import MemfailPrompt

        return MemfailPrompt(self.prompt)

    def llm_judge(self, panel: PanelFactory) -> MemfailLLMJudge:
        from .llm_judge import MemfailLLMJudge

        return MemfailLLMJudge(panel)

    def summarize(self, records: Sequence[Record]) -> SuiteSummary:
        return summarize(records, self.options.bootstrap)

    def compare(self, a: Sequence[Record], b: Sequence[Record]) -> Mapping[str, PairedMetric]:
        return compare(a, b, self.options.bootstrap)

    def figures(self, report: Report) -> Sequence[Figure]:
        return memfail_figures(report, self.name)

    def _build(self, seed: int, dataset: str) -> DatasetBuild:
        if self.release is not None:
            return build_released(self.release, seed, dataset, self.options.size)
        return build(seed, dataset, self.options.size)

    def _split_context_id(self, context: str) -> tuple[int, str]:
        source = RELEASE_PREFIX if self.release is not None else ""
        prefix, _, dataset = context.removeprefix(source).partition("-")
        if (
            not context.startswith(source)
            or not prefix.startswith("s")
            or not prefix[1:].isdigit()
            or dataset not in self.datasets
        ):
            raise ConfigError(f"memfail: malformed context id {context!r} (expected {source}s<seed>-<dataset>)")
        return int(prefix[1:]), dataset


def _evidence(sessions: Sequence[Sequence[Message]], facts: Sequence[Fact]) -> Evidence | None:
    """The stored user messages that hold a piece of the question's facts (each piece is one
    sentence of one message), in storage order."""
    pieces = [piece.text for fact in facts for piece in fact.pieces]
    held = tuple(m for session in sessions for m in session if any(text in m.content for text in pieces))
    return Evidence(held) if held else None


def _question(built: DatasetBuild, key: str, item_id: str, size: str) -> Question:
    for question in built.questions:
        if question.key == key:
            return question
    raise ConfigError(f"memfail: no item {item_id!r} at --memeval-size={size}")
