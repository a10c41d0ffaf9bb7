"""The effective sample size implied by the beliefs, pooled over the episodes of a cell.

The tempered posterior with weight lambda (reference.py) counts every observation as
lambda of one. Over the probes of the last fifth of the episodes (t >= ESS_WINDOW x T),
the lambda whose tempered posteriors are closest to the beliefs (least squares, pooled
over episodes) makes the beliefs as informative as lambda x T observations would be.

Pooling is what identifies it for the coin: one p(heads) cannot say how many flips it
rests on, but across episodes the beliefs of a memory that hands over only the first k
flips follow the full evidence as the posterior of k flips does, so lambda x T comes out
near k. For the recommender the type belief alone identifies it per episode as well
(judge.py reports that one per episode).

The interval resamples evidence streams (clusters) with the shared bootstrap weights and
refits on a lambda grid (log-spaced, and fine around the estimate, never beyond the search
range), interpolated between grid points; the point estimate is read off the same grid, so
that it lies among its resamples (a fine grid once reached past the range: 5000.0 printed
with [6107.0, 6107.0]). At the top of the range the value is a bound, not an estimate,
and it gets no interval.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from pytest_memeval.results.records import Metric, Record
from pytest_memeval.stats import resample_weights

from .environments import COIN, COIN_TURNS, REC_TURNS, TYPE_PRIOR
from .reference import MAX_WEIGHT

ESS_WINDOW = 0.8
GRID = np.concatenate([[0.0], np.geomspace(1e-3, MAX_WEIGHT, 240)])


def window_probes(record: Record) -> list[tuple[dict[str, Any], Mapping[str, Any]]]:
    """(trajectory entry, judged probe) pairs of the final window of an episode."""
    trajectory = record.answer_detail["trajectory"]
    judged = record.detail["per_probe"]
    turns = COIN_TURNS if record.task == COIN else REC_TURNS
    pairs = list(zip(trajectory, judged))
    late = [(e, p) for e, p in pairs if e["t"] >= ESS_WINDOW * turns]
    return late or pairs[-1:]


def pooled_ess(records: Sequence[Record], n_resamples: int) -> Metric:
    """lambda x T with its 95% cluster-bootstrap interval; None when no episode has beliefs to fit."""
    rows = [(r, e, p) for r in records for e, p in window_probes(r) if _has_belief(r, e)]
    if not rows:
        return Metric(None, n=0)
    coin = records[0].task == COIN
    turns = COIN_TURNS if coin else REC_TURNS
    loss = _coin_loss(rows) if coin else _type_loss(rows)
    clusters, index = np.unique([r.cluster for r, _, _ in rows], return_inverse=True)

    def by_cluster(grid: np.ndarray) -> np.ndarray:
        sums = np.zeros((len(clusters), len(grid)))
        np.add.at(sums, index.ravel(), loss(grid).T)
        return sums.T  # (grid, clusters)

    centre = _refine(loss, int(np.argmin(by_cluster(GRID).sum(axis=1))))
    # resamples land near the estimate: a fine grid there (inside the search range, as the
    # estimate is), the coarse one elsewhere
    fine = centre * np.exp(np.linspace(-0.2, 0.2, 401))
    grid = np.union1d(GRID, fine[fine <= GRID[-1]]) if centre > 0 else GRID
    losses = by_cluster(grid)
    # the estimate is read off the same grid as the resamples: every cluster drawn once
    weight = float(_grid_minima(grid, losses.sum(axis=1)[None])[0])
    resampled = _grid_minima(grid, resample_weights(len(clusters), n_resamples, seed=0) @ losses.T)
    low, high = np.percentile(resampled, [2.5, 97.5])
    n = len({r.id for r, _, _ in rows})
    at_limit = f"the fit reaches its limit (lambda = {GRID[-1]:g}): the value is a lower bound"
    return Metric(
        weight * turns,
        (float(low) * turns, float(high) * turns),
        n,
        no_interval=at_limit if weight >= GRID[-1] else "",
        n_clusters=len(clusters),
    )


def _has_belief(record: Record, entry: Mapping[str, Any]) -> bool:
    return "p_heads" in entry if record.task == COIN else "type" in entry


def _coin_loss(
    rows: Sequence[tuple[Record, Mapping[str, Any], Mapping[str, Any]]],
) -> Callable[[np.ndarray], np.ndarray]:
    beliefs = np.array([e["p_heads"] for _, e, _ in rows])
    heads = np.array([p["heads"] for _, _, p in rows], dtype=float)
    flips = np.array([p["t"] for _, _, p in rows], dtype=float)

    def loss(weights: np.ndarray) -> np.ndarray:
        w = np.asarray(weights, dtype=float)[:, None]
        return ((1.0 + w * heads) / (2.0 + w * flips) - beliefs) ** 2

    return loss


def _type_loss(
    rows: Sequence[tuple[Record, Mapping[str, Any], Mapping[str, Any]]],
) -> Callable[[np.ndarray], np.ndarray]:
    beliefs = np.array([e["type"] for _, e, _ in rows])  # (points, types)
    loglik = np.array([p["loglik"] for _, _, p in rows])
    # each episode's own model prior (the released fit's differs from the generator's)
    log_prior = np.log(np.array([r.detail.get("prior", TYPE_PRIOR) for r, _, _ in rows], dtype=float))

    def loss(weights: np.ndarray) -> np.ndarray:
        logits = log_prior[None] + np.asarray(weights, dtype=float)[:, None, None] * loglik[None]
        logits -= logits.max(axis=2, keepdims=True)
        post = np.exp(logits)
        post /= post.sum(axis=2, keepdims=True)
        return ((post - beliefs[None]) ** 2).sum(axis=2)

    return loss


def _grid_minima(grid: np.ndarray, losses: np.ndarray) -> np.ndarray:
    """The minimising weight of each row of a (resamples, grid) loss matrix: the grid
    point, moved to the vertex of the parabola through it and its two neighbours."""
    best = np.clip(np.argmin(losses, axis=1), 1, len(grid) - 2)
    rows = np.arange(len(best))
    x0, x1, x2 = grid[best - 1], grid[best], grid[best + 1]
    y0, y1, y2 = losses[rows, best - 1], losses[rows, best], losses[rows, best + 1]
    curvature = (y0 - y1) / (x0 - x1) - (y1 - y2) / (x1 - x2)  # (x0 - x2) times the x^2 coefficient
    slope = (y0 - y1) / (x0 - x1)
    with np.errstate(divide="ignore", invalid="ignore"):
        vertex = 0.5 * (x0 + x1) - slope * (x0 - x2) / (2 * curvature)
    minima = np.where(curvature * (x0 - x2) > 0, np.clip(vertex, x0, x2), x1)
    return np.where(np.argmin(losses, axis=1) == best, minima, grid[np.argmin(losses, axis=1)])


def _refine(loss: Callable[[np.ndarray], np.ndarray], best: int) -> float:
    def total(weight: float) -> float:
        return float(loss(np.array([weight])).sum())

    low, high = GRID[max(best - 1, 0)], GRID[min(best + 1, len(GRID) - 1)]
    if high <= low:
        return float(GRID[best])
    from scipy import optimize  # imported here: collection never needs it

    result = optimize.minimize_scalar(total, bounds=(low, high), method="bounded", options={"xatol": 1e-9})
    return float(result.x) if total(float(result.x)) <= total(float(GRID[best])) else float(GRID[best])
