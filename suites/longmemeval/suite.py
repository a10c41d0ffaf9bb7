"""The longmemeval suite: LongMemEval (Wu et al., ICLR 2025) under its official protocol.

One context per question (its haystack sessions with their dates, in order, streamed from
the file as they are ingested), one item per question, asked at its `question_date`; the
cluster is the question. `--memeval-data DIR` reads the release as shipped; without it the
suite runs on a generated sample in the same format (sample.py), labelled as such in the
summary. With `--memeval-judge` the official judge grades (evaluate_qa.py's prompts);
without, an offline containment check that is not the official metric.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from msgspec.structs import replace

from pytest_memeval.config.judge_specs import off_protocol
from pytest_memeval.framework.canonical import canonical_params
from pytest_memeval.framework.data_files import data_note
from pytest_memeval.framework.suite import IndexEntry, Suite, SuiteOptions
from pytest_memeval.llm.judge import PanelFactory
from pytest_memeval.results.records import PairedMetric, Record, SuiteSummary
from pytest_memeval.types import Context, Item

from ..locomo.llm import MEM0_J, MEM0_J_OPTION, j_protocol
from .catalog import DATE_MODES, DOWNLOAD, RELEASED_NAMES, Catalog, dates_setting, file_setting, marker_of
from .judge import RECALL_KEYS, OfficialJudge, OfflineJudge
from .llm import JUDGE_TEMPLATES, LONGMEMEVAL, LONGMEMEVAL_OPTION, LongMemEvalPrompt, official_protocol
from .reader import LongMemEvalReader
from .released import QUESTION_TYPES
from .summary import METRIC_NAMES, compare, summarize

ABSTENTION = "abstention"


def marker_descriptions() -> dict[str, str]:
    markers = {marker_of(t): f"longmemeval question type {t}" for t in QUESTION_TYPES}
    markers[ABSTENTION] = "longmemeval abstention question (id with _abs): the answer is not in the history"
    return markers


class LongMemEvalSuite(Suite):
    name = "longmemeval"
    markers = marker_descriptions()
    metric_names = METRIC_NAMES
    metric_bounds = {name: (0.0, 1.0) for name in (*METRIC_NAMES, "accuracy")}  # shares (and each type's accuracy)
    headline_metric = "overall_accuracy"
    reads_data_dir = True  # the release: longmemeval_{s_cleaned,m_cleaned,oracle}.json (or _s, _m)
    declares_evidence = True  # the user's has_answer turns of the answer sessions (Item.evidence)
    parameters = {
        "file": "which released file: "
        + ", ".join(f"{k} ({' or '.join(names)})" for k, names in RELEASED_NAMES.items())
        + " (default: s)",
        "dates": f"where a message carries its session's date: {' or '.join(DATE_MODES)} "
        "(text: '[date] role: ' before each turn, default; timestamp: Message.timestamp only)",
    }
    #: the official judge, and Mem0's generous J on the same answers
    judge_prompts = {LONGMEMEVAL: LONGMEMEVAL_OPTION, MEM0_J: MEM0_J_OPTION}
    trace_detail = frozenset(RECALL_KEYS)  # judge.recall

    def __init__(self, options: SuiteOptions) -> None:
        super().__init__(options)
        self.catalog = Catalog(options)

    def protocol_params(self, params: Mapping[str, str]) -> dict[str, str]:
        return canonical_params(params, {"file": file_setting, "dates": dates_setting})

    def protocol_seeds(self, seeds: tuple[int, ...] | None) -> tuple[int, ...] | None:
        return None  # the release, or the one generated sample: the seeds pick nothing

    def protocol_split(self, split: str | None) -> str | None:
        return None  # every question is held out

    def index(self) -> list[IndexEntry]:
        entries = []
        for q in self.catalog.questions.values():
            marks = (marker_of(q.question_type), *((ABSTENTION,) if q.abstention else ()))
            entries.append(IndexEntry(q.question_id, q.question_id, marks))
        return entries

    def context(self, context_id: str) -> Context:
        return self.catalog.context(context_id)

    def item(self, item_id: str) -> Item:
        return self.catalog.item(item_id)

    def data_files(self) -> Sequence[Path]:
        """The one released file the run reads (--memeval-suite-option longmemeval.file)."""
        return [] if self.catalog.sample else [self.catalog.path]

    def reader(self) -> LongMemEvalReader:
        return LongMemEvalReader()

    def judge(self) -> OfflineJudge:
        return OfflineJudge()

    def llm_prompt(self) -> LongMemEvalPrompt:
        return LongMemEvalPrompt()

    def llm_judge(self, panel: PanelFactory) -> OfficialJudge:
        # one panel per official prompt; a judge naming Mem0's J asks it of every question
        j = j_protocol()
        panels = {key: panel.named({LONGMEMEVAL: official_protocol(key), MEM0_J: j}) for key in JUDGE_TEMPLATES}
        return OfficialJudge(panels, official=all(member.prompt == LONGMEMEVAL for member in panel.members))

    def summarize(self, records: Sequence[Record]) -> SuiteSummary:
        summary = summarize(records, self.options.bootstrap)
        data = self.catalog.describe()
        what = data_note(data["file"], data["sha256"], data["sample"])
        judges = sorted({name for r in records for name in r.detail.get("judges", {})})
        return replace(
            summary,
            note="; ".join(filter(None, [what, summary.note, *off_protocol(judges, self.judge_prompts)])),
            extra={**summary.extra, "data": data, "download": DOWNLOAD},
        )

    def compare(self, a: Sequence[Record], b: Sequence[Record]) -> Mapping[str, PairedMetric]:
        return compare(a, b, self.options.bootstrap)
