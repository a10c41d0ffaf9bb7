"""Reading an earlier JSON report as the baseline a run is compared against.

A memeval-report/2 report is read whole and checked field by field; the per-item records
of an older memeval-report/1 report are converted (they carry everything pairing needs).
Every problem is one line naming the file and the field.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .fingerprint import Fingerprint
from .reading import read_json
from .record_values import check_types
from .records import DETERMINISTIC, SCHEMA, Record, Report, RunKey, SchemaError

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
    data = read_json(path, "--memeval-baseline")
    schema = data.get("schema") if isinstance(data, dict) else None
    fingerprint = None
    try:
        if schema == SCHEMA:
            report = Report.from_json(data)
            records, fingerprint = list(report.records), report.fingerprint
        elif schema == OLD_SCHEMA:
            records = [_from_schema_1(r, i) for i, r in enumerate(data.get("records") or [])]
        else:
            found = schema if isinstance(data, dict) else type(data).__name__
            raise ConfigError(f"--memeval-baseline: {path} is not a {SCHEMA} report (schema: {found!r})")
    except SchemaError as exc:
        raise ConfigError(f"--memeval-baseline: {path}: {exc}") from None
    if not records:
        raise ConfigError(f"--memeval-baseline: {path} has no per-item records to pair with")
    return Baseline(path, tuple(records), fingerprint)


#: the JSON kind of each field of a memeval-report/1 record (record_values.check_types)
SCHEMA_1_KINDS = {
    **dict.fromkeys(("id", "suite", "memsystem", "responder", "cluster", "task", "suite_ref", "context"), "string"),
    "correct": "boolean|null",
    "abstained": "boolean",
    "valid": "boolean",
    "error": "string|null",
    "k": "integer|null",
    "answer": "string|null",
    "score": "number|null",
    "n_memories": "integer|null",
    "retrieved_tokens": "integer|null",
    **dict.fromkeys(("strata", "detail", "answer_detail"), "object|null"),
}


def _from_schema_1(data: Any, index: int) -> Record:
    where = f"record {index}"
    if not isinstance(data, dict):
        raise SchemaError(f"{where}: expected an object")
    for name in ("id", "suite", "memsystem", "responder", "correct", "abstained", "cluster", "task"):
        if name not in data:
            raise SchemaError(f"{where} lacks {name!r}")
    check_types(data, SCHEMA_1_KINDS, where)
    if not all(isinstance(v, str) for v in (data.get("strata") or {}).values()):
        raise SchemaError(f"{where}: strata must map names to strings")
    if data.get("error"):
        status, reason = "error", str(data["error"])
    elif not data.get("valid", True):
        status, reason = "invalid", "invalid answer"
    else:
        status, reason = "scored", ""
    scored = status == "scored"
    return Record(
        id=str(data["id"]),
        key=RunKey(data["suite"], data["memsystem"], data["responder"], DETERMINISTIC, int(data.get("k") or 10)),
        suite_ref=str(data.get("suite_ref", data["suite"])),
        context=str(data.get("context", "")),
        cluster=str(data["cluster"]),
        task=str(data["task"]),
        status=status,  # type: ignore[arg-type]
        strata=dict(data.get("strata") or {}),
        reason=reason,
        answer=data.get("answer"),
        abstained=bool(data["abstained"]),
        correct=data["correct"] if scored else None,
        score=data.get("score") if scored else None,
        gold=data.get("gold"),
        n_memories=int(data.get("n_memories") or 0),
        retrieved_tokens=int(data.get("retrieved_tokens") or 0),
        detail=dict(data.get("detail") or {}),
        answer_detail=dict(data.get("answer_detail") or {}),
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
