"""Cluster sign-flip test of a paired mean difference, and the interval that inverts it.

Two systems answer the same items; items are grouped in clusters (a persona, an essay, a
subject) whose outcomes are correlated. Under "no difference" the two systems' labels can be
swapped within a cluster, which flips the sign of the cluster's summed difference
``D_c = sum(a_i - b_i)``. The test statistic is ``sum_c D_c`` (N times the mean item
difference); its null distribution is that of ``sum_c s_c D_c`` over sign patterns s.

- Exact: all ``2**C`` patterns when there are at most `EXACT_MAX_CLUSTERS` clusters. With one
  item per cluster and binary outcomes this is the exact McNemar test.
- Monte Carlo otherwise: the observed pattern plus `n_resamples` random ones drawn from
  ``numpy.random.default_rng(seed)``; ``p = (1 + #{|T*| >= |T|}) / (n_resamples + 1)``, a
  valid p-value for any number of draws.

The interval holds every shift delta that the same test does not reject: the residuals
``D_c - delta * n_c`` are sign-flipped with the same patterns. For one pattern s the
flipped statistic is at least as extreme as the observed one exactly when delta lies between
two roots (a difference of squares), so the p-value as a function of delta is a count of
intervals and the confidence bounds are order statistics of their ends. By construction
``p_value <= 1 - confidence`` exactly when 0 lies outside ``[ci_low, ci_high]``.

At delta = 0 patterns that tie the observed statistic count against the null (clusters with
no net difference flip freely), which keeps the test exact; just off 0 those ties break, so
the p-value can drop there and an interval can end exactly at 0: not significant at 0, but
the shifts beyond it are rejected. For binary outcomes a shift is a large-sample model (a
0/1 difference is not symmetric about delta != 0); simulated coverage is about nominal with
tens of clusters (tests/test_stats_signflip.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

#: up to this many clusters every sign pattern is enumerated (2**16 = 65,536)
EXACT_MAX_CLUSTERS = 16
#: random signs are drawn this many at a time
_BLOCK = 1 << 20


@dataclass(frozen=True)
class SignFlipResult:
    """Mean difference ``a - b`` over the items, its p-value and the inverted interval."""

    estimate_a: float
    estimate_b: float
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    confidence: float
    n_clusters: int
    n_patterns: int  # sign patterns the p-value counts over, the observed one included
    exact: bool

    @property
    def ci(self) -> tuple[float, float]:
        return (self.ci_low, self.ci_high)


def flipped_sums(
    diffs: np.ndarray, sizes: np.ndarray, n_resamples: int, seed: int | None = 0
) -> tuple[np.ndarray, np.ndarray, bool]:
    """``(s.D, s.n)`` for every sign pattern s, and whether that is all of them.

    All ``2**C`` patterns up to `EXACT_MAX_CLUSTERS` clusters; beyond, the observed one (all
    plus) and `n_resamples` random ones, drawn a block at a time so memory stays bounded.
    """
    n_clusters = diffs.size
    if n_clusters <= EXACT_MAX_CLUSTERS:
        signs = 1.0 - 2.0 * ((np.arange(2**n_clusters)[:, None] >> np.arange(n_clusters)) & 1)
        return signs @ diffs, signs @ sizes, True
    rng = np.random.default_rng(seed)
    rows = max(1, _BLOCK // n_clusters)
    sums, counts = [np.array([diffs.sum()])], [np.array([sizes.sum()])]
    for start in range(0, n_resamples, rows):
        signs = 1.0 - 2.0 * rng.integers(0, 2, size=(min(rows, n_resamples - start), n_clusters))
        sums.append(signs @ diffs)
        counts.append(signs @ sizes)
    return np.concatenate(sums), np.concatenate(counts), False


def _largest_count_at_most(alpha: float, n_patterns: int) -> int:
    """Largest count c with ``c / n_patterns <= alpha``, in the float arithmetic p uses."""
    count = int(np.floor(alpha * n_patterns))
    while count > 0 and count / n_patterns > alpha:
        count -= 1
    while (count + 1) / n_patterns <= alpha:
        count += 1
    return count


def _acceptance_intervals(
    flipped: np.ndarray, flipped_sizes: np.ndarray, total: float, n_items: float
) -> tuple[np.ndarray, np.ndarray]:
    """Per pattern, the shifts delta where its flipped statistic is at least the observed one.

    With ``A = s.D``, ``M = s.n`` and the observed ``A0 = sum D``, ``N = sum n``:
    ``(A - d M)^2 - (A0 - d N)^2 = ((A - A0) - d (M - N)) ((A + A0) - d (M + N))``, a downward
    parabola in d (|M| <= N), non-negative between its roots. The all-plus and all-minus
    patterns (M = +-N) tie the observed statistic for every d.
    """
    a, m = flipped, flipped_sizes
    always = (m == n_items) | (m == -n_items)
    # A pattern that ties the observed statistic exactly (A = +-A0 in exact arithmetic) must
    # have its root at 0, not a rounding error away from it: sums of non-integer differences
    # in another order differ in the last bits.
    scale = max(float(np.abs(a).max(initial=0.0)), abs(total), 1.0) * 1e-12
    above, below = _snap(a - total, scale), _snap(a + total, scale)
    with np.errstate(divide="ignore", invalid="ignore"):
        root1 = np.where(always, -np.inf, above / (m - n_items))
        root2 = np.where(always, np.inf, below / (m + n_items))
    # Mathematically low <= estimate <= high; keep it so under rounding.
    estimate = total / n_items
    return np.minimum(np.minimum(root1, root2), estimate), np.maximum(np.maximum(root1, root2), estimate)


def paired_sign_flip(
    values_a: npt.ArrayLike,
    values_b: npt.ArrayLike,
    clusters: npt.ArrayLike | None = None,
    *,
    n_resamples: int = 2000,
    confidence: float = 0.95,
    seed: int | None = 0,
    bounds: tuple[float, float] = (-np.inf, np.inf),
) -> SignFlipResult:
    """Cluster sign-flip test and interval for the mean of per-item differences ``a - b``.

    `clusters` gives each item's cluster (None: every item its own). `bounds` clips the
    interval to where the difference can lie, e.g. (-1, 1) for two rates; with few clusters
    the test cannot reject at all and the interval is all of it.
    """
    a = np.asarray(values_a, dtype=float).ravel()
    b = np.asarray(values_b, dtype=float).ravel()
    if a.shape != b.shape:
        raise ValueError("values must be paired (same length)")
    if a.size == 0:
        raise ValueError("no items to compare")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("values must be finite")
    if n_resamples < 1:
        raise ValueError("n_resamples must be >= 1")
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must be in (0, 1)")
    if not bounds[0] <= 0.0 <= bounds[1]:
        raise ValueError("bounds must contain 0")
    if clusters is None:
        codes = np.arange(a.size)
    else:
        ids = np.asarray(clusters)
        if ids.shape != a.shape:
            raise ValueError(f"clusters must have one entry per item ({a.size}), got shape {ids.shape}")
        codes = np.unique(ids, return_inverse=True)[1].ravel()
    diffs = np.bincount(codes, weights=a - b)
    sizes = np.bincount(codes).astype(float)
    flipped, flipped_sizes, exact = flipped_sums(diffs, sizes, n_resamples, seed)
    total, n_items = float(diffs.sum()), float(sizes.sum())
    estimate = total / n_items
    low, high = _acceptance_intervals(flipped, flipped_sizes, total, n_items)
    n_patterns = flipped.size
    p_value = float(np.count_nonzero((low <= 0.0) & (0.0 <= high)) / n_patterns)
    # delta is in the interval while more than `rejected` patterns accept it.
    k = _largest_count_at_most(1.0 - confidence, n_patterns) + 1
    ci_low, ci_high = float(np.sort(low)[k - 1]), float(np.sort(high)[n_patterns - k])
    return SignFlipResult(
        estimate_a=float(a.mean()),
        estimate_b=float(b.mean()),
        difference=estimate,
        ci_low=max(ci_low, bounds[0]),
        ci_high=min(ci_high, bounds[1]),
        p_value=p_value,
        confidence=confidence,
        n_clusters=int(sizes.size),
        n_patterns=n_patterns,
        exact=exact,
    )


def _snap(values: np.ndarray, tolerance: float) -> np.ndarray:
    return np.where(np.abs(values) <= tolerance, 0.0, values)
