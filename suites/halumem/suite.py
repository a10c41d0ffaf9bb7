"""The halumem suite: HaluMem (Chen et al. 2025, MemTensor/HaluMem) under its official protocol.

HaluMem scores three stages of a memory system: what it extracts from each session (recall of
the gold memory points, resistance to interference, accuracy of what it extracted), how it
updates a memory that changed, and how it answers questions, with the judge prompts and the
rules of eval/evaluation.py (scoring.py, summary.py). Each user's sessions are stored one at a
time and each session's probes and questions are asked right after it, as the official
scripts do (protocol.py): the suite is interactive, and the first item of a user to run drives
the user's whole protocol, whose results its other items take.

`--memeval-data DIR` reads the release (HaluMem-Medium.jsonl, or HaluMem-Long.jsonl with
`--memeval-suite-option halumem.file=long`); without it a generated sample in the same
format runs, labelled as such. With `--memeval-judge` the official judges grade; without,
offline word-overlap rules that are floors, not HaluMem's metrics.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from msgspec.structs import replace

from pytest_memeval.config.judge_specs import off_protocol
from pytest_memeval.errors import MemevalError
from pytest_memeval.framework.canonical import canonical_params, canonical_seeds
from pytest_memeval.framework.data_files import data_note
from pytest_memeval.framework.suite import IndexEntry, ItemMemory, PlannedCall, Suite, SuiteOptions
from pytest_memeval.llm.judge import PanelFactory
from pytest_memeval.llm.repetition import current_repeat
from pytest_memeval.protocols import ResponseModel
from pytest_memeval.results.records import PairedMetric, Record, SuiteSummary
from pytest_memeval.types import Answer, Context, Item, Memory

from .catalog import DOWNLOAD, RELEASED_NAMES, Catalog, file_setting, markers
from .estimate import CallPlanner
from .judge import OfficialJudge, OfflineRules
from .llm import HALUMEM, HALUMEM_OPTION, HaluMemPrompt, judge_protocols
from .protocol import UserRuns, messages, run_user
from .reader import HaluMemReader
from .sample import DEFAULT_SEED
from .scoring import memories_text
from .summary import LOWER_IS_BETTER, METRIC_NAMES, compare, summarize


class HaluMemSuite(Suite):
    name = "halumem"
    markers = markers()
    metric_names = METRIC_NAMES
    lower_is_better = LOWER_IS_BETTER
    headline_metric = "qa_correct"
    metric_bounds = {name: (0.0, 1.0) for name in (*METRIC_NAMES, "integrity_acc", "update_acc", "memory_acc")}
    reads_data_dir = True
    interactive = True
    plans_calls = True
    parameters = {
        "file": "which released file: "
        + ", ".join(f"{k} ({' or '.join(names)})" for k, names in RELEASED_NAMES.items())
        + " (default: medium)",
    }
    judge_prompts = {HALUMEM: HALUMEM_OPTION}

    def __init__(self, options: SuiteOptions) -> None:
        super().__init__(options)
        self.catalog = Catalog(options)
        self.runs = UserRuns()
        self._planner: CallPlanner | None = None

    def protocol_params(self, params: Mapping[str, str]) -> dict[str, str]:
        return canonical_params(params, {"file": file_setting})

    def protocol_seeds(self, seeds: tuple[int, ...] | None) -> tuple[int, ...] | None:
        if self.options.data_dir is not None:
            return None  # the release: the seeds pick nothing
        return canonical_seeds(seeds[:1] if seeds else (DEFAULT_SEED,), (DEFAULT_SEED,))

    def protocol_split(self, split: str | None) -> str | None:
        return None  # every item is held out

    def index(self) -> list[IndexEntry]:
        return self.catalog.index()

    def context(self, context_id: str) -> Context:
        """A user's sessions (for the estimate and the conformance kit; the run stores them
        itself, session by session, in `interact`)."""
        user = self.catalog.user(context_id)
        return Context(context_id, tuple(messages(user.uuid, p, s) for p, s in enumerate(self.catalog.sessions(user))))

    def item(self, item_id: str) -> Item:
        return self.catalog.item(item_id)

    def data_files(self) -> Sequence[Path]:
        return [] if self.catalog.sample else [self.catalog.path]

    def sample(self) -> str:
        if not self.catalog.sample:
            return ""
        return f"generated data, not the HaluMem release (--memeval-data reads it, from {DOWNLOAD})"

    def interact(self, item: Item, memory: ItemMemory, responder: ResponseModel, k: int) -> Answer:
        user = self.catalog.user(item.private["user"])
        key = (memory.system_name, id(responder), k, current_repeat(), user.uuid)
        sessions = self.catalog.sessions(user)
        run = self.runs.get(
            key, lambda: run_user(user.uuid, sessions, memory, responder, k, lambda q: self.catalog.view(user, q))
        )
        result = run.session(item.private["session"])
        kind = item.private["kind"]
        if kind == "qa":
            answer = result.answers.get(item.private["position"])
            if answer is None:
                raise MemevalError(run.stopped or f"{item.id}: the question was not asked")
            if isinstance(answer, str):
                raise MemevalError(f"{item.id}: {answer}")
            return answer
        extracted = None if result.extracted is None else list(result.extracted)
        if kind == "session":
            return Answer(None if extracted is None else memories_text(extracted), detail={"extracted": extracted})
        probe = result.probes.get(item.private["position"])
        shown = probe if item.private["is_update"] == "True" and probe else extracted
        return Answer(
            None if shown is None else memories_text(shown),
            detail={"extracted": extracted, "probe": None if probe is None else list(probe)},
        )

    def planned_calls(self, item: Item, retrieve: Callable[[int], Sequence[Memory]], k: int) -> list[PlannedCall]:
        if self._planner is None:
            self._planner = CallPlanner()
        session = self.catalog.user(item.private["user"]).sessions[item.private["session"]]
        golden = [point.content for point in session.points if not point.interference]
        return self._planner.calls(item, golden, retrieve, k)

    def reader(self) -> HaluMemReader:
        return HaluMemReader()

    def judge(self) -> OfflineRules:
        return OfflineRules()

    def llm_prompt(self) -> HaluMemPrompt:
        return HaluMemPrompt()

    def llm_judge(self, panel: PanelFactory) -> OfficialJudge:
        return OfficialJudge({stage: panel.named({HALUMEM: protocol}) for stage, protocol in judge_protocols().items()})

    def summarize(self, records: Sequence[Record]) -> SuiteSummary:
        summary = summarize(records, self.options.bootstrap)
        data = self.catalog.describe()
        what = data_note(data["file"], data["sha256"], data["sample"])
        judges = sorted({name for r in records for name in judge_names(r.detail)})
        return replace(
            summary,
            note="; ".join(filter(None, [what, summary.note, *off_protocol(judges, self.judge_prompts)])),
            extra={**summary.extra, "data": data, "download": DOWNLOAD},
        )

    def compare(self, a: Sequence[Record], b: Sequence[Record]) -> Mapping[str, PairedMetric]:
        return compare(a, b, self.options.bootstrap)


def judge_names(detail: Mapping[str, Any]) -> set[str]:
    """The judges a record's verdict names (a session's, per extracted memory)."""
    readings = [detail, *detail.get("memories", ())]
    return {name for reading in readings for name in reading.get("judges", {})}
