"""Reading a saved JSON report (a baseline, a shard, a previous run's durations): every
problem is one line naming the option and the file.

A memeval-report/2 report is read typed, straight from its text (`schema.decode`): its
records are built once, never held as dicts first.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from ..errors import ConfigError
from ..files import json_input
from ..files.user_files import read_text
from .records import SCHEMA, Report, ReportDocument
from .schema import SchemaError, decode


def read_report_text(path: Path, option: str) -> str:
    """The text of a report file; what cannot be read is one line naming the option."""
    try:
        return read_text(path)
    except OSError as exc:
        raise ConfigError(f"{option}: cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{option}: {path} is not JSON: {first_line(exc)}") from None


def read_report(path: Path, option: str) -> Report:
    """A memeval-report/2 report, checked field by field."""
    return parse_report(read_report_text(path, option), path, option)


def parse_report(text: str, path: Path, option: str) -> Report:
    """The memeval-report/2 report `text` (read from `path`) holds."""
    try:
        return decode(text, ReportDocument).report()
    except SchemaError as exc:
        schema = report_schema(text, path, option)
        if schema != SCHEMA:
            raise ConfigError(f"{option}: {path} is not a {SCHEMA} report (schema: {schema!r})") from None
        raise ConfigError(f"{option}: {path}: {exc}") from None
    except ValueError as exc:
        raise _not_json(exc, path, option) from None


class _Header(msgspec.Struct):
    schema: Any = None


def report_schema(text: str, path: Path, option: str) -> Any:
    """The "schema" a JSON document names (None when it names none), or, when the document is
    not an object, its JSON type's Python name ("list")."""
    try:
        try:
            return decode(text, _Header).schema
        except SchemaError:
            return type(json_input.loads(text)).__name__
    except ValueError as exc:
        raise _not_json(exc, path, option) from None


def _not_json(exc: ValueError, path: Path, option: str) -> ConfigError:
    if isinstance(exc, json_input.UnreadableJSON):  # nested too deeply, or a NaN
        return ConfigError(f"{option}: {path} cannot be a report: {first_line(exc)}")
    if isinstance(exc, json.JSONDecodeError):
        return ConfigError(f"{option}: {path} is not JSON: {first_line(exc)}")
    return ConfigError(f"{option}: {path}: {first_line(exc)}")


def first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
