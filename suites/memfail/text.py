"""Small text utilities shared by the generators, the reader and the judge.

`normalize` is the one matching rule of the suite: lower case, every run of non-alphanumeric
characters a single space, padded with spaces so that `contains` matches whole words only
("cat" is not found in "concatenate").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

_NON_WORD = re.compile(r"[^0-9a-z]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'A-Z0-9])")

#: first words of verb phrases whose final consonant doubles before -ing
_DOUBLING = frozenset(
    "hum sip jog plan tap hug stop chat drum knit trim wrap swap shop grab scrub pat dip nap "
    "jot skip spin dab mop sit run swim get put cut set bat clap strum plug rub tug".split()
)
_IRREGULAR_THIRD = {"have": "has", "be": "is", "do": "does", "go": "goes"}


@lru_cache(maxsize=65536)
def normalize(text: str) -> str:
    return " " + _NON_WORD.sub(" ", text.lower()).strip() + " "


def contains(haystack_normalized: str, span: str) -> bool:
    """Whether `span` occurs as whole words in an already `normalize`d text."""
    needle = normalize(span)
    return needle != "  " and needle in haystack_normalized


def contains_all(haystack_normalized: str, spans: Iterable[str]) -> bool:
    return all(contains(haystack_normalized, span) for span in spans)


def sentences(text: str) -> list[str]:
    """Split prose into sentences at ., ! or ? followed by a capital or a digit."""
    return [part.strip() for part in _SENTENCE_END.split(text.strip()) if part.strip()]


def third_person(phrase: str) -> str:
    """'call my mom' -> 'calls my mom' (only the first word is inflected)."""
    verb, _, rest = phrase.partition(" ")
    if verb in _IRREGULAR_THIRD:
        inflected = _IRREGULAR_THIRD[verb]
    elif verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        inflected = verb + "es"
    elif verb.endswith("y") and len(verb) > 1 and verb[-2] not in "aeiou":
        inflected = verb[:-1] + "ies"
    else:
        inflected = verb + "s"
    return f"{inflected} {rest}".strip()


def gerund(phrase: str) -> str:
    """'take scenic photos' -> 'taking scenic photos'."""
    verb, _, rest = phrase.partition(" ")
    if verb == "be":
        inflected = "being"
    elif verb.endswith("ie"):
        inflected = verb[:-2] + "ying"
    elif verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")) and len(verb) > 2:
        inflected = verb[:-1] + "ing"
    elif verb in _DOUBLING:
        inflected = verb + verb[-1] + "ing"
    else:
        inflected = verb + "ing"
    return f"{inflected} {rest}".strip()


def capitalize(text: str) -> str:
    return text[:1].upper() + text[1:]


_A_BEFORE_WORD = re.compile(r"\b([Aa]) (\w+)")
#: vowel-initial words that still take "a"
_CONSONANT_SOUND = ("one", "uni", "use", "usu", "uku", "eu")


def fix_articles(text: str) -> str:
    """'a architecture course' -> 'an architecture course' ('a one-eyed cat' stays)."""

    def article(match: re.Match[str]) -> str:
        word = match.group(2)
        vowel = word[0].lower() in "aeiou" and not word.lower().startswith(_CONSONANT_SOUND)
        return f"{match.group(1)}{'n' if vowel else ''} {word}"

    return _A_BEFORE_WORD.sub(article, text)
