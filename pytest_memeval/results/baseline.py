"""Reading an earlier JSON report as the baseline a run is compared against.

A memeval-report/2 report is read whole and checked field by field; the per-item records
of an older memeval-report/1 report are converted (they carry everything pairing needs).
Every problem is one line naming the file and the field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from msgspec import UNSET, UnsetType

from ..errors import ConfigError
from ..files import json_input
from .fingerprint import Fingerprint
from .reading import parse_report, read_report_text, report_schema
from .records import DETERMINISTIC, SCHEMA, Record, RunKey
from .schema import SchemaError, Value, convert

OLD_SCHEMA = "memeval-report/1"


@dataclass(frozen=True)
class Baseline:
    """A saved report's per-item records and the protocol they were run under."""

    path: Path
    records: tuple[Record, ...]
    #: None for a report written before fingerprints
    fingerprint: Fingerprint | None = None


def load_baseline(path: Path) -> Baseline:
    """The per-item records of a saved report, and its fingerprint."""
    option = "--memeval-baseline"
    text = read_report_text(path, option)
    schema = report_schema(text, path, option)
    fingerprint = None
    if schema == SCHEMA:
        report = parse_report(text, path, option)
        records, fingerprint = list(report.records), report.fingerprint
    elif schema == OLD_SCHEMA:
        try:
            records = [_from_schema_1(r, i) for i, r in enumerate(json_input.loads(text).get("records") or [])]
        except SchemaError as exc:
            raise ConfigError(f"{option}: {path}: {exc}") from None
    else:
        raise ConfigError(f"{option}: {path} is not a {SCHEMA} report (schema: {schema!r})")
    if not records:
        raise ConfigError(f"{option}: {path} has no per-item records to pair with")
    return Baseline(path, tuple(records), fingerprint)


class _RecordV1(Value, frozen=True, forbid_unknown_fields=False):
    """A record of a memeval-report/1 report: what pairing needs (fields it does not name are
    left out, as they always were)."""

    id: str
    suite: str
    memsystem: str
    responder: str
    correct: bool | None
    abstained: bool
    cluster: str
    task: str
    suite_ref: str | UnsetType = UNSET
    context: str = ""
    valid: bool = True
    error: str | None = None
    k: int | None = None
    answer: str | None = None
    score: float | None = None
    gold: Any = None
    n_memories: int | None = None
    retrieved_tokens: int | None = None
    strata: Mapping[str, str] | None = None
    detail: Mapping[str, Any] | None = None
    answer_detail: Mapping[str, Any] | None = None


def _from_schema_1(data: Any, index: int) -> Record:
    where = f"record {index}"
    if not isinstance(data, dict):
        raise SchemaError(f"{where}: expected an object")
    for name in ("id", "suite", "memsystem", "responder", "correct", "abstained", "cluster", "task"):
        if name not in data:
            raise SchemaError(f"{where} lacks {name!r}")
    old = convert(data, _RecordV1, where)
    if old.error:
        status, reason = "error", old.error
    elif not old.valid:
        status, reason = "invalid", "invalid answer"
    else:
        status, reason = "scored", ""
    scored = status == "scored"
    return Record(
        id=old.id,
        key=RunKey(old.suite, old.memsystem, old.responder, DETERMINISTIC, old.k or 10),
        suite_ref=old.suite if isinstance(old.suite_ref, UnsetType) else old.suite_ref,
        context=old.context,
        cluster=old.cluster,
        task=old.task,
        status=status,  # type: ignore[arg-type]
        strata=dict(old.strata or {}),
        reason=reason,
        answer=old.answer,
        abstained=old.abstained,
        correct=old.correct if scored else None,
        score=old.score if scored else None,
        gold=old.gold,
        n_memories=old.n_memories or 0,
        retrieved_tokens=old.retrieved_tokens or 0,
        detail=dict(old.detail or {}),
        answer_detail=dict(old.answer_detail or {}),
    )


def baseline_for(records: Sequence[Record], key: RunKey) -> tuple[RunKey, list[Record]] | None:
    """The baseline run matching the key (suite, system, responder, judge, k); else the
    suite's only run; else None."""
    runs: dict[RunKey, list[Record]] = {}
    for record in records:
        if record.key.suite == key.suite:
            runs.setdefault(record.key, []).append(record)
    if key in runs:
        return key, runs[key]
    if len(runs) == 1:
        return next(iter(runs.items()))
    return None
