"""A synthetic subject's latent principles and how they turn into one decision.

Per principle (axis of `lexicon.AXES`) a subject holds a pole, a signature behaviour of
that pole, and a strength. When several principles are at stake the strongest decides.
Decisions follow the principles with noise: an exception goes against the subject's own
pole (less often on a strong principle), and one decision in four uses another behaviour
of the right pole. `conventionality` is how often the subject holds the common pole and
the common behaviour, which is what a reader without context can guess; it spreads the
no-context baseline across subjects the way pretraining coverage spreads it in the paper.

Everything is drawn from streams named by (seed, subject index), so one subject
generates alone exactly as it does in a full run.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from .lexicon import AXES

#: probability that a decision uses the subject's signature behaviour of the chosen pole
SIGNATURE_SHARE = 0.75


@dataclass(frozen=True)
class Principles:
    poles: tuple[int, ...]
    signatures: tuple[int, ...]
    strengths: tuple[float, ...]
    conventionality: float
    #: base rate of exceptions; scaled down for strong principles
    noise: float

    def exception_rate(self, axis: int) -> float:
        return self.noise * (1.5 - self.strengths[axis])


@dataclass(frozen=True)
class Action:
    axis: int
    pole: int
    variant: int


@dataclass(frozen=True)
class Decision:
    action: Action
    #: the decision went against the subject's own pole on the deciding principle
    exception: bool


def stream(seed: int, index: int, name: str) -> random.Random:
    """An independent, reproducible random stream (str seeds hash the same in every process)."""
    return random.Random(f"behavior:{seed}:{index}:{name}")


def principles(seed: int, index: int) -> Principles:
    rng = stream(seed, index, "principles")
    conventionality = rng.uniform(0.25, 0.85)
    noise = rng.uniform(0.04, 0.16)
    poles, signatures, strengths = [], [], []
    for _ in AXES:
        poles.append(0 if rng.random() < conventionality else 1)
        signatures.append(0 if rng.random() < conventionality else rng.choice((1, 2)))
        strengths.append(round(rng.random(), 6))
    return Principles(tuple(poles), tuple(signatures), tuple(strengths), round(conventionality, 6), round(noise, 6))


def decide(subject: Principles, at_stake: Sequence[int], rng: random.Random) -> Decision:
    """What the subject does when the principles `at_stake` apply (the strongest decides)."""
    axis = max(at_stake, key=lambda a: (subject.strengths[a], -a))
    exception = rng.random() < subject.exception_rate(axis)
    pole = subject.poles[axis] ^ int(exception)
    if exception:
        variant = rng.randrange(3)
    elif rng.random() < SIGNATURE_SHARE:
        variant = subject.signatures[axis]
    else:
        variant = rng.choice([v for v in range(3) if v != subject.signatures[axis]])
    return Decision(Action(axis, pole, variant), exception)
