"""Reading one CSV file of the MemFail release, with one-line errors naming file and row.

The release writes its tables with Python's csv module: CRLF between records, a field
quoted when it holds a comma, a quote or a line break (Long-Hop questions span several
lines inside one field), JSON lists and objects inside cells (with \\u escapes), and empty
cells where a short chain leaves fact_/chain_ columns unused. Files edited by hand may
also come with a byte-order mark, LF line ends or a blank line at the end; all of these
read the same. Anything else (an unclosed quote, a row with too many or too few fields, a
missing column, a cell that is not the JSON it should be) is a `DataError` whose message
names the file and the row: "row N" counts data rows from 1, "line L" is where it starts.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_memeval.errors import DataError
from pytest_memeval.files import json_input
from pytest_memeval.framework.data_files import open_text


@dataclass(frozen=True)
class Row:
    """One data row of a release file, with what error messages need to point at it."""

    label: str
    number: int
    line: int
    cells: Mapping[str, str]

    @property
    def where(self) -> str:
        return f"{self.label} row {self.number} (line {self.line})"

    def error(self, message: str) -> DataError:
        return DataError(f"memfail release: {self.where}: {message}")

    def text(self, column: str) -> str:
        """The cell's text, stripped; an empty cell is an error."""
        value = self.optional(column)
        if not value:
            raise self.error(f"column {column!r} is empty")
        return value

    def optional(self, column: str) -> str:
        """The cell's text, stripped; empty when the cell is empty."""
        return self.cells[column].strip()

    def json(self, column: str) -> Any:
        try:
            return json_input.loads(self.text(column), constants=True)
        except json.JSONDecodeError as exc:
            raise self.error(f"column {column!r} is not valid JSON ({exc.msg} at character {exc.pos})") from None

    def strings(self, column: str) -> tuple[str, ...]:
        """A cell holding a non-empty JSON list of non-empty strings."""
        value = self.json(column)
        if not isinstance(value, list) or not value:
            raise self.error(f"column {column!r} must be a non-empty JSON list, got {_kind(value)}")
        for index, entry in enumerate(value):
            if not isinstance(entry, str) or not entry.strip():
                raise self.error(f"column {column!r}: entry {index + 1} must be a non-empty string, got {_kind(entry)}")
        return tuple(entry.strip() for entry in value)


def read_table(path: Path, label: str, columns: Sequence[str]) -> list[Row]:
    """The data rows of a CSV file whose header names at least `columns` (extra columns are
    ignored). `label` is how messages name the file (its path inside the release)."""
    try:
        with open_text(path, encoding="utf-8-sig", newline="") as handle:
            return _rows(csv.reader(handle, strict=True), label, columns)
    except UnicodeDecodeError as exc:
        raise DataError(f"memfail release: {label}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise DataError(f"memfail release: {label}: cannot be read ({exc.strerror or exc})") from None


def _rows(reader: Any, label: str, columns: Sequence[str]) -> list[Row]:
    try:
        header = next(reader, None)
        if not header:
            raise DataError(f"memfail release: {label}: the file is empty (no header row)")
        names = [name.strip() for name in header]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise DataError(f"memfail release: {label}: the header repeats column {duplicates[0]!r}")
        missing = [column for column in columns if column not in names]
        if missing:
            raise DataError(f"memfail release: {label}: the header lacks column(s) {', '.join(missing)}")
        rows: list[Row] = []
        line = reader.line_num + 1
        for record in reader:
            if record:  # csv yields [] for a blank line
                number = len(rows) + 1
                if len(record) != len(names):
                    where = f"{label} row {number} (line {line})"
                    raise DataError(f"memfail release: {where}: {len(record)} fields, the header has {len(names)}")
                rows.append(Row(label, number, line, dict(zip(names, record))))
            line = reader.line_num + 1
    except csv.Error as exc:
        raise DataError(f"memfail release: {label} line {reader.line_num}: malformed CSV ({exc})") from None
    if not rows:
        raise DataError(f"memfail release: {label}: no data rows")
    return rows


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__
