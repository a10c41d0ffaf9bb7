"""Reading text for behaviour: which principle, pole and behaviour a passage shows.

Used by the offline reader (on the context it is served) and by the offline judge (on a
response). Only the public lexicon is used: a phrase of the lexicon in a text is a vote
for what it names. Texts are split into units (lines, paragraphs, memories); in a unit

- a behaviour phrase is a vote for (principle, pole, behaviour), a value or direction
  phrase a vote for (principle, pole);
- on an anchor line ("A3. ...") a value phrase counts `ANCHOR_WEIGHT` and gives the
  principle's rank; a "Directive: expect them to ..." behaviour counts `DIRECTIVE_WEIGHT`;
- "<domain> over <domain>" and "When <domain> and <domain> pull against each other,
  <domain> wins" record a priority, as does a story ("I chose to ...") that acts on one
  principle while another one's cue words show it was at stake too.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from .lexicon import AXES

ANCHOR_WEIGHT = 3.0
DIRECTIVE_WEIGHT = 3.0

#: (axis, pole, variant); variant -1 for a pole's value or direction without a behaviour
Key = tuple[int, int, int]


@dataclass
class Evidence:
    #: weighted votes: the counts are floats (Counter allows any number; typeshed says int)
    votes: Counter[Key] = field(default_factory=Counter)
    #: rank of a principle's anchor (1 = first); the best seen when several are
    ranks: dict[int, int] = field(default_factory=dict)
    #: (winner, loser) -> times recorded
    wins: Counter[tuple[int, int]] = field(default_factory=Counter)

    def merge(self, other: Evidence) -> None:
        self.votes.update(other.votes)
        self.wins.update(other.wins)
        for axis, rank in other.ranks.items():
            self.ranks[axis] = min(rank, self.ranks.get(axis, rank))

    def pole_score(self, axis: int, pole: int) -> float:
        return sum(w for (a, p, _), w in self.votes.items() if a == axis and p == pole)

    def weight(self, axis: int) -> float:
        return self.pole_score(axis, 0) + self.pole_score(axis, 1)

    def behaviours(self, axis: int, pole: int) -> Counter[int]:
        return Counter({v: w for (a, p, v), w in self.votes.items() if a == axis and p == pole and v >= 0})


def normalize(text: str) -> str:
    text = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    return re.sub(r"\s+", " ", text).strip()


def _phrases() -> dict[str, Key]:
    table: dict[str, Key] = {}
    for a, axis in enumerate(AXES):
        for p, pole in enumerate(axis.poles):
            table[normalize(pole.value)] = (a, p, -1)
            table[normalize(pole.generic)] = (a, p, -1)
            for v, variant in enumerate(pole.variants):
                table[normalize(variant)] = (a, p, v)
    return table


PHRASES: dict[str, Key] = _phrases()
_PHRASE = re.compile(r"\b(" + "|".join(re.escape(p) for p in sorted(PHRASES, key=len, reverse=True)) + r")\b")
_DOMAINS = {normalize(axis.domain): a for a, axis in enumerate(AXES)}
_DOMAIN = "(" + "|".join(re.escape(d) for d in sorted(_DOMAINS, key=len, reverse=True)) + ")"
_OVER = re.compile(rf"\b{_DOMAIN} over {_DOMAIN}\b")
_PULL = re.compile(rf"when {_DOMAIN} and {_DOMAIN} pull against each other, {_DOMAIN} wins")
_ANCHOR = re.compile(r"^a(\d+)\. ")
_DIRECTIVE = "directive: expect them to "
_STORY = "i chose to "
_CUES = [
    (a, re.compile(r"\b(" + "|".join(re.escape(normalize(c)) for c in axis.cues) + r")\b"))
    for a, axis in enumerate(AXES)
]


def phrase_matches(text: str) -> list[tuple[int, str, Key]]:
    """Every lexicon phrase in `text` (normalised) with its position, leftmost first."""
    return [(m.start(), m.group(1), PHRASES[m.group(1)]) for m in _PHRASE.finditer(normalize(text))]


def cue_axes(text: str) -> list[int]:
    """Principles whose cue words occur in `text`, most cues first (ties by axis order)."""
    normal = normalize(text)
    counts = [(len(pattern.findall(normal)), a) for a, pattern in _CUES]
    return [a for n, a in sorted(counts, key=lambda c: (-c[0], c[1])) if n]


def units(text: str) -> list[str]:
    return [u for u in (normalize(line) for line in text.splitlines()) if u]


@lru_cache(maxsize=256)
def read(text: str) -> Evidence:
    """The evidence in one document (cached: the same specification serves many items)."""
    evidence = Evidence()
    for unit in units(text):
        evidence.merge(_read_unit(unit))
    return evidence


def read_all(texts: Iterable[str]) -> Evidence:
    evidence = Evidence()
    for text in texts:
        evidence.merge(read(text))
    return evidence


def _read_unit(unit: str) -> Evidence:
    evidence = Evidence()
    anchor = _ANCHOR.match(unit)
    acted: set[int] = set()
    for start, phrase, key in phrase_matches(unit):
        weight = 1.0
        if key[2] < 0 and anchor and normalize(AXES[key[0]].poles[key[1]].value) == phrase:
            weight = ANCHOR_WEIGHT
            rank = int(anchor.group(1))
            evidence.ranks[key[0]] = min(rank, evidence.ranks.get(key[0], rank))
        elif key[2] >= 0 and unit[:start].endswith(_DIRECTIVE):
            weight = DIRECTIVE_WEIGHT
        evidence.votes[key] += weight  # type: ignore[assignment]  # float weights, see Evidence.votes
        if key[2] >= 0 and unit[:start].endswith(_STORY):
            acted.add(key[0])
    for match in _OVER.finditer(unit):
        evidence.wins[(_DOMAINS[match.group(1)], _DOMAINS[match.group(2)])] += 1
    for match in _PULL.finditer(unit):
        first, second, winner = (_DOMAINS[g] for g in match.groups())
        evidence.wins[(winner, second if winner == first else first)] += 1
    for axis in acted:
        for other in cue_axes(unit):
            if other != axis:
                evidence.wins[(axis, other)] += 1
    return evidence
