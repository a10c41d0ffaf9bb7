"""Reading evidence back from text: what a memory returned, or what a probe states inline.

The parsers accept the suite's own wordings (render.py), case-insensitively and wherever
they occur in a memory (a memory may hold one message, a session or a summary). Indexed
observations ('Flip #17 was heads') and ratings (one per item) are counted once however
often they come back; identical texts ('The flip was: heads') cannot be told apart, so
each occurrence counts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

_LIST = r"(?:heads|tails)(?:,\s*(?:heads|tails))*"
_COIN = re.compile(
    rf"Flip #(?P<one_index>\d+) was (?P<one>heads|tails)"
    rf"|Flips #(?P<batch_first>\d+)-#\d+ were: (?P<batch>{_LIST})"
    rf"|The flip was: (?P<plain>heads|tails)"
    rf"|The next \d+ flips were: (?P<plain_batch>{_LIST})"
    rf"|Previous flips: \[(?P<inline>{_LIST})?\]"
    rf"|So far in this batch: (?P<pending>{_LIST})",
    re.IGNORECASE,
)
_TOTALS = re.compile(r"Total: (\d+) heads, (\d+) tails", re.IGNORECASE)
_RATING = re.compile(
    r"(?:The user rated |^- )(?P<label>[^\n]+?): (?P<rating>[1-5]) stars?\b", re.IGNORECASE | re.MULTILINE
)


@dataclass(frozen=True)
class Flip:
    heads: bool
    #: the 1-based position in the episode when the text says it, else None
    index: int | None = None


def coin_evidence(texts: Iterable[str]) -> list[Flip]:
    """Every flip the texts state, in reading order; an indexed flip counts once."""
    flips: list[Flip] = []
    seen: set[int] = set()
    for text in texts:
        for match in _COIN.finditer(text):
            for flip in _flips(match):
                if flip.index is not None:
                    if flip.index in seen:
                        continue
                    seen.add(flip.index)
                flips.append(flip)
    return flips


def chronological(flips: list[Flip]) -> list[Flip]:
    """Indexed flips in episode order; without indices, reading order is all there is."""
    if flips and all(f.index is not None for f in flips):
        return sorted(flips, key=lambda f: f.index or 0)
    return flips


def coin_totals(text: str) -> tuple[int, int] | None:
    """(heads, flips) from a 'Total: 3 heads, 2 tails.' line, if the text has one."""
    match = _TOTALS.search(text)
    if match is None:
        return None
    heads, tails = int(match[1]), int(match[2])
    return heads, heads + tails


def _flips(match: re.Match[str]) -> list[Flip]:
    if match["one"]:
        return [Flip(match["one"].lower() == "heads", int(match["one_index"]))]
    if match["batch"]:
        first = int(match["batch_first"])
        return [Flip(word == "heads", first + i) for i, word in enumerate(_words(match["batch"]))]
    for name in ("plain", "plain_batch", "inline", "pending"):
        if match[name]:
            return [Flip(word == "heads") for word in _words(match[name])]
    return []


def _words(listing: str) -> list[str]:
    return [w.strip().lower() for w in listing.split(",")]


def rating_evidence(texts: Iterable[str], items_by_label: Mapping[str, int]) -> list[tuple[int, int]]:
    """(item, rating) pairs the texts state, one per item (the first seen), in reading order.

    Labels the catalogue does not know (a memory that rewrote them) are not evidence.
    """
    ratings: dict[int, int] = {}
    for text in texts:
        for match in _RATING.finditer(text):
            item = items_by_label.get(match["label"].strip().lower())
            if item is not None and item not in ratings:
                ratings[item] = int(match["rating"])
    return list(ratings.items())
