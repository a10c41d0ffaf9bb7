"""Typed values a reviewer reads beside the metrics, and the JSON checks `records` shares:
what a memory system returned for an item, what its LLM cost to fill the item's context,
how much of a suite a run covered, and which items flipped between two runs.

Each value is frozen; `to_json`/`from_json` round-trip exactly; `from_json` raises
`SchemaError` with one line naming the field.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

#: characters of a memory's text kept in a record (the full length is kept beside it)
MEMORY_TEXT_CHARS = 1000
#: characters of an invalid answer's text kept in a record (a server may send megabytes)
RAW_CHARS = 4000
#: characters of a scored answer, and of the judge's reason, kept in a record and shown in a
#: failure's message: well above what a model writes at the default max_tokens (1,024),
#: far below the megabytes a server may send; the judge scores the whole answer
ANSWER_CHARS = 16_000


class SchemaError(ValueError):
    """Data that do not fit the report schema; the message is one line naming the field."""


@dataclass(frozen=True)
class RecordedMemory:
    """One memory the system returned for an item, as the record keeps it: the text (its
    first MEMORY_TEXT_CHARS characters), the adapter's id and score, and the full length."""

    text: str
    id: str | None = None
    score: float | None = None
    #: characters of the whole text (longer than `text` when it was shortened)
    length: int = 0

    @classmethod
    def of(cls, text: str, id: Any = None, score: Any = None) -> RecordedMemory:
        kept = text if len(text) <= MEMORY_TEXT_CHARS else text[:MEMORY_TEXT_CHARS]
        number = float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else None
        number = number if number is not None and math.isfinite(number) else None
        return cls(kept, None if id is None else str(id), number, len(text))

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "id": self.id, "score": self.score, "length": self.length}

    @classmethod
    def from_json(cls, data: Any, where: str) -> RecordedMemory:
        data = mapping(data, where)
        identifier = data.get("id")
        if identifier is not None and not isinstance(identifier, str):
            raise SchemaError(f"{where}: id must be a string or null, got {identifier!r}")
        return cls(
            string(data, "text", where), identifier, number(data, "score", where), integer(data, "length", where)
        )


def kept_text(text: str, limit: int) -> str:
    """`text` whole when it has at most `limit` characters, else its beginning and its length."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]} \u2026 [{len(text):,} characters in all]"


def memories_from_json(data: Any, where: str) -> tuple[RecordedMemory, ...]:
    if not isinstance(data, list):
        raise SchemaError(f"{where}: memories must be a list")
    return tuple(RecordedMemory.from_json(m, f"{where}: memories[{i}]") for i, m in enumerate(data))


@dataclass(frozen=True)
class Subset:
    """A run that covered part of its suite: `n` distinct items of the suite's `of`
    (its size, split and seeds), because -k, -m, --lf or --deselect left the rest out."""

    n: int
    of: int

    def text(self) -> str:
        return f"subset: {self.n} of {self.of} items"

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "of": self.of}

    @classmethod
    def from_json(cls, data: Any, where: str) -> Subset | None:
        if data is None:
            return None
        data = mapping(data, where)
        return cls(integer(data, "n", where), integer(data, "of", where))


@dataclass(frozen=True)
class Incomplete:
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

    def to_json(self) -> dict[str, Any]:
        return {"reason": self.reason, "ran": self.ran, "selected": self.selected, "resume": self.resume}

    @classmethod
    def from_json(cls, data: Any, where: str) -> Incomplete | None:
        if data is None:
            return None
        data = mapping(data, where)
        selected = data.get("selected")
        return cls(
            string(data, "reason", where),
            integer(data, "ran", where),
            integer(data, "selected", where) if selected is not None else None,
            str(data.get("resume") or ""),
        )


@dataclass(frozen=True)
class FlippedItem:
    """An item whose verdict differs between the two sides of a comparison: the share of
    its repeats judged correct on each side (1.0 or 0.0 without repeats)."""

    id: str
    a: float
    b: float

    @property
    def worse_in_a(self) -> bool:
        return self.a < self.b

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "a": self.a, "b": self.b}

    @classmethod
    def from_json(cls, data: Any, where: str) -> FlippedItem:
        data = mapping(data, where)
        a, b = number(data, "a", where), number(data, "b", where)
        if a is None or b is None:
            raise SchemaError(f"{where}: a and b must be numbers")
        return cls(string(data, "id", where), a, b)


def flipped_from_json(data: Any, where: str) -> tuple[FlippedItem, ...]:
    if not isinstance(data, list):
        raise SchemaError(f"{where}: flipped must be a list")
    return tuple(FlippedItem.from_json(f, f"{where}: flipped[{i}]") for i, f in enumerate(data))


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


def mapping(data: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise SchemaError(f"{where}: expected an object, got {type(data).__name__}")
    return data


def string(data: Mapping[str, Any], name: str, where: str) -> str:
    value = data.get(name)
    if not isinstance(value, str):
        raise SchemaError(f"{where}: {name} must be a string, got {value!r}")
    return value


def integer(data: Mapping[str, Any], name: str, where: str) -> int:
    value = data.get(name)
    if not isinstance(value, int) or isinstance(value, bool):
        raise SchemaError(f"{where}: {name} must be an integer, got {value!r}")
    return value


def number(data: Mapping[str, Any], name: str, where: str) -> float | None:
    value = data.get(name)
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise SchemaError(f"{where}: {name} must be a number, got {value!r}")
    return value


def check_types(data: Mapping[str, Any], kinds: Mapping[str, str], where: str) -> None:
    """Each field of `data` named in `kinds` must be of its JSON kind: "string", "boolean",
    "integer", "number", "object" or "list", or several joined by "|" ("number|null"). A
    boolean is never an integer or a number. Absent fields are not checked (defaults apply)."""
    for name, kind in kinds.items():
        if name in data and not any(_IS_KIND[k](data[name]) for k in kind.split("|")):
            raise SchemaError(f"{where}: {name} must be {kind.replace('|', ' or ')}, got {data[name]!r:.60}")


_IS_KIND: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "object": lambda v: isinstance(v, Mapping),
    "list": lambda v: isinstance(v, list),
    "null": lambda v: v is None,
}
