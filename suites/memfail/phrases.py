"""Phrase templates: rendering them for an entity, and matching them back in normalised text.

Placeholders: {E} the entity's name, {pr}/{Pr} subject pronoun, {pos}/{Pos} possessive,
{obj} object pronoun, {refl} reflexive, {n} and {m} numbers (negative numbers are written
"minus 5", so that matching on normalised text keeps their sign).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from .text import normalize

PRONOUNS: Mapping[str, Mapping[str, str]] = {
    "he": {"pr": "he", "pos": "his", "obj": "him", "refl": "himself"},
    "she": {"pr": "she", "pos": "her", "obj": "her", "refl": "herself"},
}

_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_FRAGMENTS = {
    "E": r"(?:[a-z]+(?: [a-z]+){0,2}?)",
    "pr": r"(?:he|she|it|they)",
    "Pr": r"(?:he|she|it|they)",
    "pos": r"(?:his|her|its|their)",
    "Pos": r"(?:his|her|its|their)",
    "obj": r"(?:him|her|it|them)",
    "refl": r"(?:himself|herself|itself|themselves)",
    "n": r"(?P<n>(?:minus )?\d+)",
    "m": r"(?P<m>(?:minus )?\d+)",
}


@dataclass(frozen=True)
class Person:
    """Who a sentence is about: a name and a pronoun set."""

    name: str
    pronoun: str = "she"

    def slots(self, **extra: object) -> dict[str, str]:
        forms = PRONOUNS[self.pronoun]
        values = {
            "E": self.name,
            "pr": forms["pr"],
            "Pr": forms["pr"].capitalize(),
            "pos": forms["pos"],
            "Pos": forms["pos"].capitalize(),
            "obj": forms["obj"],
            "refl": forms["refl"],
        }
        values.update({k: number_text(v) if isinstance(v, int) else str(v) for k, v in extra.items()})
        return values


def number_text(value: int) -> str:
    return f"minus {-value}" if value < 0 else str(value)


def render(template: str, person: Person, **extra: object) -> str:
    return template.format_map(person.slots(**extra))


@lru_cache(maxsize=8192)
def pattern(template: str, overrides: tuple[tuple[str, str], ...] = ()) -> re.Pattern[str]:
    """A regex that finds `template`, rendered for anyone, in `normalize`d text.

    `overrides` maps placeholders to regex fragments of their own (e.g. a value list).
    """
    fragments = {**_FRAGMENTS, **dict(overrides)}
    parts: list[str] = []
    position = 0
    for match in _PLACEHOLDER.finditer(template):
        literal = normalize(template[position : match.start()]).strip()
        if literal:
            parts.append(re.escape(literal))
        parts.append(fragments[match.group(1)])
        position = match.end()
    literal = normalize(template[position:]).strip()
    if literal:
        parts.append(re.escape(literal))
    return re.compile(r"(?<![a-z0-9])" + " ".join(parts) + r"(?![a-z0-9])")


def find_number(template: str, normalized_text: str, group: str) -> int | None:
    """The number a numeric template carries in `normalized_text`, or None when absent."""
    match = pattern(template).search(normalized_text)
    if match is None:
        return None
    raw = match.group(group)
    return -int(raw.removeprefix("minus ")) if raw.startswith("minus ") else int(raw)


def matches(template: str, normalized_text: str) -> bool:
    return pattern(template).search(normalized_text) is not None
