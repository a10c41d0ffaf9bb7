"""The typed values that cross from worker to controller to reports; their fields are the
report schema (schema.py reads and writes them).

    Record          one item of one run: scored, invalid (answered outside the schema) or
                    error (one line saying why); nothing else
    RecordedMemory  what a memory system returned for an item, as the record keeps it
    RunKey          what makes a run: suite, memory system, responder, judge, k; its `label`
    Metric          a value with its confidence interval, n and minimum detectable effect
    SuiteSummary    what a suite's `summarize` returns for one run's scored records
    RunSummary      a run's counts plus its suite summary (and, where they apply, the subset
                    of the suite it covered and the flakiness of its repeats)
    PairedMetric    one metric of a paired comparison
    Comparison      two runs of a suite (or a run and its baseline), item by item, with
                    the items whose verdict flipped
    GateVerdict     one CI gate on one run
    Report          all of the above, with the run's protocol fingerprint (fingerprint.py);
                    `ReportDocument` is its JSON form, schema memeval-report/2

Every value is frozen and round-trips exactly through JSON (floats unrounded, so that gates
compare what was measured); reading raises `SchemaError` with one line naming the field
when data do not fit, and refuses a field the schema does not have.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal

from msgspec.structs import force_setattr, replace

from ..printable import printable
from .fingerprint import Fingerprint, FingerprintError
from .retrieval import RetrievalScore
from .schema import Number, SchemaError, Value, convert, to_builtins
from .usage import FillCost, PhaseTokens, RunUsage

SCHEMA = "memeval-report/2"
Status = Literal["scored", "invalid", "error"]
STATUSES: tuple[Status, ...] = ("scored", "invalid", "error")
Source = Literal["run", "baseline"]
DETERMINISTIC = "deterministic"
#: suite as the test names it, memory system, k, item id, repeat
ItemKey = tuple[str, str, int, str, int]

#: characters of a memory's text kept in a record (the full length is kept beside it)
MEMORY_TEXT_CHARS = 1000
#: characters of an invalid answer's text kept in a record (a server may send megabytes)
RAW_CHARS = 4000
#: characters of a scored answer, and of the judge's reason, kept in a record and shown in a
#: failure's message: well above what a model writes at the default max_tokens (1,024),
#: far below the megabytes a server may send; the judge scores the whole answer
ANSWER_CHARS = 16_000


def finite(value: Any) -> float | None:
    """A float, or None for a missing, NaN or infinite value."""
    if value is None:
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def finite_tree(value: Any) -> Any:
    """`value` with every NaN or infinite float inside its dicts, lists and tuples made None
    (a suite's diagnostics: the reports are strict JSON)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {key: finite_tree(item) for key, item in value.items()}
    if isinstance(value, list):
        return [finite_tree(item) for item in value]
    if isinstance(value, tuple):
        return tuple(finite_tree(item) for item in value)
    return value


class RunKey(Value, frozen=True, order=True):
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


class RecordedMemory(Value, frozen=True):
    """One memory the system returned for an item, as the record keeps it: the text (its
    first MEMORY_TEXT_CHARS characters), the adapter's id and score, and the full length."""

    text: str
    id: str | None = None
    score: Number | None = None
    #: characters of the whole text (longer than `text` when it was shortened)
    length: int = 0

    @classmethod
    def of(cls, text: str, id: Any = None, score: Any = None) -> RecordedMemory:
        kept = text if len(text) <= MEMORY_TEXT_CHARS else text[:MEMORY_TEXT_CHARS]
        number = float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else None
        number = number if number is not None and math.isfinite(number) else None
        return cls(kept, None if id is None else str(id), number, len(text))


def kept_text(text: str, limit: int) -> str:
    """`text` whole when it has at most `limit` characters, else its beginning and its length."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]} \u2026 [{len(text):,} characters in all]"


class Record(Value, frozen=True):
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
    strata: Mapping[str, str] = {}
    reason: str = ""
    answer: str | None = None
    abstained: bool = False
    correct: bool | None = None
    score: Number | None = None
    gold: Any = None
    n_memories: int = 0
    retrieved_tokens: int = 0
    retrieve_ms: Number | None = None
    answer_ms: Number | None = None
    #: the judge's detail (rubric scores, trajectory metrics)
    detail: Mapping[str, Any] = {}
    #: the response model's detail (posterior margin, atoms, token counts)
    answer_detail: Mapping[str, Any] = {}
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
    ingest: Mapping[str, Any] = {}
    #: LLM tokens the item cost, per phase ("ingest", "answer", "judge") and model (usage.py)
    llm_tokens: PhaseTokens = {}
    #: milliseconds of each session stored when this item filled its context (none when filled before)
    ingest_ms: tuple[float, ...] = ()
    #: with --memeval-searchable, per session of that fill: milliseconds from its ingest until
    #: its last message was retrievable; None where it was not within the deadline (an error)
    searchable_ms: tuple[float | None, ...] = ()
    judge_ms: Number | None = None
    #: what filling the item's context cost the memory system's own LLM (metered by the
    #: gateway), on every record of the context; for reading, totals sum `llm_tokens` (usage.py)
    context_fill: FillCost | None = None
    #: what the retrieval found of the item's gold evidence (None: the suite declares none)
    retrieval: RetrievalScore | None = None

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise SchemaError(f"record {self.id}: status {self.status!r} is not one of {', '.join(STATUSES)}")
        if self.status != "scored" and self.correct is not None:
            raise SchemaError(f"record {self.id}: an {self.status} record has no verdict")
        if self.status == "error" and not self.reason.strip():
            raise SchemaError(f"record {self.id}: an error record needs a reason")
        reason = " ".join(printable(self.reason).split())  # one line, safe to print
        if reason != self.reason:
            force_setattr(self, "reason", reason)
        self._read_moved_fields()

    def _read_moved_fields(self) -> None:
        """A record written before `stage` and `memory_unreadable` were fields kept them in
        `detail["stage"]` and `answer_detail["memory_unreadable"]`: read them from there."""
        old_stage = self.detail.get("stage")
        if not self.stage and isinstance(old_stage, str):
            force_setattr(self, "stage", old_stage)
            force_setattr(self, "detail", {k: v for k, v in self.detail.items() if k != "stage"})
        old_unreadable = self.answer_detail.get("memory_unreadable")
        if not self.memory_unreadable and isinstance(old_unreadable, bool):
            force_setattr(self, "memory_unreadable", old_unreadable)
            force_setattr(
                self, "answer_detail", {k: v for k, v in self.answer_detail.items() if k != "memory_unreadable"}
            )

    @property
    def is_scored(self) -> bool:
        return self.status == "scored"

    @property
    def item_key(self) -> ItemKey:
        """What names this record's item within one protocol (journal, shards, merge)."""
        return (self.suite_ref, self.key.memsystem, self.key.k, self.id, self.repeat)


class Metric(Value, frozen=True):
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
        force_setattr(self, "ci", (finite(low), finite(high)))
        for name in ("value", "mde", "sem"):
            force_setattr(self, name, finite(getattr(self, name)))

    @property
    def has_ci(self) -> bool:
        return None not in self.ci


class Cell(Value, frozen=True):
    """One cell of a breakdown (e.g. reasoning type A): its item count and metrics."""

    n: int
    metrics: Mapping[str, Metric]


Breakdown = Mapping[str, Mapping[str, Cell]]


class SuiteSummary(Value, frozen=True):
    """What a suite's `summarize` returns for the scored records of one run.

    `metrics` are what gates and comparisons name; `breakdown` maps a dimension (type,
    dataset, ...) to its cells; `note` is shown beside the numbers (e.g. an approximate
    judge); `extra` holds the suite's own JSON-ready diagnostics that only its figures read;
    `gate_blocker`, when set, says why the metrics mean nothing (e.g. the offline reader
    could not read the system's memories): every gate on the run fails with it.
    """

    metrics: Mapping[str, Metric]
    breakdown: Breakdown = {}
    note: str = ""
    extra: Mapping[str, Any] = {}
    gate_blocker: str = ""

    def __post_init__(self) -> None:
        force_setattr(self, "extra", finite_tree(self.extra))


EMPTY_SUMMARY = SuiteSummary(metrics={})


class Subset(Value, frozen=True):
    """A run that covered part of its suite: `n` distinct items of the suite's `of`
    (its size, split and seeds), because -k, -m, --lf or --deselect left the rest out."""

    n: int
    of: int

    def text(self) -> str:
        return f"subset: {self.n} of {self.of} items"


class Incomplete(Value, frozen=True):
    """A session that ended before every item it selected had a score: `reason` says why
    (interrupted, --memeval-max-cost, errors beyond --memeval-max-errors), `ran` counts the
    records it holds of the `selected` items (None where that count is not known), and
    `resume` is the command that continues it ("" where no journal was kept)."""

    reason: str
    ran: int
    selected: int | None = None
    resume: str = ""

    def text(self) -> str:
        """How many items ran, of how many, and why the rest did not."""
        of = f" of {self.selected:,}" if self.selected is not None else ""
        return f"{self.ran:,}{of} selected items ran ({self.reason})"


class Flakiness(Value, frozen=True):
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


class PairedMetric(Value, frozen=True):
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
    extra: Mapping[str, Any] = {}
    #: why the difference has no interval (stats.estimability); empty when it has one
    no_interval: str = ""
    #: the independent clusters the interval and test rest on, where the statistic says
    n_clusters: int | None = None

    def __post_init__(self) -> None:
        for name in ("estimate_a", "estimate_b", "difference", "p_value", "mde", "p_holm"):
            force_setattr(self, name, finite(getattr(self, name)))
        force_setattr(self, "ci", (finite(self.ci[0]), finite(self.ci[1])))
        force_setattr(self, "extra", finite_tree(self.extra))

    @property
    def has_ci(self) -> bool:
        return None not in self.ci


class JudgePair(Value, frozen=True):
    """Two judges of a panel on the same records: how far apart their accuracies are (a - b,
    paired, with its interval and test) and how well they agree beyond chance (Cohen's kappa)."""

    a: str
    b: str
    #: records both judged with a yes/no verdict, and those where they gave the same one
    n: int
    agree: int
    kappa: Metric
    difference: PairedMetric


#: an item id, its repeat, and each judge's verdict on it
Disagreement = tuple[str, int, Mapping[str, bool]]


class JudgeSensitivity(Value, frozen=True):
    """How much the judge moves the number: a run graded by a panel whose judges give yes/no
    verdicts (e.g. Mem0's J beside LongMemEval's strict prompt), over the `n` records every
    judge of the panel judged. `disagreements`: (item id, repeat, each judge's verdict) of
    the records where the judges did not all say the same."""

    judges: tuple[str, ...]
    n: int
    accuracy: Mapping[str, Metric]
    pairs: tuple[JudgePair, ...]
    disagreements: tuple[Disagreement, ...] = ()


class JudgeCalibration(Value, frozen=True):
    """One judge's errors on answers made from the gold (--memeval-judge-audit): the share
    of wrong answers it accepted and of correct paraphrases it rejected, each with its
    Wilson interval, and the false-accept rate of each kind of wrong answer."""

    judge: str
    false_accept: Metric
    false_reject: Metric
    by_kind: Mapping[str, Metric] = {}


class JudgeAudit(Value, frozen=True):
    """A suite's judges on `n_items` of its items, each asked made-up answers (`probes` in
    all; `unjudged` of them got no readable verdict and count in no rate)."""

    suite: str
    n_items: int
    probes: int
    judges: tuple[JudgeCalibration, ...] = ()
    unjudged: int = 0


class ErratumChange(Value, frozen=True):
    """One record an erratum changed (--memeval-errata): excluded from the corrected metrics,
    or judged again against its corrected gold (`correct` as published, and corrected)."""

    id: str
    repeat: int
    excluded: bool
    reason: str = ""
    source: str = ""
    gold: Any = None
    published: bool | None = None
    corrected: bool | None = None


class ErrataSummary(Value, frozen=True):
    """A run's metrics with the errata applied, beside the published ones: over `n_scored`
    records (the excluded ones left out, the corrected ones judged against their new gold),
    and every record the errata changed."""

    metrics: Mapping[str, Metric]
    n_scored: int
    changes: tuple[ErratumChange, ...] = ()


class RunSummary(Value, frozen=True):
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
    #: the metrics with --memeval-errata applied, beside the published ones
    errata: ErrataSummary | None = None

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
        return RunDocument.of(self).to_json()

    @classmethod
    def from_json(cls, data: Any, where: str = "run") -> RunSummary:
        return convert(data, RunDocument, where).run()


class FlippedItem(Value, frozen=True):
    """An item whose verdict differs between the two sides of a comparison: the share of
    its repeats judged correct on each side (1.0 or 0.0 without repeats)."""

    id: str
    a: Number
    b: Number

    @property
    def worse_in_a(self) -> bool:
        return self.a < self.b


class Unpaired(Value, frozen=True):
    """Items scored on one side of a comparison only: counted, and the first few named."""

    count: int = 0
    ids: tuple[str, ...] = ()


class Comparison(Value, frozen=True):
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


class GateVerdict(Value, frozen=True):
    expression: str
    passed: bool
    detail: str
    mde: Number | None = None


class Report(Value, frozen=True):
    """A whole session: the JSON report, the terminal summary and the HTML page read this."""

    settings: Mapping[str, Any]
    runs: tuple[RunSummary, ...]
    #: a tuple, or on the controller the records read back from disk as they are iterated
    #: (`record_spool.SpooledRecords`)
    records: Sequence[Record]
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
    usage: Mapping[RunKey, RunUsage] = {}
    #: set when the session ended before every selected item had a score
    incomplete: Incomplete | None = None
    #: --memeval-judge-audit: each LLM-judged suite's judges on answers made from the gold
    judge_audits: tuple[JudgeAudit, ...] = ()

    def suites(self) -> list[str]:
        """Suite names in the order their first run or comparison appears."""
        return list(dict.fromkeys([r.key.suite for r in self.runs] + [c.suite for c in self.comparisons]))

    def runs_of(self, suite: str) -> list[RunSummary]:
        return [r for r in self.runs if r.key.suite == suite]

    def records_of(self, suite: str) -> Iterator[Record]:
        """The suite's records, one at a time (the report's may be read from disk)."""
        return (r for r in self.records if r.key.suite == suite)

    def keys_of(self, suite: str) -> list[RunKey]:
        return [r.key for r in self.runs_of(suite)]

    def to_json(self) -> dict[str, Any]:
        return ReportDocument.of(self).to_json()

    @classmethod
    def from_json(cls, data: Any, where: str = "") -> Report:
        return convert(data, ReportDocument, where).report()


# --- the JSON form of the values whose fields are not their JSON fields ------------------------


class DisagreementDocument(Value, frozen=True):
    id: str
    repeat: int
    verdicts: Mapping[str, bool] = {}


class SensitivityDocument(Value, frozen=True):
    """`JudgeSensitivity` as the report writes it: each disagreement an object."""

    n: int
    accuracy: Mapping[str, Metric]
    judges: tuple[str, ...] = ()
    pairs: tuple[JudgePair, ...] = ()
    disagreements: tuple[DisagreementDocument, ...] = ()

    @classmethod
    def of(cls, value: JudgeSensitivity) -> SensitivityDocument:
        rows = tuple(DisagreementDocument(i, r, v) for i, r, v in value.disagreements)
        return cls(value.n, value.accuracy, value.judges, value.pairs, rows)

    def sensitivity(self) -> JudgeSensitivity:
        rows = tuple((d.id, d.repeat, d.verdicts) for d in self.disagreements)
        return JudgeSensitivity(self.judges, self.n, self.accuracy, self.pairs, rows)


class RunDocument(Value, frozen=True):
    """`RunSummary` as the report writes it: the suite's summary in the run's own fields, and
    the run's `label` and `labels` (derived, not read back)."""

    key: RunKey
    n_items: int
    n_scored: int
    n_invalid: int
    n_errors: int
    metrics: Mapping[str, Metric] = {}
    breakdown: Breakdown = {}
    note: str = ""
    extra: Mapping[str, Any] = {}
    gate_blocker: str = ""
    repeats: int = 1
    subset: Subset | None = None
    flakiness: Flakiness | None = None
    n_clusters: int | None = None
    judge_sensitivity: SensitivityDocument | None = None
    sample: str = ""
    incomplete: str = ""
    errata: ErrataSummary | None = None
    label: str = ""
    labels: tuple[str, ...] = ()

    @classmethod
    def of(cls, run: RunSummary) -> RunDocument:
        summary, sensitivity = run.summary, run.judge_sensitivity
        return cls(
            run.key,
            run.n_items,
            run.n_scored,
            run.n_invalid,
            run.n_errors,
            summary.metrics,
            summary.breakdown,
            summary.note,
            summary.extra,
            summary.gate_blocker,
            run.repeats,
            run.subset,
            run.flakiness,
            run.n_clusters,
            SensitivityDocument.of(sensitivity) if sensitivity is not None else None,
            run.sample,
            run.incomplete,
            run.errata,
            run.key.label(),
            tuple(run.labels),
        )

    def run(self) -> RunSummary:
        summary = SuiteSummary(self.metrics, self.breakdown, self.note, self.extra, self.gate_blocker)
        sensitivity = self.judge_sensitivity.sensitivity() if self.judge_sensitivity is not None else None
        counts = (self.n_items, self.n_scored, self.n_invalid, self.n_errors)
        return RunSummary(
            self.key,
            *counts,
            summary,
            self.repeats,
            self.subset,
            self.flakiness,
            self.n_clusters,
            sensitivity,
            self.sample,
            self.incomplete,
            self.errata,
        )


class UsageDocument(RunUsage, frozen=True, kw_only=True):
    """A run's usage as the report writes it: with the run's key and `label` (not read back)."""

    key: RunKey
    label: str = ""

    def usage(self) -> RunUsage:
        return RunUsage(**{name: getattr(self, name) for name in RunUsage.__struct_fields__})


class ReportDocument(Value, frozen=True):
    """The JSON report, memeval-report/2: a `Report` as written, and as read."""

    schema: str
    plugin_version: str = "unknown"
    settings: Mapping[str, Any] = {}
    runs: tuple[RunDocument, ...] = ()
    comparisons: tuple[Comparison, ...] = ()
    gates: tuple[GateVerdict, ...] = ()
    session_errors: tuple[str, ...] = ()
    #: read by `Fingerprint.from_json`, which checks its digest against the protocol as written
    fingerprint: Mapping[str, Any] | None = None
    protocol_notes: tuple[str, ...] = ()
    usage: tuple[UsageDocument, ...] = ()
    incomplete: Incomplete | None = None
    judge_audits: tuple[JudgeAudit, ...] = ()
    records: tuple[Record, ...] = ()

    def __post_init__(self) -> None:
        if self.schema != SCHEMA:
            raise SchemaError(f"schema {self.schema!r} is not {SCHEMA!r}")

    @classmethod
    def of(cls, report: Report) -> ReportDocument:
        usage = tuple(
            UsageDocument(**{name: getattr(u, name) for name in u.__struct_fields__}, key=key, label=key.label())
            for key, u in report.usage.items()
        )
        return cls(
            SCHEMA,
            report.plugin_version,
            report.settings,
            tuple(RunDocument.of(run) for run in report.runs),
            report.comparisons,
            report.gates,
            report.session_errors,
            report.fingerprint.to_json() if report.fingerprint is not None else None,
            report.protocol_notes,
            usage,
            report.incomplete,
            report.judge_audits,
            tuple(report.records),
        )

    def report(self) -> Report:
        try:
            fingerprint = Fingerprint.from_json(self.fingerprint) if self.fingerprint is not None else None
        except FingerprintError as exc:
            raise SchemaError(str(exc)) from None
        return Report(
            settings=self.settings,
            runs=tuple(run.run() for run in self.runs),
            records=self.records,
            comparisons=self.comparisons,
            gates=self.gates,
            session_errors=self.session_errors,
            plugin_version=self.plugin_version,
            fingerprint=fingerprint,
            protocol_notes=self.protocol_notes,
            usage={entry.key: entry.usage() for entry in self.usage},
            incomplete=self.incomplete,
            judge_audits=self.judge_audits,
        )


def report_chunks(report: Report) -> Iterator[str]:
    """The JSON report in pieces: strict JSON, keys sorted, indented by one space, exactly as
    `json.dumps(..., indent=1, sort_keys=True)` writes the whole; the records one at a time,
    so that no more than one of them is ever held as dicts. Raises ValueError for a NaN or an
    infinity, TypeError for a value JSON cannot hold."""
    rest = _dumps(to_builtins(ReportDocument.of(replace(report, records=()))))
    head, tail = rest.split(_NO_RECORDS, 1)  # the top level's key, one space in: met once
    if not report.records:
        yield rest + "\n"
        return
    yield head + _NO_RECORDS[:-1]
    for index, record in enumerate(report.records):
        yield ("\n  " if index == 0 else ",\n  ") + _dumps(to_builtins(record)).replace("\n", "\n  ")
    yield "\n ]" + tail + "\n"


_NO_RECORDS = '\n "records": []'


def _dumps(data: Any) -> str:
    return json.dumps(data, indent=1, sort_keys=True, allow_nan=False)


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
