"""Paired significance tests: exact McNemar for binary outcomes, Wilcoxon signed-rank over clusters.

The signed-rank p-value is exact, ties and all: the statistic's null distribution is built
by convolution over the (mid)ranks actually observed (each rank is added to W+ or not with
probability 1/2), so tied differences keep their midranks instead of sending the test to the
normal approximation. Zero differences are dropped first (Wilcoxon's convention, scipy's
``zero_method="wilcox"``). Beyond `WILCOXON_EXACT_MAX` non-zero differences the tie-corrected
normal approximation is used, where it is accurate.
"""

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


#: up to this many non-zero differences the signed-rank p-value is exact
WILCOXON_EXACT_MAX = 400


@dataclass(frozen=True)
class WilcoxonResult:
    """Wilcoxon signed-rank test on per-cluster mean differences (treatment - baseline).

    `statistic` is scipy's W: for the two-sided test the smaller of the positive and negative
    rank sums, for a one-sided test the positive rank sum. `n` counts clusters; zero
    differences are dropped by the test (Wilcoxon's convention) but are counted in `tied`.
    `median_delta` is over all clusters. `method`: "exact" or "normal" (see the module).
    """

    statistic: float
    p_value: float
    n: int
    improved: int
    tied: int
    worse: int
    median_delta: float
    deltas: np.ndarray = field(repr=False, compare=False)
    method: str = "exact"


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


def signed_rank_exact(differences: npt.ArrayLike, alternative: str = "two-sided") -> tuple[float, float]:
    """Signed-rank statistic (scipy's convention) and its exact p-value; ties get midranks.

    `differences` must be non-zero. Midranks are multiples of 1/2, so doubled they are
    integers and the null distribution of the doubled W+ is a vector over 0..sum.
    """
    d = np.asarray(differences, dtype=float).ravel()
    if d.size == 0 or np.any(d == 0):
        raise ValueError("need at least one difference, none of them zero")
    doubled = np.rint(2 * scipy_stats().rankdata(np.abs(d))).astype(np.int64)
    total = int(doubled.sum())
    null = np.zeros(total + 1)
    null[0] = 1.0
    reach = 0
    for rank in doubled:
        null[rank : reach + rank + 1] += null[: reach + 1].copy()
        null[: reach + rank + 1] *= 0.5
        reach += int(rank)
    observed = int(doubled[d > 0].sum())
    values = np.arange(total + 1)
    if alternative == "two-sided":
        p = null[np.abs(2 * values - total) >= abs(2 * observed - total)].sum()
        statistic = min(observed, total - observed) / 2
    elif alternative == "greater":
        p, statistic = null[observed:].sum(), observed / 2
    elif alternative == "less":
        p, statistic = null[: observed + 1].sum(), observed / 2
    else:
        raise ValueError(f"alternative must be two-sided, greater or less, not {alternative!r}")
    return float(statistic), float(min(1.0, p))


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
    then the signed-rank test runs on the non-zero per-cluster differences: exact (ties
    included) up to `WILCOXON_EXACT_MAX` of them, ``scipy.stats.wilcoxon``'s tie-corrected
    normal approximation beyond.
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
    method = "exact" if nonzero.size <= WILCOXON_EXACT_MAX else "normal"
    if nonzero.size == 0:
        statistic, p = float("nan"), 1.0
    elif method == "exact":
        statistic, p = signed_rank_exact(nonzero, alternative)
    else:
        res = scipy_stats().wilcoxon(nonzero, alternative=alternative, method="approx")
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
        method=method,
    )
