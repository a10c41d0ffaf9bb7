"""The behavior suite: does memory capture how a person interprets, beyond recall? (seed 004)

One item per (subject, held-out question, condition); the plugin adds the memory system.
A subject has three contexts: an empty one for the direct conditions (their context is
in the item's view), its facts one per write (controlled) and its raw training corpus
(native). The offline reader predicts from what it is served; the offline judge maps the
prediction to the paper's rubric (approximate), the LLM panel applies the paper's prompt.

--memeval-data names either a checkout of the authors' release, whose 14 real subjects then
replace the generated ones (released_study, released_items: they need an LLM responder and
judge), or a directory of specifications written by spec_llm for the generated subjects.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pytest_memeval.errors import ConfigError
from pytest_memeval.framework.canonical import canonical_params, canonical_seeds
from pytest_memeval.framework.suite import IndexEntry, Suite, SuiteOptions
from pytest_memeval.results.records import PairedMetric, Record, Report, SuiteSummary
from pytest_memeval.types import Context, Item

from . import released_items
from .catalog import DEFAULT_SEEDS, ItemRef, Selection, item_ref, selection
from .conditions import CONDITIONS, metric_names
from .episodes import heldout_half
from .judge import OfflineJudge
from .llm import JUDGE_CALLS, BehaviorPrompt, PanelJudge, judge_call_setting
from .markers import item_marks, marker_descriptions
from .reader import BehaviorReader
from .released import GLOBALS_DIR
from .released_study import Study
from .views import SPEC_DIR, SUITE, Documents, context, item

if TYPE_CHECKING:
    from pytest_memeval.framework.figures import Figure
    from pytest_memeval.llm.judge import PanelFactory

#: contexts of a subject in index order, and the conditions whose items each holds
_GROUPS = (
    ("direct", [k for k, c in CONDITIONS.items() if c.memory is None]),
    ("controlled", [k for k, c in CONDITIONS.items() if c.memory == "controlled"]),
    ("native", [k for k, c in CONDITIONS.items() if c.memory == "native"]),
)


class BehaviorSuite(Suite):
    name = SUITE
    markers = marker_descriptions()
    trace_detail = frozenset({"retrieved"})  # the ids of the memories the judges saw retrieved
    metric_names = metric_names()
    # the condition that reads the memory system: its top-k retrievals (C3 adds the spec)
    headline_metric = "C1"
    #: the judges' 1-5 rubric: each condition's score, each pair's difference, a cell's "score"
    metric_bounds = {
        name: (-4.0, 4.0) if name.startswith("delta_") else (1.0, 5.0) for name in (*metric_names, "score")
    }
    reads_data_dir = True  # the authors' release, or specifications written by the LLM path (spec_llm)
    parameters = {
        "judge_call": "how the LLM judge is called: "
        + "; ".join(f"{name} = {text}" for name, text in JUDGE_CALLS.items())
        + " (default: authors)"
    }

    def __init__(self, options: SuiteOptions) -> None:
        super().__init__(options)
        self.judge_call = judge_call_setting(options.params.get("judge_call"))
        self.selection: Selection = selection(options)
        self.study: Study | None = None
        self.documents = Documents()
        data = options.data_dir
        if data is not None and (data / GLOBALS_DIR).is_dir():
            self.study = Study.load(data)
        elif data is not None and (data / SPEC_DIR).is_dir():
            self.documents = Documents.from_data_dir(data)
            self.documents.check(self.selection.seeds)
        elif data is not None:
            raise ConfigError(
                f"--memeval-data: {data} is neither a beyond-recall checkout ({GLOBALS_DIR}/, results/) "
                f"nor a directory of specifications written by spec_llm ({SPEC_DIR}/)"
            )

    def protocol_params(self, params: Mapping[str, str]) -> dict[str, str]:
        return canonical_params(params, {"judge_call": judge_call_setting})

    def protocol_seeds(self, seeds: tuple[int, ...] | None) -> tuple[int, ...] | None:
        if self.study is not None:
            return None  # the authors' release: the seeds pick nothing
        return canonical_seeds(seeds or DEFAULT_SEEDS, DEFAULT_SEEDS)

    def protocol_split(self, split: str | None) -> str | None:
        return None  # every question is held out

    def sample(self) -> str:
        """Generated subjects, also from specifications spec_llm wrote; the study's own with
        the release."""
        if self.study is not None:
            return ""
        return "generated subjects, not the study's 14 (--memeval-data reads the beyond-recall release)"

    def index(self) -> list[IndexEntry]:
        if self.study is not None:
            return released_items.index(self.study, self.selection.subjects, self.selection.questions)
        entries = []
        for subject in self.selection.subject_refs():
            questions = heldout_half(subject.seed, subject.index)[: self.selection.questions]
            for _, conditions in _GROUPS:
                for question in questions:
                    for key in conditions:
                        ref = ItemRef(subject, question.number, key)
                        entries.append(IndexEntry(ref.id, ref.context_id, item_marks(CONDITIONS[key], question)))
        return entries

    def context(self, context_id: str) -> Context:
        if self.study is not None:
            return released_items.context(self.study, context_id)
        return context(context_id)

    def item(self, item_id: str) -> Item:
        if self.study is not None:
            return released_items.item(self.study, item_id)
        return item(item_ref(item_id), self.documents)

    def reader(self) -> BehaviorReader | released_items.OfflineReaderRefuses:
        return released_items.OfflineReaderRefuses() if self.study is not None else BehaviorReader()

    def judge(self) -> OfflineJudge | released_items.OfflineJudgeRefuses:
        return released_items.OfflineJudgeRefuses() if self.study is not None else OfflineJudge()

    def llm_prompt(self) -> BehaviorPrompt:
        return BehaviorPrompt()

    def llm_judge(self, panel: PanelFactory) -> PanelJudge:
        return PanelJudge.build(panel, self.judge_call)

    # The statistics import scipy; only the controller needs them, at the end of the session.
    def summarize(self, records: Sequence[Record]) -> SuiteSummary:
        from .summary import summarize

        return summarize(records, self.options.bootstrap)

    def compare(self, a: Sequence[Record], b: Sequence[Record]) -> Mapping[str, PairedMetric]:
        from .summary import compare

        return compare(a, b, self.options.bootstrap)

    def figures(self, report: Report) -> Sequence[Figure]:
        from .figures import figures

        return figures(report)
