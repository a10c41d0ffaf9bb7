"""Reading an earlier JSON report as the baseline a run is compared against."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..errors import ConfigError

SCHEMA = "memeval-report/1"
Record = Mapping[str, Any]


def load_baseline(path: Path) -> list[dict[str, Any]]:
    """The per-item records of a saved report; every problem is a one-line ConfigError."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"--memeval-baseline: cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ConfigError(f"--memeval-baseline: {path} is not JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        found = data.get("schema") if isinstance(data, dict) else type(data).__name__
        raise ConfigError(f"--memeval-baseline: {path} is not a {SCHEMA} report (schema: {found!r})")
    records = data.get("records")
    if not isinstance(records, list) or not records:
        raise ConfigError(f"--memeval-baseline: {path} has no per-item records to pair with")
    required = ("id", "suite", "memsystem", "responder", "correct")
    for index, record in enumerate(records):
        missing = [key for key in required if not isinstance(record, dict) or key not in record]
        if missing:
            raise ConfigError(f"--memeval-baseline: {path}: record {index} lacks {', '.join(missing)}")
    return records


def baseline_for(
    records: Sequence[Record], suite: str, memsystem: str, responder: str, k: int
) -> tuple[dict[str, Any], list[Record]] | None:
    """The baseline run matching (suite, system, responder, k); else the suite's only run; else None."""
    runs: dict[tuple[str, str, Any], list[Record]] = {}
    for record in records:
        if record["suite"] == suite:
            runs.setdefault((record["memsystem"], record["responder"], record.get("k")), []).append(record)
    key = (memsystem, responder, k)
    if key not in runs:
        if len(runs) != 1:
            return None
        key = next(iter(runs))
    label = {"memsystem": key[0], "responder": key[1], "k": key[2], "label": f"baseline {key[0]} | {key[1]}"}
    return label, runs[key]
