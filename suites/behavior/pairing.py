"""Who receives whose specification in the wrong-spec controls (C2c, paper section 4.6.5).

v1, the fixed adversarial pairing: a derangement of the cohort that maximises the total
distance between each subject's principles and those of the subject whose specification
it receives (the paper maximised cultural and temporal distance). v2: a random
derangement drawn from a stream named by the seed (the paper used seed 42). Both are
functions of the whole cohort, which is cheap to draw: principles only, no text.
"""

from __future__ import annotations

from functools import lru_cache

from .subjects import Principles, principles, stream


def distance(a: Principles, b: Principles) -> float:
    """Principles held the other way, plus how differently they are ranked."""
    opposite = sum(x != y for x, y in zip(a.poles, b.poles))
    return opposite + sum(abs(x - y) for x, y in zip(a.strengths, b.strengths)) / len(a.strengths)


@lru_cache(maxsize=16)
def adversarial(seed: int, cohort: int) -> tuple[int, ...]:
    """partner[i]: whose specification subject i receives under v1."""
    from scipy.optimize import linear_sum_assignment  # the assignment is only needed by C2c_v1 items

    people = [principles(seed, i) for i in range(cohort)]
    forbidden = float(len(people[0].poles) * 10)
    cost = [[forbidden if i == j else -distance(people[i], people[j]) for j in range(cohort)] for i in range(cohort)]
    _, partner = linear_sum_assignment(cost)
    return tuple(int(j) for j in partner)


@lru_cache(maxsize=16)
def random_derangement(seed: int, cohort: int) -> tuple[int, ...]:
    """partner[i] under v2: a uniformly drawn permutation with no fixed point."""
    rng = stream(seed, -1, "derangement-v2")
    order = list(range(cohort))
    while True:
        rng.shuffle(order)
        if all(i != j for i, j in enumerate(order)):
            return tuple(order)
