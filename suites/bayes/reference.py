"""Exact Bayesian beliefs, and the tempered family used to read how much evidence a belief reflects.

Coin (paper eq. 4): Beta(1 + h, 1 + n - h), whose mean (1 + h) / (2 + n) is also the
next-flip predictive. Recommender (eq. 5): p(z | x) proportional to pi_z prod phi[m_i, z](r_i),
p(y | x) = sum_z p(z | x) phi[m*, z](y).

Tempering scales every log-likelihood by a weight lambda: lambda = 1 is Bayes, 0 is the
prior, < 1 under-updates and > 1 over-updates. The weight that best reproduces a belief
trajectory, times the number of observations, is the belief's effective sample size.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .environments import IDENTIFY_AT, RecommenderModel, sample_ratings, stream

#: the search range of the fitted evidence weight
MAX_WEIGHT = 50.0


def coin_mean(heads: int, flips: int, weight: float = 1.0) -> float:
    """Posterior mean of the bias (= p(next flip is heads)) under Beta(1, 1), tempered by `weight`."""
    return (1.0 + weight * heads) / (2.0 + weight * flips)


def log_likelihood(model: RecommenderModel, evidence: Sequence[tuple[int, int]]) -> np.ndarray:
    """sum_i log phi[m_i, z](r_i) per type z, for (item, rating 1-5) pairs."""
    if not evidence:
        return np.zeros(len(model.prior))
    items = np.fromiter((m for m, _ in evidence), dtype=np.intp)
    ratings = np.fromiter((r - 1 for _, r in evidence), dtype=np.intp)
    return np.log(model.table()[items, :, ratings]).sum(axis=0)


def type_posterior(model: RecommenderModel, evidence: Sequence[tuple[int, int]], weight: float = 1.0) -> np.ndarray:
    """p(z | ratings) for (item, rating 1-5) pairs, tempered by `weight`."""
    log_post = np.log(np.asarray(model.prior, dtype=float)) + weight * log_likelihood(model, evidence)
    log_post -= log_post.max()
    post = np.exp(log_post)
    return post / post.sum()


def rating_predictive(model: RecommenderModel, posterior: np.ndarray, target: int) -> np.ndarray:
    """p(y | ratings) for the target item: the type posterior mixed over the rating tables."""
    return posterior @ model.table()[target]


def expected_rating(distribution: Sequence[float] | np.ndarray) -> float:
    return float(np.dot(np.asarray(distribution, dtype=float), np.arange(1, len(distribution) + 1)))


def tvd(p: Sequence[float] | np.ndarray, q: Sequence[float] | np.ndarray) -> float:
    """Total variation distance, half the L1 distance (paper eq. 2)."""
    return 0.5 * float(np.abs(np.asarray(p, dtype=float) - np.asarray(q, dtype=float)).sum())


def type_identification(
    model: RecommenderModel, turns: int = IDENTIFY_AT, users_per_type: int = 200_000, seed: int = 0
) -> tuple[float, tuple[float, ...]]:
    """How often the reference's most likely type is the user's true type after `turns`
    ratings, the way the paper states its figure (0.82 on the released fit, App. C.2): the
    type drawn from the prior, the ratings of the first `turns` sequence items in their fixed
    order. Returns the prior-weighted rate and the rate per true type, each estimated from
    `users_per_type` simulated users (Monte Carlo standard error about 0.0005 at the default)."""
    table = model.table()[:turns]  # (turns, types, ratings)
    log_table = np.log(table)
    log_prior = np.log(np.asarray(model.prior, dtype=float))
    rows = np.arange(turns)[None, :]
    rates = []
    for true_type in range(len(model.prior)):
        rng = stream(seed, 7_000, true_type)
        hits = 0
        for start in range(0, users_per_type, _CHUNK):
            uniforms = rng.random((min(_CHUNK, users_per_type - start), turns))
            ratings = sample_ratings(table[:, true_type], uniforms)  # (users, turns)
            logits = log_table[rows, :, ratings].sum(axis=1) + log_prior  # (users, types)
            hits += int(np.sum(np.argmax(logits, axis=1) == true_type))
        rates.append(hits / users_per_type)
    return float(np.dot(model.prior, rates)), tuple(rates)


#: simulated users per vectorised block (bounds memory at about 30 MB)
_CHUNK = 50_000


def fit_coin_weight(beliefs: Sequence[float], heads: Sequence[int], flips: Sequence[int]) -> float:
    """The evidence weight whose tempered posterior means best match `beliefs` (least squares)."""
    h = np.asarray(heads, dtype=float)
    n = np.asarray(flips, dtype=float)
    b = np.asarray(beliefs, dtype=float)
    return _fit(lambda w: float(np.sum(((1.0 + w * h) / (2.0 + w * n) - b) ** 2)))


def fit_type_weight(
    model: RecommenderModel, beliefs: Sequence[Sequence[float]], histories: Sequence[Sequence[tuple[int, int]]]
) -> float:
    """The evidence weight whose tempered type posteriors best match `beliefs` (least squares)."""
    observed = np.asarray(beliefs, dtype=float)
    log_prior = np.log(np.asarray(model.prior, dtype=float))
    sums = np.array([log_likelihood(model, h) for h in histories])  # tempering only scales them

    def loss(weight: float) -> float:
        logits = log_prior + weight * sums
        logits -= logits.max(axis=1, keepdims=True)
        post = np.exp(logits)
        post /= post.sum(axis=1, keepdims=True)
        return float(np.sum((post - observed) ** 2))

    return _fit(loss)


def _fit(loss: Callable[[float], float]) -> float:
    """Global grid over [0, MAX_WEIGHT] (log-spaced), then a bounded refinement around the best point."""
    grid = np.concatenate([[0.0], np.geomspace(1e-3, MAX_WEIGHT, 240)])
    values = np.array([loss(w) for w in grid])
    best = int(np.argmin(values))
    low, high = grid[max(best - 1, 0)], grid[min(best + 1, len(grid) - 1)]
    if high <= low:
        return float(grid[best])
    from scipy import optimize  # imported here: collection never needs it

    result = optimize.minimize_scalar(loss, bounds=(low, high), method="bounded", options={"xatol": 1e-9})
    candidate = float(result.x)
    return candidate if loss(candidate) <= values[best] else float(grid[best])
