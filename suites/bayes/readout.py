"""Option probabilities from an LLM, and cyclic counterbalancing (paper App. A, B.1.5, C.1.4).

Log-prob readout: at the answer position (the first generated token) the mass of each
option letter is summed over its variants "A", " A", "a", " a" and renormalised over the
option letters; under LOW_MASS on the letters the reading is uniform and flagged.
Verbalised readout (no log-probs from the endpoint; not paper-faithful): the model states
a JSON object {"A": p, ...}; anything else is a flagged uniform reading.

Counterbalancing: a K-option probe is asked K times; at rotation j position i holds
outcome (i + j) mod K. Averaging the per-outcome probabilities over the K rotations
cancels any additive position bias exactly (Prop. 1); the bias itself is reported as
delta_l = mean probability at position l - 1/K.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pytest_memeval.llm.calls import TokenLogprob
from pytest_memeval.llm.strict_json import InvalidOutput, read_object

LETTERS = "ABCDE"
LOW_MASS = 0.01


@dataclass(frozen=True)
class Reading:
    """One call: probability per option position (A, B, ...), summing to 1."""

    positions: tuple[float, ...]
    #: log-prob readout: the letters' share of the next-token mass
    mass: float | None = None
    #: why the reading fell back to uniform, if it did
    flagged: str | None = None


def uniform(k: int, reason: str, mass: float | None = None) -> Reading:
    return Reading(tuple([1.0 / k] * k), mass, reason)


def letter_reading(logprobs: Sequence[TokenLogprob], k: int) -> Reading:
    """Option-letter probabilities at the first generated token."""
    if not logprobs:
        return uniform(k, "no tokens")
    first = logprobs[0]
    candidates = dict(first.top)
    candidates.setdefault(first.token, first.logprob)
    masses = [0.0] * k
    for token, logprob in candidates.items():
        letter = token.strip().upper()
        if len(letter) == 1 and letter in LETTERS[:k] and token in _variants(letter):
            masses[LETTERS.index(letter)] += math.exp(logprob)
    total = sum(masses)
    if total < LOW_MASS:
        return uniform(k, f"letter mass {total:.4f} below {LOW_MASS}", total)
    return Reading(tuple(m / total for m in masses), total)


def verbalised_reading(content: str | None, k: int) -> Reading:
    """Probabilities stated as a JSON object with exactly the option letters as keys."""
    letters = list(LETTERS[:k])
    try:
        data = read_object(content, letters)
    except InvalidOutput as exc:
        return uniform(k, str(exc))
    values = [data[letter] for letter in letters]
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0 for v in values):
        return uniform(k, "probabilities must be non-negative numbers")
    total = float(sum(values))
    if total <= 0:
        return uniform(k, "probabilities sum to 0")
    return Reading(tuple(float(v) / total for v in values))


def to_outcomes(positions: Sequence[float], rotation: int) -> np.ndarray:
    """Position probabilities at `rotation` back in canonical outcome order."""
    k = len(positions)
    out = np.zeros(k)
    for i, p in enumerate(positions):
        out[(i + rotation) % k] = p
    return out


@dataclass(frozen=True)
class Counterbalanced:
    distribution: tuple[float, ...]
    #: delta_l per option position
    position_bias: tuple[float, ...]
    #: mean letter mass over the calls (None for verbalised readings)
    mass: float | None
    flagged: int


def counterbalance(readings: Sequence[tuple[int, Reading]]) -> Counterbalanced:
    """Average (rotation, reading) pairs in outcome space; K rotations cancel position bias."""
    k = len(readings[0][1].positions)
    distribution = np.mean([to_outcomes(r.positions, rotation) for rotation, r in readings], axis=0)
    bias = np.mean([r.positions for _, r in readings], axis=0) - 1.0 / k
    masses = [r.mass for _, r in readings if r.mass is not None]
    return Counterbalanced(
        distribution=tuple(float(p) for p in distribution),
        position_bias=tuple(float(d) for d in bias),
        mass=float(np.mean(masses)) if masses else None,
        flagged=sum(r.flagged is not None for _, r in readings),
    )


def _variants(letter: str) -> set[str]:
    return {letter, f" {letter}", letter.lower(), f" {letter.lower()}"}
