"""Offline readers whose answer is a list: Coexisting-Facts and Knowledge-Update.

Coexisting: the question's category decides which preferences count; every preference of
that category a retrieved memory states is listed.

Knowledge-Update: each retrieved statement about the subject's attribute either asserts a
value, adds one, ends one ("gave up the cello and switched to the piano") or makes one the
only value ("the piano is the only instrument ..."). The answer is what remains, which does
not depend on the order the memories come in.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pytest_memeval.types import Answer

from .coexisting_data import CATEGORIES, Category
from .names import FIRST_NAMES, RELATIONS
from .phrases import pattern
from .text import contains, normalize, sentences
from .update_data import ATTRIBUTES, Attribute


def read_coexisting(question: str, memories: Sequence[str]) -> Answer:
    asked = normalize(question)
    category = _category(asked)
    if category is None:
        return Answer("", abstained=True, detail={"unknown": "the question names no known category"})
    texts = [normalize(m) for m in memories]
    found = [item for item in category.items if any(contains(t, item) for t in texts)]
    detail = {"category": category.name, "found": len(found)}
    if not found:
        return Answer(
            "", abstained=True, detail={**detail, "unknown": "no retrieved memory names a preference of this category"}
        )
    return Answer(", ".join(found), detail=detail)


def _category(asked: str) -> Category | None:
    matches = [c for c in CATEGORIES if contains(asked, c.noun)]
    return max(matches, key=lambda c: len(c.noun), default=None)


def read_update(question: str, memories: Sequence[str]) -> Answer:
    asked = normalize(question)
    name = next((n for n, _ in sorted(FIRST_NAMES, key=lambda p: -len(p[0])) if contains(asked, n)), None)
    relation = next((r for r in sorted(RELATIONS, key=len, reverse=True) if contains(asked, r)), None)
    attribute = (
        next(
            (a for a in ATTRIBUTES if any(pattern(q, _subject(relation, name)).search(asked) for q in a.questions)),
            None,
        )
        if name and relation
        else None
    )
    if attribute is None or name is None or relation is None:
        return Answer("", abstained=True, detail={"unknown": "the question names no known subject and attribute"})
    subject = _subject(relation, name)
    current: set[str] = set()
    ended: set[str] = set()
    only: set[str] = set()
    for text in memories:
        for sentence in sentences(text):
            said = normalize(sentence)
            if contains(said, name):
                _apply(attribute, subject, said, current, ended, only)
    values = (
        [v for v in attribute.values if v in only] if only else [v for v in attribute.values if v in current - ended]
    )
    detail = {"attribute": attribute.name, "values": len(values)}
    if not values:
        return Answer("", abstained=True, detail={**detail, "unknown": "no retrieved memory states the attribute"})
    return Answer(", ".join(values), detail=detail)


def _subject(relation: str | None, name: str | None) -> tuple[tuple[str, str], ...]:
    return (("S", re.escape(normalize(f"{relation} {name}").strip())),)


def _values(attribute: Attribute, group: str) -> str:
    options = "|".join(re.escape(normalize(v).strip()) for v in sorted(attribute.values, key=len, reverse=True))
    return f"(?P<{group}>{options})"


def _apply(
    attribute: Attribute,
    subject: tuple[tuple[str, str], ...],
    said: str,
    current: set[str],
    ended: set[str],
    only: set[str],
) -> None:
    """Every value a sentence names is current, unless an "it is over" phrase names it
    ("gave up the cello") or an "only" phrase makes the sentence's value the only one.
    Reading phrases rather than whole sentences keeps a shortened statement readable."""
    named = [v for v in attribute.values if contains(said, v)]
    if not named:
        return
    overrides = subject + (("old", _values(attribute, "old")),)
    finished = set()
    for _, cue in attribute.overwrites:
        if "{old}" in cue:
            for match in pattern(cue, overrides).finditer(said.replace(" an ", " a ")):
                finished.add(_original(attribute, match.group("old")))
        elif contains(said, cue):
            only.update(v for v in named if v not in finished)
    ended.update(finished)
    current.update(v for v in named if v not in finished)


def _original(attribute: Attribute, normalized: str) -> str:
    return next(v for v in attribute.values if normalize(v).strip() == normalized)
