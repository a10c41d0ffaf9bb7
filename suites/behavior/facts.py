"""The extract step: (subject, predicate, object) triples from the training half only.

A deterministic stand-in for the paper's constrained extraction (App. A): every episode
gives the decision it narrates (`decided`) and the value the decision expressed
(`values`); an episode where two principles were at stake also gives which one won
(`prioritizes`); biographical sentences give their own predicates. Identical triples are
stored once (the paper's NOOP on duplicates), so a value repeated over many episodes is
one fact while every decision is its own fact. Exceptions are extracted like any other
decision: the facts are raw material, noise included.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .episodes import training_half
from .lexicon import AXES
from .subjects import Action


@dataclass(frozen=True)
class Fact:
    predicate: str
    object: str
    #: the decision a `decided` fact records, or the pole a `values` fact names
    action: Action | None = None
    #: (winner, loser) axes of a `prioritizes` fact
    over: tuple[int, int] | None = None

    @property
    def text(self) -> str:
        return f"subject | {self.predicate} | {self.object}"


@lru_cache(maxsize=64)
def extract(seed: int, index: int) -> tuple[Fact, ...]:
    half = training_half(seed, index)
    facts: list[Fact] = []
    for episode in half.episodes:
        action = episode.action
        pole = AXES[action.axis].poles[action.pole]
        story = AXES[episode.situation.axis].training[episode.situation.index]
        facts.append(Fact("decided", f"to {pole.variants[action.variant]} (faced with {story})", action))
        facts.append(Fact("values", pole.value, Action(action.axis, action.pole, -1)))
        losers = [a for a in episode.situation.at_stake if a != action.axis]
        for loser in losers:
            facts.append(
                Fact("prioritizes", f"{AXES[action.axis].domain} over {AXES[loser].domain}", over=(action.axis, loser))
            )
    facts.extend(Fact(filler.predicate, filler.object) for filler in half.fillers)
    return tuple(dict.fromkeys(facts))


def facts_text(facts: tuple[Fact, ...]) -> str:
    return "\n".join(f.text for f in facts)
