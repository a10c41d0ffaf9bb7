"""The typed values that cross from worker to controller to reports, and their one JSON form.

    Record        one item of one run: scored, invalid (answered outside the schema) or
                  error (one line saying why); nothing else
    RunKey        what makes a run: suite, memory system, responder, judge, k; its `label`
    Metric        a value with its confidence interval, n and minimum detectable effect
    SuiteSummary  what a suite's `summarize` returns for one run's scored records
    RunSummary    a run's counts plus its suite summary (and, where they apply, the subset
                  of the suite it covered and the flakiness of its repeats)
    PairedMetric  one metric of a paired comparison
    Comparison    two runs of a suite (or a run and its baseline), item by item, with
                  the items whose verdict flipped
    GateVerdict   one CI gate on one run
    Report        all of the above, with the run's protocol fingerprint (fingerprint.py): the JSON report, schema memeval-report/2

Every value is frozen; `to_json` and `from_json` round-trip exactly (floats unrounded, so
that gates compare what was measured). `from_json` raises `SchemaError` with one line
naming the field when data do not fit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal, TypeVar

from ..printable import printable
from .fingerprint import Fingerprint, FingerprintError
from .record_values import (
    FlippedItem,
    Incomplete,
    RecordedMemory,
    SchemaError,
    Subset,
    check_types,
    finite_tree,
    flipped_from_json,
    memories_from_json,
)
from .record_values import integer as _int
from .record_values import mapping as _mapping
from .record_values import number as _number
from .record_values import string as _str
from .usage import FillCost, PhaseTokens, RunUsage, tokens_from_json, tokens_to_json

SCHEMA = "memeval-report/2"
Status = Literal["scored", "invalid", "error"]
STATUSES: tuple[Status, ...] = ("scored", "invalid", "error")
Source = Literal["run", "baseline"]
DETERMINISTIC = "deterministic"
#: suite as the test names it, memory system, k, item id, repeat
ItemKey = tuple[str, str, int, str, int]

T = TypeVar("T")


@dataclass(frozen=True, order=True)
class RunKey:
    """Everything that makes one run of a suite different from another in the same session."""

    suite: str
    memsystem: str
    responder: str = "reader"
    judge: str = DETERMINISTIC
    k: int = 10

    def label(self, among: Iterable[RunKey] | None = None) -> str:
        """The one name of this run in tables, series and figures.

        Without `among`: the memory system, responder and k (and the judge when it is an
        LLM). With `among` (the runs shown together): the memory system plus every axis
        whose value differs between those runs, so that no two runs share a label.
        """
        keys = list(among) if among is not None else None
        parts = [self.memsystem]
        for axis, text in (
            ("responder", self.responder),
            ("judge", f"judge={self.judge}"),
            ("k", f"k={self.k}"),
        ):
            if keys is None:
                shown = axis != "judge" or self.judge != DETERMINISTIC
            else:
                shown = len({getattr(key, axis) for key in keys}) > 1
            if shown:
                parts.append(text)
        return " | ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {
            "suite": self.suite,
            "memsystem": self.memsystem,
            "responder": self.responder,
            "judge": self.judge,
            "k": self.k,
        }

    @classmethod
    def from_json(cls, data: Any, where: str = "key") -> RunKey:
        data = _mapping(data, where)
        return cls(
            suite=_str(data, "suite", where),
            memsystem=_str(data, "memsystem", where),
            responder=_str(data, "responder", where),
            judge=_str(data, "judge", where),
            k=_int(data, "k", where),
        )


#: the JSON kind of each plain field of a record (record_values.check_types), checked on read:
#: a baseline whose "correct" is "false" must not count as correct
RECORD_FIELD_KINDS = {
    **dict.fromkeys(("id", "suite_ref", "context", "cluster", "task", "status", "reason"), "string"),
    **dict.fromkeys(("raw", "question", "judge_reason", "stage"), "string"),
    **dict.fromkeys(("strata", "detail", "answer_detail", "ingest"), "object"),
    "answer": "string|null",
    "abstained": "boolean",
    "memory_unreadable": "boolean",
    "correct": "boolean|null",
    "score": "number|null",
    "n_memories": "integer",
    "retrieved_tokens": "integer",
    "retrieve_ms": "number|null",
    "answer_ms": "number|null",
    "memories": "list",
    "repeat": "integer",
}


@dataclass(frozen=True)
class Record:
    """One item of one run. `status` says which of the three ways it ended:

    - scored: the judge decided (`correct`, `score`, `detail`);
    - invalid: the response model answered outside the schema (`raw` keeps its text);
    - error: something on the item's way failed; `reason` is one line saying what.

    What a reviewer needs to diagnose a miss is kept too: the public `question`, the
    `memories` the system returned (the first --memeval-record-memories of them), the
    answer, and the judge's verdict, `judge_reason` and `detail`. `repeat` numbers the
    item's repeats (--memeval-repeat); repeats of one item share its id.
    """

    id: str
    key: RunKey
    suite_ref: str
    context: str
    cluster: str
    task: str
    status: Status
    strata: Mapping[str, str] = field(default_factory=dict)
    reason: str = ""
    answer: str | None = None
    abstained: bool = False
    correct: bool | None = None
    score: float | None = None
    gold: Any = None
    n_memories: int = 0
    retrieved_tokens: int = 0
    retrieve_ms: float | None = None
    answer_ms: float | None = None
    #: the judge's detail (rubric scores, trajectory metrics)
    detail: Mapping[str, Any] = field(default_factory=dict)
    #: the response model's detail (posterior margin, atoms, token counts)
    answer_detail: Mapping[str, Any] = field(default_factory=dict)
    #: where the judge attributes the outcome (Verdict.stage; memfail's failure stages)
    stage: str = ""
    #: the offline reader recognised nothing in the memories (Answer.memory_unreadable)
    memory_unreadable: bool = False
    #: an invalid answer's text
    raw: str = ""
    #: the item's public question (ItemView.question): what the system was asked
    question: str = ""
    #: what the memory system returned, best first, capped by --memeval-record-memories
    memories: tuple[RecordedMemory, ...] = ()
    #: the judge's own words on the verdict
    judge_reason: str = ""
    #: which repeat of the item this is (0 without --memeval-repeat)
    repeat: int = 0
    #: what ingestion did to the item's namespace, from adapters that say (mem0: memories added)
    ingest: Mapping[str, Any] = field(default_factory=dict)
    #: LLM tokens the item cost, per phase ("ingest", "answer", "judge") and model (usage.py)
    llm_tokens: PhaseTokens = field(default_factory=dict)
    #: milliseconds of each session stored when this item filled its context (none when filled before)
    ingest_ms: tuple[float, ...] = ()
    judge_ms: float | None = None
    #: what filling the item's context cost the memory system's own LLM (metered by the
    #: gateway), on every record of the context; for reading, totals sum `llm_tokens` (usage.py)
    context_fill: FillCost | None = None

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise SchemaError(f"record {self.id}: status {self.status!r} is not one of {', '.join(STATUSES)}")
        if self.status != "scored" and self.correct is not None:
            raise SchemaError(f"record {self.id}: an {self.status} record has no verdict")
        if self.status == "error" and not self.reason.strip():
            raise SchemaError(f"record {self.id}: an error record needs a reason")
        reason = " ".join(printable(self.reason).split())  # one line, safe to print
        if reason != self.reason:
            object.__setattr__(self, "reason", reason)

    @property
    def is_scored(self) -> bool:
        return self.status == "scored"

    @property
    def item_key(self) -> ItemKey:
        """What names this record's item within one protocol (journal, shards, merge)."""
        return (self.suite_ref, self.key.memsystem, self.key.k, self.id, self.repeat)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "key": self.key.to_json()}
        for f in fields(self)[2:]:
            value = getattr(self, f.name)
            data[f.name] = dict(value) if isinstance(value, Mapping) else value
        data["memories"] = [m.to_json() for m in self.memories]
        data["llm_tokens"] = tokens_to_json(self.llm_tokens)
        data["ingest_ms"] = list(self.ingest_ms)
        data["context_fill"] = None if self.context_fill is None else self.context_fill.to_json()
        return data

    @classmethod
    def from_json(cls, data: Any, where: str = "record") -> Record:
        data = _mapping(data, where)
        where = f"{where} (id {data.get('id', '?')})"
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise SchemaError(f"{where}: unknown field {unknown[0]!r}")
        for name in ("id", "key", "suite_ref", "context", "cluster", "task", "status"):
            if name not in data:
                raise SchemaError(f"{where}: lacks {name!r}")
        check_types(data, RECORD_FIELD_KINDS, where)
        if not all(isinstance(v, str) for v in data.get("strata", {}).values()):
            raise SchemaError(f"{where}: strata must map names to strings")
        values = dict(data, key=RunKey.from_json(data["key"], f"{where}: key"))
        for name in ("strata", "detail", "answer_detail", "ingest"):
            values[name] = _mapping(values.get(name, {}), f"{where}: {name}")
        values["memories"] = memories_from_json(values.get("memories", []), where)
        values["llm_tokens"] = tokens_from_json(values.get("llm_tokens"), f"{where}: llm_tokens")
        values["ingest_ms"] = _milliseconds(values.get("ingest_ms", []), f"{where}: ingest_ms")
        if values.get("context_fill") is not None:
            values["context_fill"] = FillCost.from_json(values["context_fill"], f"{where}: context_fill")
        values.update(_moved_fields(values))
        try:
            return cls(**values)
        except TypeError as exc:
            raise SchemaError(f"{where}: {exc}") from None


def _moved_fields(values: Mapping[str, Any]) -> dict[str, Any]:
    """A record written before `stage` and `memory_unreadable` were fields kept them in
    `detail["stage"]` and `answer_detail["memory_unreadable"]`: read them from there."""
    moved: dict[str, Any] = {}
    old_stage = values["detail"].get("stage")
    if "stage" not in values and isinstance(old_stage, str):
        moved["stage"] = old_stage
        moved["detail"] = {k: v for k, v in values["detail"].items() if k != "stage"}
    old_unreadable = values["answer_detail"].get("memory_unreadable")
    if "memory_unreadable" not in values and isinstance(old_unreadable, bool):
        moved["memory_unreadable"] = old_unreadable
        moved["answer_detail"] = {k: v for k, v in values["answer_detail"].items() if k != "memory_unreadable"}
    return moved


@dataclass(frozen=True)
class Metric:
    """A metric's value with its confidence interval; None where undefined on the data."""

    value: float | None
    ci: tuple[float | None, float | None] = (None, None)
    n: int | None = None
    #: minimum detectable effect at 80% power (two-sided .05), where the suite computes one
    mde: float | None = None
    #: standard error of the mean across units, where the paper reports mean +- SEM
    sem: float | None = None
    #: why the value has no interval (one cluster, no variation, ...: stats.estimability);
    #: empty when it has one, or has no value
    no_interval: str = ""
    #: the independent clusters the interval resamples, where the statistic says
    n_clusters: int | None = None

    def __post_init__(self) -> None:
        low, high = self.ci
        object.__setattr__(self, "ci", (finite(low), finite(high)))
        for name in ("value", "mde", "sem"):
            object.__setattr__(self, name, finite(getattr(self, name)))

    @property
    def has_ci(self) -> bool:
        return None not in self.ci

    def to_json(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "ci": list(self.ci),
            "n": self.n,
            "mde": self.mde,
            "sem": self.sem,
            "no_interval": self.no_interval,
            "n_clusters": self.n_clusters,
        }

    @classmethod
    def from_json(cls, data: Any, where: str = "metric") -> Metric:
        data = _mapping(data, where)
        ci = data.get("ci") or [None, None]
        if not isinstance(ci, (list, tuple)) or len(ci) != 2:
            raise SchemaError(f"{where}: ci must be [low, high]")
        return cls(
            _number(data, "value", where),
            (ci[0], ci[1]),
            data.get("n"),
            _number(data, "mde", where),
            _number(data, "sem", where),
            str(data.get("no_interval") or ""),
            _int(data, "n_clusters", where) if data.get("n_clusters") is not None else None,
        )


@dataclass(frozen=True)
class Cell:
    """One cell of a breakdown (e.g. reasoning type A): its item count and metrics."""

    n: int
    metrics: Mapping[str, Metric]

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "metrics": {name: m.to_json() for name, m in self.metrics.items()}}

    @classmethod
    def from_json(cls, data: Any, where: str = "cell") -> Cell:
        data = _mapping(data, where)
        return cls(_int(data, "n", where), _metrics(data.get("metrics", {}), where))


Breakdown = Mapping[str, Mapping[str, Cell]]


@dataclass(frozen=True)
class SuiteSummary:
    """What a suite's `summarize` returns for the scored records of one run.

    `metrics` are what gates and comparisons name; `breakdown` maps a dimension (type,
    dataset, ...) to its cells; `note` is shown beside the numbers (e.g. an approximate
    judge); `extra` holds the suite's own JSON-ready diagnostics that only its figures read;
    `gate_blocker`, when set, says why the metrics mean nothing (e.g. the offline reader
    could not read the system's memories): every gate on the run fails with it.
    """

    metrics: Mapping[str, Metric]
    breakdown: Breakdown = field(default_factory=dict)
    note: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)
    gate_blocker: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "extra", finite_tree(self.extra))


EMPTY_SUMMARY = SuiteSummary(metrics={})


@dataclass(frozen=True)
class Flakiness:
    """How the repeats of a run's items agreed (--memeval-repeat N, N > 1).

    Over the `n_items` items scored in more than one repeat: `flaky` changed verdict
    between repeats; `agreement` is the mean share of repeat pairs with the same verdict;
    `pass_all` (pass^N) the share correct in every repeat, `pass_any` (pass@N) in at least
    one. Intervals resample clusters, so an item's repeats stay inside its cluster.
    `flaky_ids` names the first flaky items.
    """

    repeats: int
    n_items: int
    flaky: int
    agreement: Metric
    pass_all: Metric
    pass_any: Metric
    flaky_ids: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "repeats": self.repeats,
            "n_items": self.n_items,
            "flaky": self.flaky,
            "agreement": self.agreement.to_json(),
            "pass_all": self.pass_all.to_json(),
            "pass_any": self.pass_any.to_json(),
            "flaky_ids": list(self.flaky_ids),
        }

    @classmethod
    def from_json(cls, data: Any, where: str) -> Flakiness | None:
        if data is None:
            return None
        data = _mapping(data, where)
        ids = data.get("flaky_ids", [])
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise SchemaError(f"{where}: flaky_ids must be a list of strings")
        agreement, pass_all, pass_any = (
            Metric.from_json(data.get(name), f"{where}: {name}") for name in ("agreement", "pass_all", "pass_any")
        )
        return cls(
            _int(data, "repeats", where),
            _int(data, "n_items", where),
            _int(data, "flaky", where),
            agreement,
            pass_all,
            pass_any,
            tuple(ids),
        )


@dataclass(frozen=True)
class JudgePair:
    """Two judges of a panel on the same records: how far apart their accuracies are (a - b,
    paired, with its interval and test) and how well they agree beyond chance (Cohen's kappa)."""

    a: str
    b: str
    #: records both judged with a yes/no verdict, and those where they gave the same one
    n: int
    agree: int
    kappa: Metric
    difference: PairedMetric

    def to_json(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "n": self.n,
            "agree": self.agree,
            "kappa": self.kappa.to_json(),
            "difference": self.difference.to_json(),
        }

    @classmethod
    def from_json(cls, data: Any, where: str) -> JudgePair:
        data = _mapping(data, where)
        return cls(
            _str(data, "a", where),
            _str(data, "b", where),
            _int(data, "n", where),
            _int(data, "agree", where),
            Metric.from_json(data.get("kappa"), f"{where}: kappa"),
            PairedMetric.from_json(data.get("difference"), f"{where}: difference"),
        )


@dataclass(frozen=True)
class JudgeSensitivity:
    """How much the judge moves the number: a run graded by a panel whose judges give yes/no
    verdicts (e.g. Mem0's J beside LongMemEval's strict prompt), over the `n` records every
    judge of the panel judged. `disagreements`: (item id, repeat, each judge's verdict) of
    the records where the judges did not all say the same."""

    judges: tuple[str, ...]
    n: int
    accuracy: Mapping[str, Metric]
    pairs: tuple[JudgePair, ...]
    disagreements: tuple[tuple[str, int, Mapping[str, bool]], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "judges": list(self.judges),
            "n": self.n,
            "accuracy": {name: m.to_json() for name, m in self.accuracy.items()},
            "pairs": [pair.to_json() for pair in self.pairs],
            "disagreements": [{"id": i, "repeat": r, "verdicts": dict(v)} for i, r, v in self.disagreements],
        }

    @classmethod
    def from_json(cls, data: Any, where: str) -> JudgeSensitivity | None:
        if data is None:
            return None
        data = _mapping(data, where)
        judges, pairs, rows = (data.get(name, []) for name in ("judges", "pairs", "disagreements"))
        if not isinstance(judges, list) or not all(isinstance(j, str) for j in judges):
            raise SchemaError(f"{where}: judges must be a list of strings")
        if not isinstance(pairs, list) or not isinstance(rows, list):
            raise SchemaError(f"{where}: pairs and disagreements must be lists")
        disagreements = []
        for i, row in enumerate(rows):
            row = _mapping(row, f"{where}: disagreements[{i}]")
            verdicts = _mapping(row.get("verdicts", {}), f"{where}: disagreements[{i}]")
            if not all(isinstance(v, bool) for v in verdicts.values()):
                raise SchemaError(f"{where}: disagreements[{i}]: verdicts must be true or false")
            disagreements.append((_str(row, "id", where), _int(row, "repeat", where), dict(verdicts)))
        return cls(
            tuple(judges),
            _int(data, "n", where),
            {
                name: Metric.from_json(m, f"{where}: {name}")
                for name, m in _mapping(data.get("accuracy"), where).items()
            },
            tuple(JudgePair.from_json(p, f"{where}: pairs[{i}]") for i, p in enumerate(pairs)),
            tuple(disagreements),
        )


@dataclass(frozen=True)
class RunSummary:
    """One run: how its items ended, and its suite's summary of the scored ones.

    With --memeval-repeat each item ran `repeats` times: `n_items` counts records (items
    x repeats) and `flakiness` says how the repeats agreed. `subset` is set when the
    selection (-k, -m, --lf, --deselect, a shard) left part of the suite out; `sample` says
    why the items are not the benchmark's release (generated data), `incomplete` why some
    selected items have no score (the session stopped early, or they ended in errors
    beyond --memeval-max-errors); both are empty otherwise. `n_clusters` counts
    the independent clusters of the scored items (see `results.clusters`). `judge_sensitivity`
    is set when a panel of judges with yes/no verdicts graded the run.
    """

    key: RunKey
    n_items: int
    n_scored: int
    n_invalid: int
    n_errors: int
    summary: SuiteSummary = EMPTY_SUMMARY
    repeats: int = 1
    subset: Subset | None = None
    flakiness: Flakiness | None = None
    n_clusters: int | None = None
    judge_sensitivity: JudgeSensitivity | None = None
    sample: str = ""
    incomplete: str = ""

    def __post_init__(self) -> None:
        if self.n_items != self.n_scored + self.n_invalid + self.n_errors:
            raise SchemaError(
                f"run {self.key.label()}: n_items {self.n_items} != scored {self.n_scored} + "
                f"invalid {self.n_invalid} + errors {self.n_errors}"
            )

    @property
    def metrics(self) -> Mapping[str, Metric]:
        return self.summary.metrics

    @property
    def breakdown(self) -> Breakdown:
        return self.summary.breakdown

    @property
    def note(self) -> str:
        return self.summary.note

    @property
    def extra(self) -> Mapping[str, Any]:
        return self.summary.extra

    @property
    def gate_blocker(self) -> str:
        return self.summary.gate_blocker

    @property
    def labels(self) -> list[str]:
        """What makes the run's numbers partial, as the closing table, the HTML headline and
        the JSON name it: "sample", "subset N of M", "incomplete"."""
        labels = ["sample"] if self.sample else []
        labels += [f"subset {self.subset.n:,} of {self.subset.of:,}"] if self.subset is not None else []
        return labels + (["incomplete"] if self.incomplete else [])

    @property
    def n_distinct(self) -> int:
        """Items of the suite the run covered (records without repeats)."""
        return self.n_items // max(1, self.repeats) if self.subset is None else self.subset.n

    @classmethod
    def of(
        cls,
        key: RunKey,
        records: Sequence[Record],
        summary: SuiteSummary = EMPTY_SUMMARY,
        subset: Subset | None = None,
        flakiness: Flakiness | None = None,
        n_clusters: int | None = None,
        judge_sensitivity: JudgeSensitivity | None = None,
    ) -> RunSummary:
        counts = {status: sum(r.status == status for r in records) for status in STATUSES}
        repeats = len({r.repeat for r in records}) or 1
        n = (len(records), counts["scored"], counts["invalid"], counts["error"])
        return cls(key, *n, summary, repeats, subset, flakiness, n_clusters, judge_sensitivity)

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key.to_json(),
            "label": self.key.label(),
            "n_items": self.n_items,
            "n_scored": self.n_scored,
            "n_invalid": self.n_invalid,
            "n_errors": self.n_errors,
            "metrics": {name: m.to_json() for name, m in self.metrics.items()},
            "breakdown": {
                dim: {name: c.to_json() for name, c in cells.items()} for dim, cells in self.breakdown.items()
            },
            "note": self.note,
            "extra": dict(self.extra),
            "gate_blocker": self.gate_blocker,
            "repeats": self.repeats,
            "subset": self.subset.to_json() if self.subset is not None else None,
            "flakiness": self.flakiness.to_json() if self.flakiness is not None else None,
            "n_clusters": self.n_clusters,
            "judge_sensitivity": self.judge_sensitivity.to_json() if self.judge_sensitivity is not None else None,
            "sample": self.sample,
            "incomplete": self.incomplete,
            "labels": self.labels,  # derived from sample, subset and incomplete; not read back
        }

    @classmethod
    def from_json(cls, data: Any, where: str = "run") -> RunSummary:
        data = _mapping(data, where)
        key = RunKey.from_json(data.get("key"), f"{where}: key")
        where = f"run {key.label()}"
        breakdown = {
            dim: {name: Cell.from_json(c, f"{where}: {dim}/{name}") for name, c in _mapping(cells, where).items()}
            for dim, cells in _mapping(data.get("breakdown", {}), where).items()
        }
        summary = SuiteSummary(
            _metrics(data.get("metrics", {}), where),
            breakdown,
            str(data.get("note", "")),
            _mapping(data.get("extra", {}), where),
            str(data.get("gate_blocker", "")),
        )
        return cls(
            key,
            _int(data, "n_items", where),
            _int(data, "n_scored", where),
            _int(data, "n_invalid", where),
            _int(data, "n_errors", where),
            summary,
            repeats=_int(data, "repeats", where) if "repeats" in data else 1,
            subset=Subset.from_json(data.get("subset"), f"{where}: subset"),
            flakiness=Flakiness.from_json(data.get("flakiness"), f"{where}: flakiness"),
            n_clusters=_int(data, "n_clusters", where) if data.get("n_clusters") is not None else None,
            judge_sensitivity=JudgeSensitivity.from_json(data.get("judge_sensitivity"), f"{where}: judge_sensitivity"),
            sample=str(data.get("sample") or ""),
            incomplete=str(data.get("incomplete") or ""),
        )


@dataclass(frozen=True)
class PairedMetric:
    """One metric of a paired comparison a - b; `p_holm` is set over the session's family."""

    estimate_a: float | None
    estimate_b: float | None
    difference: float | None
    ci: tuple[float | None, float | None]
    p_value: float | None
    test: str
    mde: float | None = None
    better: Literal["higher", "lower"] = "higher"
    p_holm: float | None = None
    #: the suite's own JSON-ready diagnostics of this comparison (e.g. top-k overlap)
    extra: Mapping[str, Any] = field(default_factory=dict)
    #: why the difference has no interval (stats.estimability); empty when it has one
    no_interval: str = ""
    #: the independent clusters the interval and test rest on, where the statistic says
    n_clusters: int | None = None

    def __post_init__(self) -> None:
        for name in ("estimate_a", "estimate_b", "difference", "p_value", "mde", "p_holm"):
            object.__setattr__(self, name, finite(getattr(self, name)))
        object.__setattr__(self, "ci", (finite(self.ci[0]), finite(self.ci[1])))
        object.__setattr__(self, "extra", finite_tree(self.extra))

    @property
    def has_ci(self) -> bool:
        return None not in self.ci

    def to_json(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["ci"] = list(self.ci)
        data["extra"] = dict(self.extra)
        return data

    @classmethod
    def from_json(cls, data: Any, where: str = "paired metric") -> PairedMetric:
        data = _mapping(data, where)
        ci = data.get("ci") or [None, None]
        try:
            return cls(**dict(data, ci=(ci[0], ci[1])))
        except TypeError as exc:
            raise SchemaError(f"{where}: {exc}") from None


@dataclass(frozen=True)
class Unpaired:
    """Items scored on one side of a comparison only: counted, and the first few named."""

    count: int = 0
    ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Comparison:
    """Two runs of one suite paired item by item (`source` run), or a run and its baseline."""

    suite: str
    a: RunKey
    b: RunKey
    source: Source
    n_paired: int
    metrics: Mapping[str, PairedMetric]
    only_a: Unpaired = Unpaired()
    only_b: Unpaired = Unpaired()
    #: items whose verdict differs between a and b (by the share of repeats judged correct)
    flipped: tuple[FlippedItem, ...] = ()
    #: independent clusters among the paired items (see `results.clusters`)
    n_clusters: int | None = None

    def labels(self, among: Iterable[RunKey] | None = None) -> tuple[str, str]:
        """Names of the two sides; a baseline side says so."""
        keys = list(among) if among is not None else None
        label_b = self.b.label(keys)
        return self.a.label(keys), f"baseline {label_b}" if self.source == "baseline" else label_b

    def to_json(self) -> dict[str, Any]:
        return {
            "suite": self.suite,
            "a": self.a.to_json(),
            "b": self.b.to_json(),
            "source": self.source,
            "n_paired": self.n_paired,
            "only_a": {"count": self.only_a.count, "ids": list(self.only_a.ids)},
            "only_b": {"count": self.only_b.count, "ids": list(self.only_b.ids)},
            "metrics": {name: m.to_json() for name, m in self.metrics.items()},
            "flipped": [f.to_json() for f in self.flipped],
            "n_clusters": self.n_clusters,
        }

    @classmethod
    def from_json(cls, data: Any, where: str = "comparison") -> Comparison:
        data = _mapping(data, where)
        source = data.get("source")
        if source not in ("run", "baseline"):
            raise SchemaError(f"{where}: source {source!r} is not run or baseline")
        unpaired = {
            side: Unpaired(
                _int(_mapping(data.get(side, {}), where), "count", where),
                tuple(_mapping(data.get(side, {}), where).get("ids", ())),
            )
            for side in ("only_a", "only_b")
        }
        return cls(
            _str(data, "suite", where),
            RunKey.from_json(data.get("a"), f"{where}: a"),
            RunKey.from_json(data.get("b"), f"{where}: b"),
            source,
            _int(data, "n_paired", where),
            {
                name: PairedMetric.from_json(m, f"{where}: {name}")
                for name, m in _mapping(data.get("metrics", {}), where).items()
            },
            unpaired["only_a"],
            unpaired["only_b"],
            flipped_from_json(data.get("flipped", []), where),
            _int(data, "n_clusters", where) if data.get("n_clusters") is not None else None,
        )


@dataclass(frozen=True)
class GateVerdict:
    expression: str
    passed: bool
    detail: str
    mde: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"expression": self.expression, "passed": self.passed, "detail": self.detail, "mde": self.mde}

    @classmethod
    def from_json(cls, data: Any, where: str = "gate") -> GateVerdict:
        data = _mapping(data, where)
        return cls(
            _str(data, "expression", where),
            bool(data.get("passed")),
            _str(data, "detail", where),
            _number(data, "mde", where),
        )


@dataclass(frozen=True)
class Report:
    """A whole session: the JSON report, the terminal summary and the HTML page read this."""

    settings: Mapping[str, Any]
    runs: tuple[RunSummary, ...]
    records: tuple[Record, ...]
    comparisons: tuple[Comparison, ...] = ()
    gates: tuple[GateVerdict, ...] = ()
    #: failures not tied to one item (a memory system failing in close), one line each
    session_errors: tuple[str, ...] = ()
    plugin_version: str = "unknown"
    #: the run's protocol (None in reports written before fingerprints)
    fingerprint: Fingerprint | None = None
    #: comparisons made across protocols (--memeval-any-protocol), one line each
    protocol_notes: tuple[str, ...] = ()
    #: each run's tokens, latency and cost (apart from `runs`: timings differ between runs)
    usage: Mapping[RunKey, RunUsage] = field(default_factory=dict)
    #: set when the session ended before every selected item had a score
    incomplete: Incomplete | None = None

    def suites(self) -> list[str]:
        """Suite names in the order their first run or comparison appears."""
        return list(dict.fromkeys([r.key.suite for r in self.runs] + [c.suite for c in self.comparisons]))

    def runs_of(self, suite: str) -> list[RunSummary]:
        return [r for r in self.runs if r.key.suite == suite]

    def records_of(self, suite: str) -> list[Record]:
        return [r for r in self.records if r.key.suite == suite]

    def keys_of(self, suite: str) -> list[RunKey]:
        return [r.key for r in self.runs_of(suite)]

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "plugin_version": self.plugin_version,
            "settings": dict(self.settings),
            "runs": [r.to_json() for r in self.runs],
            "comparisons": [c.to_json() for c in self.comparisons],
            "gates": [g.to_json() for g in self.gates],
            "session_errors": list(self.session_errors),
            "fingerprint": self.fingerprint.to_json() if self.fingerprint is not None else None,
            "protocol_notes": list(self.protocol_notes),
            "usage": [
                {"key": key.to_json(), "label": key.label(), **usage.to_json()} for key, usage in self.usage.items()
            ],
            "incomplete": self.incomplete.to_json() if self.incomplete is not None else None,
            "records": [r.to_json() for r in self.records],
        }

    @classmethod
    def from_json(cls, data: Any) -> Report:
        data = _mapping(data, "report")
        if data.get("schema") != SCHEMA:
            raise SchemaError(f"schema {data.get('schema')!r} is not {SCHEMA!r}")
        return cls(
            settings=_mapping(data.get("settings", {}), "settings"),
            runs=tuple(RunSummary.from_json(r, f"runs[{i}]") for i, r in enumerate(_list(data, "runs"))),
            records=tuple(Record.from_json(r, f"records[{i}]") for i, r in enumerate(_list(data, "records"))),
            comparisons=tuple(
                Comparison.from_json(c, f"comparisons[{i}]") for i, c in enumerate(_list(data, "comparisons"))
            ),
            gates=tuple(GateVerdict.from_json(g, f"gates[{i}]") for i, g in enumerate(_list(data, "gates"))),
            session_errors=tuple(str(e) for e in _list(data, "session_errors")),
            plugin_version=str(data.get("plugin_version", "unknown")),
            fingerprint=_fingerprint(data.get("fingerprint")),
            protocol_notes=tuple(str(n) for n in _list(data, "protocol_notes")),
            usage=_usage(_list(data, "usage")),
            incomplete=Incomplete.from_json(data.get("incomplete"), "incomplete"),
        )


def with_holm(comparisons: Sequence[Comparison], adjusted: Sequence[float]) -> list[Comparison]:
    """The comparisons with `p_holm` set, `adjusted` in the order of `p_value_cells`."""
    values = iter(adjusted)
    result = []
    for comparison in comparisons:
        metrics = {
            name: replace(m, p_holm=next(values)) if m.p_value is not None else m
            for name, m in comparison.metrics.items()
        }
        result.append(replace(comparison, metrics=metrics))
    return result


def p_value_cells(comparisons: Sequence[Comparison]) -> list[PairedMetric]:
    return [m for c in comparisons for m in c.metrics.values() if m.p_value is not None]


def finite(value: Any) -> float | None:
    """A float, or None for a missing, NaN or infinite value."""
    if value is None:
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _usage(entries: list[Any]) -> dict[RunKey, RunUsage]:
    usage = {}
    for index, entry in enumerate(entries):
        where = f"usage[{index}]"
        key = RunKey.from_json(_mapping(entry, where).get("key"), f"{where}: key")
        parsed = RunUsage.from_json(entry, where)
        if parsed is not None:
            usage[key] = parsed
    return usage


def _milliseconds(value: Any, where: str) -> tuple[float, ...]:
    if not isinstance(value, list) or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        raise SchemaError(f"{where}: must be a list of numbers")
    return tuple(float(v) for v in value)


def _fingerprint(data: Any) -> Fingerprint | None:
    try:
        return Fingerprint.from_json(data) if data is not None else None
    except FingerprintError as exc:
        raise SchemaError(str(exc)) from None


def _list(data: Mapping[str, Any], name: str) -> list[Any]:
    value = data.get(name, [])
    if not isinstance(value, list):
        raise SchemaError(f"report: {name} must be a list")
    return value


def _metrics(data: Any, where: str) -> dict[str, Metric]:
    return {name: Metric.from_json(m, f"{where}: {name}") for name, m in _mapping(data, where).items()}
