"""Agreement within a judge panel: Krippendorff's alpha and pairwise Spearman correlations
for ratings, Cohen's kappa for two judges' yes/no verdicts.

Ratings come as a units x raters matrix with NaN where a rater did not score a unit.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from ._scipy import scipy_stats
from .estimators import COUNT, Estimator, GroupSums, ratio

Level = Literal["nominal", "ordinal", "interval", "ratio"]


def _ratings(ratings: npt.ArrayLike) -> np.ndarray:
    x = np.asarray(ratings, dtype=float)
    if x.ndim != 2:
        raise ValueError("ratings must be a units x raters matrix")
    return x


def _squared_differences(values: np.ndarray, marginals: np.ndarray, level: Level) -> np.ndarray:
    """Krippendorff's delta^2 between every pair of observed values (sorted ascending)."""
    c, k = values[:, None], values[None, :]
    if level == "nominal":
        return (c != k).astype(float)
    if level == "interval":
        return (c - k) ** 2
    if level == "ratio":
        total = c + k
        return np.divide((c - k) ** 2, total**2, out=np.zeros((len(values), len(values))), where=total != 0)
    if level == "ordinal":
        # For i <= j: sum of marginals n_i..n_j minus (n_i + n_j) / 2, via the cumulative sum.
        cum = np.cumsum(marginals)
        upper = cum[None, :] - cum[:, None] + (marginals[:, None] - marginals[None, :]) / 2.0
        upper = np.triu(upper)
        return (upper + upper.T) ** 2
    raise ValueError(f"unknown level of measurement {level!r}")


def krippendorff_alpha(ratings: npt.ArrayLike, level: Level = "interval") -> float:
    """Krippendorff's alpha for a units x raters matrix (NaN = missing).

    ``alpha = 1 - (n - 1) * sum(o_ck * d2_ck) / sum(n_c * n_k * d2_ck)`` over the coincidence
    matrix o of pairable values (units with >= 2 ratings). Returns nan when there is no
    pairable unit or no variation at all (expected disagreement 0).
    """
    x = _ratings(ratings)
    present = ~np.isnan(x)
    per_unit = present.sum(axis=1)
    keep = per_unit >= 2
    x, present, per_unit = x[keep], present[keep], per_unit[keep]
    if x.shape[0] == 0:
        return float("nan")
    values, value_index = np.unique(x[present], return_inverse=True)
    n_units, n_values = x.shape[0], len(values)
    unit_index = np.nonzero(present)[0]  # row-major, matching the order of x[present]
    counts = np.bincount(unit_index * n_values + value_index.ravel(), minlength=n_units * n_values)
    counts = counts.reshape(n_units, n_values).astype(float)

    weighted = counts / (per_unit - 1.0)[:, None]
    coincidences = weighted.T @ counts - np.diag(weighted.sum(axis=0))
    marginals = coincidences.sum(axis=1)
    n = marginals.sum()
    d2 = _squared_differences(values, marginals, level)
    expected = float(np.outer(marginals, marginals).ravel() @ d2.ravel())
    if expected == 0.0:
        return float("nan")
    observed = float(coincidences.ravel() @ d2.ravel())
    return 1.0 - (n - 1.0) * observed / expected


@dataclass(frozen=True, eq=False)
class PairwiseSpearman:
    """Spearman rho, p-value and number of jointly rated units for every pair of raters."""

    rho: np.ndarray
    p_value: np.ndarray
    n: np.ndarray

    @property
    def mean_rho(self) -> float:
        """Mean rho over distinct rater pairs (undefined pairs skipped)."""
        upper = self.rho[np.triu_indices_from(self.rho, k=1)]
        upper = upper[~np.isnan(upper)]
        return float(upper.mean()) if upper.size else float("nan")


def pairwise_spearman(ratings: npt.ArrayLike) -> PairwiseSpearman:
    """Spearman correlation between each pair of raters over the units both rated.

    Pairs with fewer than 3 shared units, or a constant rater, get nan.
    """
    x = _ratings(ratings)
    n_raters = x.shape[1]
    rho = np.eye(n_raters)
    p = np.zeros((n_raters, n_raters))
    n = np.zeros((n_raters, n_raters), dtype=int)
    present = ~np.isnan(x)
    for i in range(n_raters):
        n[i, i] = int(present[:, i].sum())
        for j in range(i + 1, n_raters):
            both = present[:, i] & present[:, j]
            n[i, j] = n[j, i] = int(both.sum())
            r, pv = float("nan"), float("nan")
            if both.sum() >= 3:
                with warnings.catch_warnings():
                    # A constant rater gives nan, which is the answer we want, not a warning.
                    warnings.simplefilter("ignore", scipy_stats().ConstantInputWarning)
                    res = scipy_stats().spearmanr(x[both, i], x[both, j])
                r, pv = float(res.statistic), float(res.pvalue)
            rho[i, j] = rho[j, i] = r
            p[i, j] = p[j, i] = pv
    return PairwiseSpearman(rho=rho, p_value=p, n=n)


def cohen_kappa(a: str, b: str, both: str) -> Estimator:
    """Cohen's kappa of two judges' yes/no verdicts, as a metric over group sums (so the
    cluster bootstrap evaluates it on every resample): columns `a` and `b` are 1 where that
    judge said yes, `both` where both did.

    With A, B and AB the counts of yes and n the items, ``kappa = 2 (AB n - A B) / (A (n - B)
    + B (n - A))``: (p_o - p_e) / (1 - p_e) of the 2 x 2 table, in counts. NaN where both
    judges gave one and the same verdict to every item (p_e = 1).
    """

    def metric(sums: GroupSums) -> np.ndarray:
        n, yes_a, yes_b = sums[COUNT].sum(-1), sums[a].sum(-1), sums[b].sum(-1)
        return ratio(2.0 * (sums[both].sum(-1) * n - yes_a * yes_b), yes_a * (n - yes_b) + yes_b * (n - yes_a))

    return metric
