"""The behavior suite: does memory capture how a person interprets, beyond recall? (seed 004)

One item per (subject, held-out question, condition); the plugin adds the memory system.
A subject has three contexts: an empty one for the direct conditions (their context is
in the item's view), its facts one per write (controlled) and its raw training corpus
(native). The offline reader predicts from what it is served; the offline judge maps the
prediction to the paper's rubric (approximate), the LLM panel applies the paper's prompt.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ...types import Context, Item
from ..base import IndexEntry, Suite, SuiteOptions
from ...records import PairedMetric, Record, Report, SuiteSummary
from .catalog import ItemRef, Selection, item_ref, selection
from .conditions import CONDITIONS, metric_names
from .episodes import heldout_half
from .judge import OfflineJudge
from .llm import BehaviorPrompt, PanelJudge
from .markers import item_marks, marker_descriptions
from .reader import BehaviorReader
from .views import SUITE, Documents, context, item

#: contexts of a subject in index order, and the conditions whose items each holds
_GROUPS = (
    ("direct", [k for k, c in CONDITIONS.items() if c.memory is None]),
    ("controlled", [k for k, c in CONDITIONS.items() if c.memory == "controlled"]),
    ("native", [k for k, c in CONDITIONS.items() if c.memory == "native"]),
)


class BehaviorSuite(Suite):
    name = SUITE
    markers = marker_descriptions()
    metric_names = metric_names()
    reads_data_dir = True  # specifications written by the LLM path (see spec_llm)

    def __init__(self, options: SuiteOptions) -> None:
        super().__init__(options)
        self.selection: Selection = selection(options)
        self.documents = Documents.from_data_dir(options.data_dir)
        self.documents.check(self.selection.seeds)

    def index(self) -> list[IndexEntry]:
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
        return context(context_id)

    def item(self, item_id: str) -> Item:
        return item(item_ref(item_id), self.documents)

    def reader(self) -> BehaviorReader:
        return BehaviorReader()

    def judge(self) -> OfflineJudge:
        return OfflineJudge()

    def llm_prompt(self) -> BehaviorPrompt:
        return BehaviorPrompt()

    def llm_judge(self, panel: Any) -> PanelJudge:
        return PanelJudge.build(panel)

    # The statistics import scipy; only the controller needs them, at the end of the session.
    def summarize(self, records: Sequence[Record]) -> SuiteSummary:
        from .summary import summarize

        return summarize(records, self.options.bootstrap)

    def compare(self, a: Sequence[Record], b: Sequence[Record]) -> Mapping[str, PairedMetric]:
        from .summary import compare

        return compare(a, b, self.options.bootstrap)

    def figures(self, report: Report) -> list[Any]:
        from .figures import figures

        return figures(report)
