"""Paired significance tests: exact McNemar for binary outcomes, Wilcoxon signed-rank over clusters."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from ._scipy import scipy_stats


@dataclass(frozen=True)
class McNemarResult:
    """Exact McNemar test. `b`: a right and b wrong; `c`: a wrong and b right."""

    b: int
    c: int
    n: int
    p_value: float

    @property
    def n_discordant(self) -> int:
        return self.b + self.c


def mcnemar_exact_counts(b: int, c: int, n: int | None = None) -> McNemarResult:
    """Two-sided exact McNemar p from the discordant counts: binomial test of b in b + c at 1/2.

    With no discordant pairs the p-value is 1. `n` (all pairs) is only recorded.
    """
    if b < 0 or c < 0:
        raise ValueError("discordant counts must be non-negative")
    p = 1.0 if b + c == 0 else float(scipy_stats().binomtest(int(b), int(b + c), 0.5).pvalue)
    return McNemarResult(b=int(b), c=int(c), n=int(b + c if n is None else n), p_value=p)


def mcnemar_exact(outcomes_a: npt.ArrayLike, outcomes_b: npt.ArrayLike) -> McNemarResult:
    """Exact McNemar test on paired binary outcomes (e.g. correct per item for systems a, b)."""
    a = np.asarray(outcomes_a, dtype=bool).ravel()
    b = np.asarray(outcomes_b, dtype=bool).ravel()
    if a.shape != b.shape:
        raise ValueError("outcomes must be paired (same length)")
    return mcnemar_exact_counts(int(np.sum(a & ~b)), int(np.sum(~a & b)), n=a.size)


@dataclass(frozen=True)
class WilcoxonResult:
    """Wilcoxon signed-rank test on per-cluster mean differences (treatment - baseline).

    `statistic` is scipy's two-sided W: the smaller of the positive and negative rank sums.
    `n` counts clusters; zero differences are dropped by the test (Wilcoxon's convention) but
    are counted in `tied`. `median_delta` is over all clusters.
    """

    statistic: float
    p_value: float
    n: int
    improved: int
    tied: int
    worse: int
    median_delta: float
    deltas: np.ndarray = field(repr=False, compare=False)


def cluster_means(values: npt.ArrayLike, clusters: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Mean of `values` per cluster: returns ``(sorted cluster ids, means)``."""
    x = np.asarray(values, dtype=float).ravel()
    ids, inverse = np.unique(np.asarray(clusters), return_inverse=True)
    inverse = inverse.ravel()
    if inverse.size != x.size:
        raise ValueError("need one cluster id per value")
    sums = np.bincount(inverse, weights=x, minlength=len(ids))
    counts = np.bincount(inverse, minlength=len(ids))
    return ids, sums / counts


def wilcoxon_clusters(
    treatment: npt.ArrayLike,
    baseline: npt.ArrayLike,
    clusters: npt.ArrayLike | None = None,
    *,
    alternative: str = "two-sided",
) -> WilcoxonResult:
    """Wilcoxon signed-rank test across clusters (e.g. subjects) for graded scores.

    Items are paired: `treatment[i]` and `baseline[i]` score the same item under the two
    conditions. Scores are first averaged per cluster (None: items are already the units),
    then ``scipy.stats.wilcoxon`` runs on the per-cluster differences.
    """
    t = np.asarray(treatment, dtype=float).ravel()
    b = np.asarray(baseline, dtype=float).ravel()
    if t.shape != b.shape:
        raise ValueError("treatment and baseline must be paired (same length)")
    if clusters is None:
        deltas = t - b
    else:
        _, mean_t = cluster_means(t, clusters)
        _, mean_b = cluster_means(b, clusters)
        deltas = mean_t - mean_b
    # Means of equal scores summed in different orders can differ by an ulp; round so such
    # clusters count as ties rather than as tiny non-zero differences.
    deltas = np.round(deltas, 12)
    nonzero = deltas[deltas != 0]
    if nonzero.size == 0:
        statistic, p = float("nan"), 1.0
    else:
        res = scipy_stats().wilcoxon(nonzero, alternative=alternative)
        statistic, p = float(res.statistic), float(res.pvalue)
    return WilcoxonResult(
        statistic=statistic,
        p_value=p,
        n=int(deltas.size),
        improved=int(np.sum(deltas > 0)),
        tied=int(np.sum(deltas == 0)),
        worse=int(np.sum(deltas < 0)),
        median_delta=float(np.median(deltas)) if deltas.size else float("nan"),
        deltas=deltas,
    )
