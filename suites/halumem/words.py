"""The words the offline reader and the offline judge compare: lower-case, without the
function words and without the user's name (every memory of a user names the user)."""

from __future__ import annotations

import re

STOPWORDS = frozenset(
    "a an and are as at be by did do does for from has have i in is it its me my no of on or "
    "our so that the their them they this to was what which who with you your".split()
)
_WORD = re.compile(r"[a-z0-9]+")


def words(text: str, name: str = "") -> frozenset[str]:
    skip = STOPWORDS | set(_WORD.findall(name.lower()))
    return frozenset(w for w in _WORD.findall(text.lower()) if len(w) > 1 and w not in skip)


def coverage(needed: str, text: str, name: str = "") -> float:
    """The share of `needed`'s words that `text` has (1.0 when `needed` has none)."""
    wanted = words(needed, name)
    return len(wanted & words(text, name)) / len(wanted) if wanted else 1.0
