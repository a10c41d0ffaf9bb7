"""JSON from a file a user gave (a journal, a report, a released data file): every problem
is a `json.JSONDecodeError` of one line with its place in the text, never a RecursionError.

The standard library's decoder recurses once per level of nesting, so a text of 200,000 `[`
raises RecursionError, which nothing expects (pytest reports an INTERNALERROR). And JSON has
no NaN or Infinity, yet Python's decoder takes them: a NaN read into a record's score fails
the report written at the end of the run. `loads` and `raw_decode` raise `UnreadableJSON`
for both, naming the place; `constants=True` keeps NaN and Infinity for a released data
file written by another tool, whose reader checks each number it uses.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

#: a JSON string (skipped), or one of the constants Python's decoder takes beyond JSON
_STRING_OR_CONSTANT: Final = re.compile(r'"(?:[^"\\]|\\.)*"|(NaN|-?Infinity)')
_STRING_OR_BRACKET: Final = re.compile(r'"(?:[^"\\]|\\.)*"|([\[{])|([\]}])')


class UnreadableJSON(json.JSONDecodeError):
    """Well-formed as far as it was read, but not to be read: nested too deeply, or holding
    NaN or Infinity."""


class _Constant(ValueError):
    pass


def _refuse(name: str) -> Any:
    raise _Constant(name)


_STRICT: Final = json.JSONDecoder(parse_constant=_refuse)
_LENIENT: Final = json.JSONDecoder()


def loads(document: str | bytes, *, constants: bool = False) -> Any:
    """The JSON value of `document` (bytes in UTF-8, -16 or -32, as `json.loads` takes them)."""
    text = document.decode(json.detect_encoding(document), "surrogatepass") if isinstance(document, bytes) else document
    decoder = _LENIENT if constants else _STRICT
    try:
        return decoder.decode(text)
    except RecursionError:
        raise _too_deep(text) from None
    except _Constant as exc:
        raise _constant(text, str(exc)) from None


def raw_decode(text: str, start: int = 0, *, constants: bool = False) -> tuple[Any, int]:
    """The JSON value beginning at `start` in `text`, and where it ends (`JSONDecoder.raw_decode`)."""
    decoder = _LENIENT if constants else _STRICT
    try:
        return decoder.raw_decode(text, start)
    except RecursionError:
        raise _too_deep(text, start) from None
    except _Constant as exc:
        raise _constant(text, str(exc), start) from None


def _too_deep(text: str, start: int = 0) -> UnreadableJSON:
    """Where the text first reaches its deepest nesting."""
    depth = deepest = place = 0
    for match in _STRING_OR_BRACKET.finditer(text, start):
        if match.group(1):
            depth += 1
            if depth > deepest:
                deepest, place = depth, match.start()
        elif match.group(2):
            depth -= 1
    return UnreadableJSON(f"nested {deepest:,} levels deep, too deep to read", text, place)


def _constant(text: str, name: str, start: int = 0) -> UnreadableJSON:
    found = next((m for m in _STRING_OR_CONSTANT.finditer(text, start) if m.group(1)), None)
    return UnreadableJSON(f"{name} is not a number JSON allows", text, found.start() if found else start)
