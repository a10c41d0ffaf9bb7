"""The report's one JSON form, declared: each value that crosses from worker to controller to
reports is a `Value`, a frozen msgspec Struct whose fields are its JSON fields. msgspec reads
a document typed, straight from its bytes (no dicts in between), refusing unknown fields,
and writes a value from its fields; nothing here knows a particular type.

A document that does not fit raises `SchemaError`, one line naming the place, the field and
what was found, in the reports' words:

    records[3] (id q7): correct must be boolean or null, got 'false'

Text that is not JSON (malformed, nested too deeply, holding NaN or Infinity) raises
`files.json_input`'s one-line `JSONDecodeError`, as a report's readers always said it.
"""

from __future__ import annotations

import json
import re
import typing
from collections.abc import Callable
from typing import Any, Self, TypeVar

import msgspec
import msgspec.inspect as types

from ..files import json_input

T = TypeVar("T")

#: a JSON number kept as it was written (an integer stays one), so that a report read and
#: written again (a merge, a baseline, a record from a worker) is the same bytes
Number = int | float


class SchemaError(ValueError):
    """Data that do not fit the report schema; the message is one line naming the field."""


class Value(msgspec.Struct, frozen=True, forbid_unknown_fields=True, gc=False):
    """A typed value of the report schema. Frozen; untracked by the garbage collector (a value
    holds no reference cycle, and a report holds tens of thousands of records)."""

    def to_json(self) -> dict[str, Any]:
        """This value as JSON reads back: dicts, lists, strings, numbers, booleans, None.
        Raises ValueError for NaN or an infinity, TypeError for what JSON cannot hold."""
        return json.loads(json.dumps(to_builtins(self), allow_nan=False))

    @classmethod
    def from_json(cls, data: Any, where: str = "") -> Self:
        """The value `data` (parsed JSON) holds; SchemaError when it does not fit."""
        return convert(data, cls, where or cls.__name__.lower())


def to_builtins(value: Any) -> Any:
    """`value` as plain Python (dicts, lists or tuples, strings, numbers), for a JSON encoder."""
    return msgspec.to_builtins(value)


def decode(document: str | bytes, kind: type[T], where: str = "") -> T:
    """The `kind` a JSON document holds. SchemaError when it does not fit; json_input's
    JSONDecodeError when it is not JSON (or holds NaN, or is nested too deeply)."""
    try:
        return msgspec.json.decode(document, type=kind)
    except msgspec.ValidationError as exc:
        raise SchemaError(explain(exc, kind, lambda: json_input.loads(document), where)) from None
    except (msgspec.DecodeError, RecursionError):
        # JSON msgspec does not take: the standard library's reader says why in one line,
        # or reads it (a lone surrogate's escape, which a model's answer may hold)
        return convert(json_input.loads(document), kind, where)


def convert(data: Any, kind: type[T], where: str = "") -> T:
    """The `kind` that parsed JSON holds; SchemaError when it does not fit."""
    try:
        return msgspec.convert(data, kind)
    except msgspec.ValidationError as exc:
        raise SchemaError(explain(exc, kind, lambda: data, where)) from None
    except RecursionError:
        raise SchemaError(f"{where or 'value'}: nested too deeply to read") from None


# msgspec's messages: "Expected `int | null`, got `str` - at `$.records[0].n`" and the like
_AT = re.compile(r"^(?P<message>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.DOTALL)
_STEP = re.compile(r"\.(\w+)|\[(\d+)\]|\[\.\.\.\]")
_EXPECTED = re.compile(r"^Expected `(?P<kind>[^`]+)`(?P<rest>.*?)(?:, got `(?P<got>[^`]+)`)?$")
_FIELD = re.compile(r"^Object (?P<what>missing required|contains unknown) field `(?P<name>[^`]+)`$")
_ENUM = re.compile(r"^Invalid enum value (?P<value>.+)$")
_KINDS = {
    "str": "string",
    "bool": "boolean",
    "int": "integer",
    "float": "a number",
    "null": "null",
    "object": "an object",
    "array": "a list",
}
_WILDCARD = object()


def explain(exc: msgspec.ValidationError, kind: type, data: Callable[[], Any], where: str = "") -> str:
    """msgspec's message as one line in the reports' words, naming the place in `data` (called
    for the document, to show the value found and an item's id)."""
    found = _AT.match(str(exc))
    assert found is not None  # the pattern matches any text
    message, path = found["message"], found["path"] or ""
    steps: list[Any] = [
        step.group(1) or (int(step.group(2)) if step.group(2) else _WILDCARD) for step in _STEP.finditer(path)
    ]
    try:
        document = data()
    except ValueError:
        document = None
    field = _FIELD.match(message)
    if field:
        said = "lacks" if field["what"] == "missing required" else "unknown field"
        place = _place(where, steps, document)
        return f"{place}: {said} {field['name']!r}" if place else f"{said} {field['name']!r}"
    leaf = steps.pop() if steps and isinstance(steps[-1], str) else None
    place = _place(where, steps, document)
    subject = f"{place}: {leaf}" if leaf else place
    value = _value_at(document, [*steps, leaf] if leaf else steps)
    enum = _ENUM.match(message)
    if enum:
        choices = _literal_values(kind, [*steps, leaf] if leaf else steps)
        return f"{subject} {enum['value']} is not one of {', '.join(map(str, choices))}"
    expected = _EXPECTED.match(message)
    if expected is None:
        return f"{place}: {message}" if place else message
    kinds = expected["kind"].replace("int | float", "float").split(" | ")
    wanted = " or ".join(_KINDS.get(k, k) for k in kinds)
    if expected["rest"] == " >= 0":
        wanted = "a count"
    elif expected["rest"]:
        wanted += expected["rest"].replace("of length", "of")
    got = repr(value)[:60] if value is not _WILDCARD else expected["got"] or "?"
    if wanted.startswith("an object"):  # an object's place: its fields are what one looks for
        return f"{subject}: expected {wanted}, got {_KINDS.get(expected['got'] or '', got).removeprefix('a ')}"
    if steps and steps[-1] is _WILDCARD and leaf is None:  # a value of a mapping
        return f"{place.removesuffix('[…]')} must map names to {wanted.removeprefix('a ')}s"
    return f"{subject} must be {wanted}, got {got}"


def _place(where: str, steps: list[Any], document: Any) -> str:
    """'records[3] (id q7): context_fill' for the steps ['records', 3, 'context_fill']."""
    text = where
    value = document
    for step in steps:
        if isinstance(step, str):
            text = f"{text}: {step}" if text else step
        elif step is _WILDCARD:
            text += "[…]"
        else:
            text += f"[{step}]"
        value = _step(value, step)
        if isinstance(step, int) and isinstance(value, dict) and isinstance(value.get("id"), str):
            text += f" (id {value['id']})"
    return text


def _step(value: Any, step: Any) -> Any:
    if isinstance(step, str) and isinstance(value, dict):
        return value.get(step, _WILDCARD)
    if isinstance(step, int) and isinstance(value, list) and step < len(value):
        return value[step]
    if step is _WILDCARD and isinstance(value, dict) and len(value) == 1:
        return next(iter(value.values()))
    return _WILDCARD


def _value_at(document: Any, steps: list[Any]) -> Any:
    value = document
    for step in steps:
        value = _step(value, step)
    return value


def _literal_values(kind: type, steps: list[Any]) -> tuple[Any, ...]:
    """The values the Literal field at `steps` of `kind` allows, in the order declared."""
    *inner, leaf = steps
    info: Any = types.type_info(kind)
    for step in inner:
        info = _inner(info)
        if isinstance(info, types.StructType) and isinstance(step, str):
            info = next(f.type for f in info.fields if f.encode_name == step)
        elif isinstance(info, (types.ListType, types.VarTupleType)):
            info = info.item_type
        elif isinstance(info, types.DictType):
            info = info.value_type
    info = _inner(info)
    if not isinstance(info, types.StructType) or not isinstance(leaf, str):
        return ()
    declared = typing.get_type_hints(info.cls).get(leaf)
    return tuple(arg for arg in typing.get_args(declared) if arg is not None)


def _inner(info: Any) -> Any:
    """A union's one type that is not None (`Subset | None` -> Subset)."""
    if isinstance(info, types.UnionType):
        others = [t for t in info.types if not isinstance(t, types.NoneType)]
        return others[0] if len(others) == 1 else info
    return info
