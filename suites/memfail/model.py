"""What a generator produces: the sessions of one dataset's shared store and its graded questions.

Every graded question names the facts it needs. A fact is one or more pieces (a Hard
conditional rule is three sentences); each piece is identified in a memory by its anchor
spans and is intact when its critical spans survive too. That is all the staged
attribution needs: storage = an anchor in the dump, summary = an intact copy in the dump,
retrieval = an intact copy in the top-k.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: the generator seed of the paper's release (B.1), used when --memeval-seed is not given
DEFAULT_SEED = 42


@dataclass(frozen=True)
class Piece:
    """One sentence of a required fact, as the judge recognises it in a memory."""

    text: str
    anchor: tuple[str, ...]
    critical: tuple[str, ...] = ()
    #: knowledge update: spans of the outdated statement this piece replaces
    stale: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "anchor": list(self.anchor),
            "critical": list(self.critical),
            "stale": list(self.stale),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Piece:
        return cls(data["text"], tuple(data["anchor"]), tuple(data["critical"]), tuple(data.get("stale", ())))


@dataclass(frozen=True)
class Fact:
    """A memory a graded question needs, e.g. one preference or one hop of a chain."""

    label: str
    pieces: tuple[Piece, ...]

    @property
    def text(self) -> str:
        return " ".join(piece.text for piece in self.pieces)

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "pieces": [p.to_json() for p in self.pieces]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Fact:
        return cls(data["label"], tuple(Piece.from_json(p) for p in data["pieces"]))


@dataclass(frozen=True)
class Question:
    """One graded question of a dataset, with everything the judge needs to grade it."""

    row: int
    #: "017" or, for Persona-Retrieval, "017-q2"
    key: str
    text: str
    gold: Any
    facts: tuple[Fact, ...]
    strata: Mapping[str, str]
    marks: tuple[str, ...]
    answer_space: tuple[str, ...] = ()
    #: the row the question belongs to (an essay's three questions share it)
    cluster_key: str = ""
    #: private grading details (e.g. the stale values an update answer must not name)
    grading: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class DatasetBuild:
    """A dataset's store (sessions of messages, in ingestion order) and its questions."""

    sessions: tuple[tuple[str, ...], ...]
    questions: tuple[Question, ...]


def stream(seed: int, dataset: str, part: str | int) -> random.Random:
    """An independent random stream per (seed, dataset, row or pool).

    String seeds are hashed with SHA-512 by `random`, so streams are the same in every
    process whatever PYTHONHASHSEED is.
    """
    return random.Random(f"memfail/{seed}/{dataset}/{part}")


def shuffled(rng: random.Random, values: Sequence[Any]) -> list[Any]:
    out = list(values)
    rng.shuffle(out)
    return out


def spread(index: int, share: float) -> bool:
    """True for round(n * share) of the first n indices, evenly spread (a Bresenham layout),
    so every prefix of a dataset keeps the paper's yes/no balance."""
    return int((index + 1) * share + 1e-9) > int(index * share + 1e-9)
