"""A seeded corpus of (prediction, gold, category) cases for the official LoCoMo F1.

The cases lean on everything the official scorer does: commas inside and between
sub-answers (category 1), a ';' in the gold (category 3), integer golds, the two
category-5 phrases in any case and position, articles and "and" as words and inside
words, punctuation of every kind, words the Porter stemmer folds (runs/running, studies),
repeated words (a multiset, not a set), non-ASCII letters, digits, dates, empty and
whitespace-only answers, and
combining marks after a/an/the/and (where the `regex` module's word boundaries differ from `re`'s). `cases(seed, n)` is deterministic.
"""

from __future__ import annotations

import random
from typing import Any

WORDS = (
    "Caroline Melanie pottery class painting sunrise lake camping kids support group LGBTQ counseling "
    "psychology certification adoption agency running runs ran runner studies studied studying happily "
    "happiness connection connected connecting generously generous beach mountains hiking hiked Sweden "
    "Paris café naïve résumé Zürich São Paulo Ærø über guitar violin dog dogs puppy Biscuit Oliver "
    "Luna cat cats book books reading reader library bookshelf Seuss Charlotte's Web transgender "
    "woman women pride parade Monday Tuesday week month year yesterday last before after sunday friday "
    "concert festival marathon charity race awareness mental health friends family"
).split()
FILLER = ("a", "an", "the", "and", "A", "The", "AND", "An", "andes", "theater", "anthem", "banana", "ta")
#: combining marks after a filler word: a word boundary for `re`, none for `regex` (the scorer's)
MARKED = ("a\u0301", "an\u0301", "the\u0301", "and\u0301", "cafe\u0301", "nai\u0308ve")
PUNCTUATION = tuple("!\"#$%&'()*+-./:;<=>?@[\\]^_`{|}~") + ("’", "“", "”", "—", "…")
MONTHS = ("January", "February", "March", "May", "June", "July", "August", "October", "December")
PHRASES = ("No information available", "not mentioned", "Not Mentioned in the conversation", "NO INFORMATION AVAILABLE")


def _phrase(rng: random.Random, low: int = 1, high: int = 6) -> str:
    words: list[str] = []
    for _ in range(rng.randint(low, high)):
        roll = rng.random()
        if roll < 0.06:
            words.append(rng.choice(MARKED))
        elif roll < 0.15:
            words.append(rng.choice(FILLER))
        elif roll < 0.22:
            words.append(str(rng.choice((2022, 2023, 7, 19, 3.5, 100))))
        else:
            words.append(rng.choice(WORDS))
        if rng.random() < 0.12:
            words[-1] += rng.choice(PUNCTUATION)
        if rng.random() < 0.05:
            words[-1] = words[-1].upper()
    return " ".join(words)


def _date(rng: random.Random) -> str:
    day, month, year = rng.randint(1, 28), rng.choice(MONTHS), rng.choice((2022, 2023))
    return rng.choice(
        (
            f"{day} {month} {year}",
            f"{day} {month}, {year}",
            f"The week before {day} {month} {year}",
            f"the sunday before {day} {month} {year}",
            f"{month} {year}",
            str(year),
        )
    )


def _gold(rng: random.Random, category: int) -> Any:
    if category == 2:
        return rng.choice((2022, 2023)) if rng.random() < 0.1 else _date(rng)
    if category == 1:
        if rng.random() < 0.08:
            return rng.choice((2022, 3, 19))
        return ", ".join(_phrase(rng, 1, 3) for _ in range(rng.randint(1, 4)))
    if category == 3:
        head = rng.choice(("Likely yes", "Likely no", "Yes", "No", _phrase(rng, 1, 4)))
        return f"{head}; {_phrase(rng, 2, 8)}" if rng.random() < 0.6 else head
    return _phrase(rng, 1, 5)


def _prediction(rng: random.Random, category: int, gold: Any) -> str:
    roll = rng.random()
    text = str(gold)
    if roll < 0.05:
        return rng.choice(("", " ", ",", "the", "a, an, and", "\t\n"))
    if category == 5 and roll < 0.45:
        phrase = rng.choice(PHRASES)
        return rng.choice((phrase, f"{_phrase(rng)} {phrase}.", f"{phrase}, {_phrase(rng)}"))
    if roll < 0.3:
        return text
    if roll < 0.55:
        # the gold with words dropped, repeated or re-punctuated
        words = text.replace(";", " ; ").split()
        rng.shuffle(words)
        kept = [w for w in words if rng.random() < 0.7] + [rng.choice(words or ["x"])] * rng.randint(0, 2)
        return (", " if category == 1 and rng.random() < 0.5 else " ").join(kept)
    if roll < 0.75:
        return f"{rng.choice(('I think', 'Probably', 'She said', ''))} {text} {_phrase(rng, 0, 3)}".strip()
    if category == 1 and roll < 0.9:
        return ", ".join(_phrase(rng, 1, 3) for _ in range(rng.randint(1, 4)))
    return _phrase(rng, 1, 8)


def cases(seed: int = 2024, n: int = 2400) -> list[dict[str, Any]]:
    """`n` cases; every category, 5 included, the special ones (1, 3, 5) more often than the release has them."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        category = rng.choices((1, 2, 3, 4, 5), weights=(25, 20, 20, 20, 15))[0]
        gold = _gold(rng, category)
        out.append({"prediction": _prediction(rng, category, gold), "gold": gold, "category": category})
    return out
