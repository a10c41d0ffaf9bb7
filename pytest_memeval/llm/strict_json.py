"""Reading a model's reply as exactly one JSON object with exactly the expected keys.

Prompts ask for strict JSON, and nothing else is accepted: prose around the object,
markdown fences, an array, a duplicate key, a missing or an extra key are all invalid
output, recorded with the raw text and never coerced into an answer or a score.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import replace
from typing import Any

from ..types import Answer


class InvalidOutput(ValueError):
    """A reply that does not have the required form; the message is the reason."""


def cut_off(answer: Answer, truncated: bool) -> Answer:
    """An invalid answer whose output was cut at max_tokens says so in its reason."""
    if answer.valid or not truncated:
        return answer
    reason = f"output cut at max_tokens ({answer.detail['invalid']})"
    return replace(answer, label=None, detail=dict(answer.detail, invalid=reason))


def read_object(text: str | None, keys: Collection[str]) -> dict[str, Any]:
    raw = (text or "").strip()
    if not raw:
        raise InvalidOutput("empty output")
    try:
        data = json.loads(raw, object_pairs_hook=_unique_keys)
    except InvalidOutput:
        raise
    except ValueError:
        raise InvalidOutput("not a JSON document") from None
    if not isinstance(data, dict):
        raise InvalidOutput(f"JSON {type(data).__name__}, expected an object")
    missing, extra = sorted(set(keys) - data.keys()), sorted(data.keys() - set(keys))
    if missing or extra:
        raise InvalidOutput(f"keys: missing {missing}, unexpected {extra}")
    return data


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise InvalidOutput(f"duplicate key {key!r}")
        out[key] = value
    return out
