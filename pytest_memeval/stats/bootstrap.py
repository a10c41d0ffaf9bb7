"""Percentile cluster bootstrap for metrics written over per-group sums (see `estimators`).

How it works, once for all metrics:

1. Items are reduced to a tensor ``cells[c, g, k]``: the sum of per-item column k over the
   items of cluster c in group g (column ``"n"`` counts items).
2. Resampling clusters with replacement is a ``(B, C)`` matrix of multinomial counts ``W``
   drawn from ``numpy.random.default_rng(seed)``; row b says how often each cluster was drawn.
3. The per-group sums of every resample are one matrix product, ``W @ cells``, shape
   ``(B, G, K)``, and each metric maps those to B values at once. The point estimate is the
   same metric on the original data (``W`` = a row of ones).
4. The interval is the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` percentiles of
   the B resampled values (resamples where a metric is undefined, nan, are left out).

The percentile interval is not guaranteed to contain the point estimate, though for the
metrics here it does in practice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache

import numpy as np
import numpy.typing as npt
from threadpoolctl import ThreadpoolController

from .estimators import COUNT, Estimator, macro_mean, micro_mean, multisource_columns, multisource_metrics

DEFAULT_RESAMPLES = 2000


@dataclass(frozen=True)
class BootstrapResult:
    """Point estimate and percentile interval of one metric."""

    estimate: float
    ci_low: float
    ci_high: float
    confidence: float
    n_resamples: int
    n_clusters: int
    resamples: np.ndarray = field(repr=False, compare=False)

    @property
    def ci(self) -> tuple[float, float]:
        return (self.ci_low, self.ci_high)


@dataclass(frozen=True)
class PairedBootstrapResult:
    """Difference ``a - b`` of one metric between two systems scored on the same items.

    `p_value` is two-sided: ``min(1, 2 * min(share(d* <= 0), share(d* >= 0)))`` over the
    resampled differences d*, floored at ``1 / (B + 1)`` because B resamples cannot resolve
    smaller probabilities.
    """

    estimate_a: float
    estimate_b: float
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    confidence: float
    n_resamples: int
    n_clusters: int
    resamples: np.ndarray = field(repr=False, compare=False)

    @property
    def ci(self) -> tuple[float, float]:
        return (self.ci_low, self.ci_high)


# --- building blocks --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Layout:
    cluster: np.ndarray  # per-item cluster code in [0, n_clusters)
    group: np.ndarray  # per-item group code in [0, n_groups)
    n_clusters: int
    n_groups: int


def _layout(n_items: int, clusters: npt.ArrayLike | None, groups: npt.ArrayLike | None) -> _Layout:
    if n_items == 0:
        raise ValueError("no items to bootstrap")

    def codes(ids: npt.ArrayLike | None, name: str) -> tuple[np.ndarray, int]:
        if ids is None:
            return np.arange(n_items), n_items
        arr = np.asarray(ids)
        if arr.shape != (n_items,):
            raise ValueError(f"{name} must have one entry per item ({n_items}), got shape {arr.shape}")
        # np.unique sorts, so the codes do not depend on item order.
        uniq, inverse = np.unique(arr, return_inverse=True)
        return inverse.ravel(), len(uniq)

    cluster, n_clusters = codes(clusters, "clusters")
    if groups is None:
        group, n_groups = np.zeros(n_items, dtype=np.intp), 1
    else:
        group, n_groups = codes(groups, "groups")
    return _Layout(cluster, group, n_clusters, n_groups)


def _as_columns(columns: Mapping[str, npt.ArrayLike]) -> dict[str, np.ndarray]:
    if COUNT in columns:
        raise ValueError(f"column name {COUNT!r} is reserved for the item count")
    out = {name: np.asarray(values, dtype=float).ravel() for name, values in columns.items()}
    lengths = {v.size for v in out.values()}
    if len(lengths) > 1:
        raise ValueError(f"columns differ in length: {sorted(lengths)}")
    for name, v in out.items():
        if not np.all(np.isfinite(v)):
            raise ValueError(f"column {name!r} has non-finite values; drop or score those items first")
    return out


def _n_items(columns: Mapping[str, np.ndarray]) -> int:
    if not columns:
        raise ValueError("need at least one per-item column")
    return next(iter(columns.values())).size


def _cell_sums(columns: Mapping[str, np.ndarray], layout: _Layout) -> tuple[list[str], np.ndarray]:
    """Sum every column per (cluster, group) cell: names and an array of shape (C, G, K)."""
    names = [COUNT, *columns]
    values = [np.ones_like(layout.cluster, dtype=float), *columns.values()]
    # Sum in a canonical item order so that permuting the items gives bit-identical sums.
    order = np.lexsort((*values[::-1], layout.group, layout.cluster))
    cell = (layout.cluster * layout.n_groups + layout.group)[order]
    size = layout.n_clusters * layout.n_groups
    sums = np.stack([np.bincount(cell, weights=v[order], minlength=size) for v in values], axis=-1)
    return names, sums.reshape(layout.n_clusters, layout.n_groups, len(names))


def resample_weights(n_clusters: int, n_resamples: int, seed: int | None = 0) -> np.ndarray:
    """``(n_resamples, n_clusters)`` float matrix: how often each cluster is drawn per resample."""
    return _shared_weights(n_clusters, n_resamples, seed).copy()


#: seeded weight matrices up to this many cells (4 MB) are drawn once per process
SHARED_WEIGHT_CELLS = 1 << 19


def _shared_weights(n_clusters: int, n_resamples: int, seed: int | None) -> np.ndarray:
    """`resample_weights`, not to be written to. A summary draws the same seeded matrix for
    its headline and for every cell of its breakdowns whose items come from as many clusters
    (about 3 ms each for 120 clusters; multisource small has 32 such cells): a small one is
    drawn once and shared, read-only."""
    if seed is not None and n_clusters * n_resamples <= SHARED_WEIGHT_CELLS:
        return _kept_weights(n_clusters, n_resamples, seed)
    return _draw_weights(n_clusters, n_resamples, seed)


@lru_cache(maxsize=8)
def _kept_weights(n_clusters: int, n_resamples: int, seed: int) -> np.ndarray:
    weights = _draw_weights(n_clusters, n_resamples, seed)
    weights.flags.writeable = False
    return weights


def _draw_weights(n_clusters: int, n_resamples: int, seed: int | None) -> np.ndarray:
    """Drawn and counted a block of resamples at a time, straight into the matrix: the
    generator keeps its place between calls, so the blocks draw what one call over the whole
    matrix would. One call held its draws, their counts and the counts as floats at once:
    92 MB for a run of 34,560 items (1,920 clusters), where the matrix is 31 MB."""
    rng = np.random.default_rng(seed)
    weights = np.empty((n_resamples, n_clusters))
    block = max(1, SHARED_WEIGHT_CELLS // max(1, n_clusters))
    for start in range(0, n_resamples, block):
        rows = rng.integers(0, n_clusters, size=(min(block, n_resamples - start), n_clusters))
        rows += np.arange(rows.shape[0])[:, None] * n_clusters
        weights[start : start + rows.shape[0]] = np.bincount(rows.ravel(), minlength=rows.size).reshape(rows.shape)
    return weights


def _replicate(weights: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """Per-group sums of each replicate: ``(R, C) x (C, G, K) -> (R, G, K)`` in one product.

    On one BLAS thread: the product is small (2,000 x a few hundred x a few dozen), and
    OpenBLAS's threads, woken for it on a busy machine (xdist's workers on every core), spent
    about 8 ms of CPU per product instead of 0.1 ms (the same sums: each thread computes
    whole output cells)."""
    n_clusters, n_groups, n_cols = cells.shape
    with _blas_threads().limit(limits=1, user_api="blas"):
        flat = weights @ cells.reshape(n_clusters, n_groups * n_cols)
    return flat.reshape(weights.shape[0], n_groups, n_cols)


@cache
def _blas_threads() -> ThreadpoolController:
    """The BLAS libraries numpy loaded, found once per process."""
    return ThreadpoolController()


def _named(names: list[str], sums: np.ndarray) -> dict[str, np.ndarray]:
    return {name: sums[:, :, i] for i, name in enumerate(names)}


def _percentiles(values: np.ndarray, confidence: float) -> tuple[float, float]:
    finite = values[~np.isnan(values)]
    if finite.size == 0:
        return float("nan"), float("nan")
    tail = 100.0 * (1.0 - confidence) / 2.0
    lo, hi = np.percentile(finite, [tail, 100.0 - tail])
    return float(lo), float(hi)


def _check(n_resamples: int, confidence: float) -> None:
    if n_resamples < 1:
        raise ValueError("n_resamples must be >= 1")
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must be in (0, 1)")


# --- one system -------------------------------------------------------------------------------


def cluster_bootstrap(
    metrics: Mapping[str, Estimator],
    columns: Mapping[str, npt.ArrayLike],
    clusters: npt.ArrayLike | None = None,
    groups: npt.ArrayLike | None = None,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> dict[str, BootstrapResult]:
    """Percentile cluster bootstrap of several metrics over the same resampled clusters.

    `columns` maps names to per-item values; `clusters` and `groups` give each item's cluster
    (the resampling unit; None = every item its own cluster) and group (None = one group).
    """
    _check(n_resamples, confidence)
    cols = _as_columns(columns)
    n_items = _n_items(cols)
    layout = _layout(n_items, clusters, groups)
    names, cells = _cell_sums(cols, layout)
    original = _named(names, _replicate(np.ones((1, layout.n_clusters)), cells))
    resampled = _named(names, _replicate(_shared_weights(layout.n_clusters, n_resamples, seed), cells))
    results = {}
    for name, metric in metrics.items():
        dist = np.asarray(metric(resampled), dtype=float)
        lo, hi = _percentiles(dist, confidence)
        results[name] = BootstrapResult(
            estimate=float(np.asarray(metric(original))[0]),
            ci_low=lo,
            ci_high=hi,
            confidence=confidence,
            n_resamples=n_resamples,
            n_clusters=layout.n_clusters,
            resamples=dist,
        )
    return results


def bootstrap_mean(
    values: npt.ArrayLike,
    clusters: npt.ArrayLike | None = None,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> BootstrapResult:
    """Cluster bootstrap of the mean of a per-item value (a rate for 0/1 values)."""
    metrics = {"mean": micro_mean("x")}
    return cluster_bootstrap(
        metrics, {"x": values}, clusters, n_resamples=n_resamples, confidence=confidence, seed=seed
    )["mean"]


def bootstrap_macro_mean(
    values: npt.ArrayLike,
    groups: npt.ArrayLike,
    clusters: npt.ArrayLike | None = None,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> BootstrapResult:
    """Cluster bootstrap of the mean over groups of the per-group mean of a per-item value."""
    metrics = {"macro": macro_mean("x")}
    return cluster_bootstrap(
        metrics, {"x": values}, clusters, groups, n_resamples=n_resamples, confidence=confidence, seed=seed
    )["macro"]


def bootstrap_multisource(
    correct: npt.ArrayLike,
    answered: npt.ArrayLike,
    clusters: npt.ArrayLike,
    groups: npt.ArrayLike,
    *,
    beta: float = 0.5,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> dict[str, BootstrapResult]:
    """Macro accuracy, coverage, selective accuracy and F_beta with their cluster bootstrap CIs."""
    columns = multisource_columns(correct, answered)
    return cluster_bootstrap(
        multisource_metrics(beta), columns, clusters, groups, n_resamples=n_resamples, confidence=confidence, seed=seed
    )


# --- two systems on the same items ------------------------------------------------------------


def _paired_p_value(diffs: np.ndarray) -> float:
    finite = diffs[~np.isnan(diffs)]
    if finite.size == 0:
        return float("nan")
    two_sided = 2.0 * min(np.mean(finite <= 0.0), np.mean(finite >= 0.0))
    return float(min(1.0, max(two_sided, 1.0 / (finite.size + 1))))


def paired_cluster_bootstrap(
    metrics: Mapping[str, Estimator],
    columns_a: Mapping[str, npt.ArrayLike],
    columns_b: Mapping[str, npt.ArrayLike],
    clusters: npt.ArrayLike | None = None,
    groups: npt.ArrayLike | None = None,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> dict[str, PairedBootstrapResult]:
    """Bootstrap of ``metric(a) - metric(b)`` where both systems answered the same items.

    Row i of `columns_a` and `columns_b` is the same item; each resample draws one set of
    clusters and evaluates both systems on it, so the item-level pairing is kept.
    """
    _check(n_resamples, confidence)
    cols_a, cols_b = _as_columns(columns_a), _as_columns(columns_b)
    if set(cols_a) != set(cols_b):
        raise ValueError("both systems need the same columns")
    n_items = _n_items(cols_a)
    if _n_items(cols_b) != n_items:
        raise ValueError("both systems must be scored on the same items")
    layout = _layout(n_items, clusters, groups)
    names, cells_a = _cell_sums(cols_a, layout)
    _, cells_b = _cell_sums({k: cols_b[k] for k in cols_a}, layout)
    cells = np.concatenate([cells_a, cells_b], axis=-1)
    k = len(names)

    def split(weights: np.ndarray) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        both = _replicate(weights, cells)
        return _named(names, both[:, :, :k]), _named(names, both[:, :, k:])

    orig_a, orig_b = split(np.ones((1, layout.n_clusters)))
    res_a, res_b = split(_shared_weights(layout.n_clusters, n_resamples, seed))
    results = {}
    for name, metric in metrics.items():
        est_a = float(np.asarray(metric(orig_a))[0])
        est_b = float(np.asarray(metric(orig_b))[0])
        diffs = np.asarray(metric(res_a), dtype=float) - np.asarray(metric(res_b), dtype=float)
        lo, hi = _percentiles(diffs, confidence)
        results[name] = PairedBootstrapResult(
            estimate_a=est_a,
            estimate_b=est_b,
            difference=est_a - est_b,
            ci_low=lo,
            ci_high=hi,
            p_value=_paired_p_value(diffs),
            confidence=confidence,
            n_resamples=n_resamples,
            n_clusters=layout.n_clusters,
            resamples=diffs,
        )
    return results


def paired_bootstrap_mean(
    values_a: npt.ArrayLike,
    values_b: npt.ArrayLike,
    clusters: npt.ArrayLike | None = None,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> PairedBootstrapResult:
    """Paired cluster bootstrap of the difference in means of a per-item value."""
    metrics = {"mean": micro_mean("x")}
    return paired_cluster_bootstrap(
        metrics, {"x": values_a}, {"x": values_b}, clusters, n_resamples=n_resamples, confidence=confidence, seed=seed
    )["mean"]


def paired_bootstrap_multisource(
    correct_a: npt.ArrayLike,
    answered_a: npt.ArrayLike,
    correct_b: npt.ArrayLike,
    answered_b: npt.ArrayLike,
    clusters: npt.ArrayLike,
    groups: npt.ArrayLike,
    *,
    beta: float = 0.5,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> dict[str, PairedBootstrapResult]:
    """Paired cluster bootstrap of the four multisource metrics, system a minus system b."""
    return paired_cluster_bootstrap(
        multisource_metrics(beta),
        multisource_columns(correct_a, answered_a),
        multisource_columns(correct_b, answered_b),
        clusters,
        groups,
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
    )
