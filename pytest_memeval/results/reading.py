"""Reading a saved JSON report (a baseline, a shard, a previous run's durations): every
problem is one line naming the option and the file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..files import json_input
from ..files.user_files import read_text
from .records import SCHEMA, Report, SchemaError


def read_json(path: Path, option: str) -> Any:
    try:
        return json_input.loads(read_text(path))
    except OSError as exc:
        raise ConfigError(f"{option}: cannot read {path}: {exc.strerror or exc}") from None
    except json_input.UnreadableJSON as exc:  # nested too deeply, or a NaN
        raise ConfigError(f"{option}: {path} cannot be a report: {first_line(exc)}") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"{option}: {path} is not JSON: {first_line(exc)}") from None


def read_report(path: Path, option: str) -> Report:
    """A memeval-report/2 report, checked field by field."""
    data = read_json(path, option)
    schema = data.get("schema") if isinstance(data, dict) else type(data).__name__
    if schema != SCHEMA:
        raise ConfigError(f"{option}: {path} is not a {SCHEMA} report (schema: {schema!r})")
    try:
        return Report.from_json(data)
    except SchemaError as exc:
        raise ConfigError(f"{option}: {path}: {exc}") from None


def first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
