"""What a memory system returns, checked and made JSON-safe before anything reads it.

An adapter is user code: it may return a tuple for a list, a score that is NaN or a
string, a set among its ingest statistics. Everything it returns goes into the item's
record, the wire to the controller and the reports, all strict JSON; a value that does not
fit would kill the run far from its cause. So the values are checked here, as they leave
the guard: what can be converted without guessing is (a non-finite score becomes None, an
integer id its string, a tuple a list), anything else is the adapter's error, one line
naming the field, and ends only the item that received it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from numbers import Real
from typing import Any

from ..errors import AdapterError
from ..types import Memory

#: how deeply nested a value an adapter returns may be (deeper is refused, not recursed into)
MAX_DEPTH = 32


class NotJSON(TypeError):
    """A value with no JSON form; the message names where it sits and what it is."""


def json_value(value: Any, where: str = "value", depth: int = 0) -> Any:
    """`value` as plain JSON data: dicts with string keys, lists, strings, finite numbers
    (NaN and infinities become None), booleans and None; raises NotJSON otherwise."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, Real):
        number = float(value)
        return number if math.isfinite(number) else None
    if depth >= MAX_DEPTH:
        raise NotJSON(f"{where} is nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, Mapping):
        converted = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise NotJSON(f"{where} has a key of type {type(key).__name__}")
            converted[key] = json_value(item, f"{where}[{key!r}]", depth + 1)
        return converted
    if isinstance(value, (list, tuple)):
        return [json_value(item, f"{where}[{index}]", depth + 1) for index, item in enumerate(value)]
    raise NotJSON(f"{where} is a {type(value).__name__}")


def checked_stats(system_name: str, stats: Any) -> dict[str, Any]:
    """An adapter's `ingest_stats` as a JSON object (None: no statistics)."""
    if stats is None:
        return {}
    if not isinstance(stats, Mapping):
        raise AdapterError(
            f"memsystem {system_name!r} returned ingest_stats of type {type(stats).__name__}, expected a dict"
        )
    try:
        converted: dict[str, Any] = json_value(stats, "ingest_stats")
    except NotJSON as exc:
        raise AdapterError(f"memsystem {system_name!r} returned ingest_stats that are not JSON: {exc}") from None
    return converted


def checked_memories(system_name: str, memories: Any, k: int | None) -> list[Memory]:
    """What `retrieve` (or `dump`) returned, checked: a list of at most k `Memory` whose
    text is a string, score a number or None, id a string or None, metadata a JSON object,
    sources strings and verbatim a string or None. Memories that needed a conversion are replaced by converted copies."""
    if not isinstance(memories, list):
        raise AdapterError(f"memsystem {system_name!r} returned {type(memories).__name__}, expected list[Memory]")
    if k is not None and len(memories) > k:
        raise AdapterError(f"memsystem {system_name!r} returned {len(memories)} memories for k={k}")
    checked = []
    for index, memory in enumerate(memories):
        if not isinstance(memory, Memory):
            raise AdapterError(
                f"memsystem {system_name!r} returned a {type(memory).__name__} at position {index}, expected Memory"
            )
        try:
            checked.append(_checked_memory(memory))
        except NotJSON as exc:
            raise AdapterError(f"memsystem {system_name!r} returned a Memory whose {exc} at position {index}") from None
    return checked


def _checked_memory(memory: Memory) -> Memory:
    if not isinstance(memory.text, str):
        raise NotJSON(f"text is {type(memory.text).__name__}")
    if memory.verbatim is not None and not isinstance(memory.verbatim, str):
        raise NotJSON(f"verbatim is {type(memory.verbatim).__name__}")
    changes: dict[str, Any] = {}
    score = memory.score
    if score is not None:
        if isinstance(score, bool) or not isinstance(score, Real):
            raise NotJSON(f"score is {type(score).__name__}")
        if not isinstance(score, float) or not math.isfinite(score):
            changes["score"] = json_value(score)
    if memory.id is not None and not isinstance(memory.id, str):
        if isinstance(memory.id, bool) or not isinstance(memory.id, int):
            raise NotJSON(f"id is {type(memory.id).__name__}")
        changes["id"] = str(memory.id)
    if not isinstance(memory.metadata, Mapping):
        raise NotJSON(f"metadata is {type(memory.metadata).__name__}")
    metadata = json_value(memory.metadata, "metadata")
    if metadata != memory.metadata:
        changes["metadata"] = metadata
    if not isinstance(memory.sources, tuple) or not all(isinstance(s, str) for s in memory.sources):
        if not isinstance(memory.sources, (list, tuple)):
            raise NotJSON(f"sources is {type(memory.sources).__name__}")
        bad = next((s for s in memory.sources if not isinstance(s, str)), None)
        if bad is not None:
            raise NotJSON(f"sources hold a {type(bad).__name__}")
        changes["sources"] = tuple(memory.sources)
    return replace(memory, **changes) if changes else memory
