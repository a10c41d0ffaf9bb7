"""The offline reader for Conditional-Facts: is the situation the rule's condition?

From the question it takes the entity, the behaviour and the situation; from the retrieved
memories, the rule about that entity's behaviour:
- a sentence with the behaviour and a condition states a conditional rule (Easy);
- a sentence with the behaviour, a link sentence ("that is exactly when ...") and a
  condition sentence about the same entity compose one (Hard);
- the behaviour alone is an unconditional habit: yes, whatever the situation (the answer a
  summary that dropped the condition leads to).
Without any memory of the behaviour it does not know.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from pytest_memeval.types import Answer

from .condition_data import TYPES
from .conditional_data import CHARACTERS, LINK_SPANS, PEOPLE, PERSON_BEHAVIORS, PET_BEHAVIORS, PETS
from .conditions import Condition, conditions_in, holds, situations_in
from .phrases import PRONOUNS, Person, render
from .text import contains, gerund, normalize, sentences, third_person


@lru_cache(maxsize=1)
def _names() -> tuple[str, ...]:
    names = {n for n, _ in PEOPLE} | {n for n, _ in CHARACTERS} | {n for n, _, _ in PETS}
    return tuple(sorted(names, key=len, reverse=True))


@lru_cache(maxsize=1)
def _behaviors() -> tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]:
    """(template, base forms, every written form) for each known behaviour, longest first."""
    out = []
    for template in PERSON_BEHAVIORS + PET_BEHAVIORS:
        bases = tuple(dict.fromkeys(render(template, Person("x", p)) for p in PRONOUNS))
        forms = tuple(dict.fromkeys(f for b in bases for f in (b, third_person(b), gerund(b))))
        out.append((template, bases, forms))
    return tuple(sorted(out, key=lambda entry: -len(entry[1][0])))


def read(question: str, memories: Sequence[str]) -> Answer:
    asked = normalize(question)
    entity = next((n for n in _names() if contains(asked, n)), None)
    behavior = next((entry for entry in _behaviors() if any(contains(asked, b) for b in entry[1])), None)
    if entity is None or behavior is None:
        return _unknown("the question names no known entity and behaviour", {})
    about = [normalize(s) for text in memories for s in sentences(text) if contains(normalize(s), entity)]
    with_behavior = [s for s in about if any(contains(s, form) for form in behavior[2])]
    detail: dict[str, Any] = {"entity": entity}
    stated = [c for s in with_behavior for c in conditions_in(s, TYPES)]
    if stated:
        condition, detail["rule"] = stated[0], "stated"
    elif with_behavior:
        if not any(contains(s, span) for s in about for span in LINK_SPANS):
            return Answer("yes", detail={**detail, "rule": "unconditional"})
        composed = [c for s in about for c in conditions_in(s, TYPES)]
        if not composed:
            return _unknown("the behaviour is linked to a condition no memory states", detail)
        condition, detail["rule"] = composed[0], "composed"
    else:
        return _unknown("no memory of the behaviour", detail)
    detail["condition"] = _describe(condition)
    situations = [s for s in situations_in(asked, TYPES) if s.type == condition.type]
    if not situations:
        return _unknown("the situation is not about the rule's condition", detail)
    met = holds(condition, situations[0], TYPES)
    if met is None:
        return _unknown("the situation cannot be compared with the condition", detail)
    return Answer("yes" if met else "no", detail=detail)


def _describe(condition: Condition) -> str:
    value = condition.value if condition.value is not None else f"threshold {condition.threshold}"
    return f"{condition.type}: {value}"


def _unknown(why: str, detail: dict[str, Any]) -> Answer:
    return Answer("unknown", abstained=True, detail={**detail, "unknown": why})
