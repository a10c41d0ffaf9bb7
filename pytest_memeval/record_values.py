"""Typed values a reviewer reads beside the metrics, and the JSON checks `records` shares:
what a memory system returned for an item, what its LLM cost to fill the item's context,
how much of a suite a run covered, and which items flipped between two runs.

Each value is frozen; `to_json`/`from_json` round-trip exactly; `from_json` raises
`SchemaError` with one line naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: characters of a memory's text kept in a record (the full length is kept beside it)
MEMORY_TEXT_CHARS = 1000


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


@dataclass(frozen=True)
class LLMUsage:
    """LLM calls counted by the run's gateway (models/gateway.py) for one scope, e.g. what a
    memory system's own LLM spent filling one context: `calls` made (`cached_calls` of them
    answered from the recording, which reports the tokens recorded), the tokens the endpoint
    reported (`prompt_tokens`, `completion_tokens`; 0 where it reported none) and `seconds`,
    the wall time of the calls as the system waited for them (summed; calls in parallel
    overlap)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    cached_calls: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: LLMUsage) -> LLMUsage:
        return LLMUsage(
            self.calls + other.calls,
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.seconds + other.seconds,
            self.cached_calls + other.cached_calls,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "seconds": self.seconds,
            "cached_calls": self.cached_calls,
        }

    @classmethod
    def from_json(cls, data: Any, where: str) -> LLMUsage | None:
        if data is None:
            return None
        data = mapping(data, where)
        seconds = number(data, "seconds", where)
        return cls(
            integer(data, "calls", where),
            integer(data, "prompt_tokens", where),
            integer(data, "completion_tokens", where),
            0.0 if seconds is None else float(seconds),
            integer(data, "cached_calls", where),
        )


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
