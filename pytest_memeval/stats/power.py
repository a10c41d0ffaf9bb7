"""Minimum detectable effect (MDE) of a paired comparison whose items come in clusters.

For per-item paired differences d (a - b on the same item) in clusters of mean size m_bar:

    ICC    one-way ANOVA estimate of the intra-cluster correlation of d (clipped at 0)
    deff   = 1 + (m_bar - 1) * ICC                       design effect
    n_eff  = n / deff                                    effective number of items
    MDE    = (z_{1 - alpha/2} + z_{power}) * SD(d) / sqrt(n_eff)

With ICC = 0 (or clusters of one) this is the usual unclustered paired-design MDE,
``(z_{1-alpha/2} + z_power) * SD(d) / sqrt(n)``. It is a normal approximation: the smallest
true mean difference a two-sided level-alpha test detects with the given power.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from ._scipy import scipy_stats


def icc_oneway(values: npt.ArrayLike, clusters: npt.ArrayLike) -> float:
    """ANOVA estimator of the intra-cluster correlation, clipped to [0, 1].

    ``(MSB - MSW) / (MSB + (m0 - 1) * MSW)`` with ``m0 = (N - sum(m_i^2) / N) / (k - 1)``, the
    usual size for unbalanced clusters. nan with fewer than two clusters; 0 when every cluster
    has one item (no within-cluster information, and no clustering to correct for) or when
    all values are equal.
    """
    y = np.asarray(values, dtype=float).ravel()
    _, idx = np.unique(np.asarray(clusters), return_inverse=True)
    idx = idx.ravel()
    if idx.size != y.size:
        raise ValueError("need one cluster id per value")
    sizes = np.bincount(idx)
    k, n = sizes.size, y.size
    if k < 2:
        return float("nan")
    if n == k:
        return 0.0
    means = np.bincount(idx, weights=y) / sizes
    msb = float(np.sum(sizes * (means - y.mean()) ** 2) / (k - 1))
    msw = float(np.sum((y - means[idx]) ** 2) / (n - k))
    m0 = (n - np.sum(sizes**2) / n) / (k - 1)
    denom = msb + (m0 - 1.0) * msw
    if denom <= 0.0:
        return 0.0
    return float(np.clip((msb - msw) / denom, 0.0, 1.0))


def design_effect(mean_cluster_size: float, icc: float) -> float:
    """Variance inflation from clustering: ``1 + (m_bar - 1) * ICC``."""
    return 1.0 + (mean_cluster_size - 1.0) * icc


def mde_from_parameters(
    sd: float,
    n: int,
    *,
    icc: float = 0.0,
    mean_cluster_size: float = 1.0,
    alpha: float = 0.05,
    power: float = 0.8,
) -> float:
    """MDE from its ingredients (see the module docstring for the formula)."""
    if n <= 0:
        raise ValueError("n must be positive")
    if not (0.0 < alpha < 1.0 and 0.0 < power < 1.0):
        raise ValueError("alpha and power must be in (0, 1)")
    n_eff = n / design_effect(mean_cluster_size, icc)
    z = scipy_stats().norm.ppf(1.0 - alpha / 2.0) + scipy_stats().norm.ppf(power)
    return float(z * sd / np.sqrt(n_eff))


@dataclass(frozen=True)
class MDEResult:
    """An MDE with everything that went into it."""

    mde: float
    sd: float
    n: int
    n_clusters: int
    mean_cluster_size: float
    icc: float
    design_effect: float
    effective_n: float
    alpha: float
    power: float


def minimum_detectable_effect(
    differences: npt.ArrayLike,
    clusters: npt.ArrayLike | None = None,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
) -> MDEResult:
    """MDE of a paired comparison from the observed per-item differences and their clusters.

    `clusters` None treats every item as its own cluster (ICC = 0).
    """
    d = np.asarray(differences, dtype=float).ravel()
    if d.size < 2:
        raise ValueError("need at least two paired differences")
    ids = np.arange(d.size) if clusters is None else np.asarray(clusters).ravel()
    if ids.size != d.size:
        raise ValueError("need one cluster id per difference")
    n_clusters = int(np.unique(ids).size)
    m_bar = d.size / n_clusters
    icc = icc_oneway(d, ids)
    if np.isnan(icc):
        # One cluster: everything is one unit, so the effective sample is a single item.
        icc = 1.0
    sd = float(np.std(d, ddof=1))
    deff = design_effect(m_bar, icc)
    return MDEResult(
        mde=mde_from_parameters(sd, d.size, icc=icc, mean_cluster_size=m_bar, alpha=alpha, power=power),
        sd=sd,
        n=int(d.size),
        n_clusters=n_clusters,
        mean_cluster_size=float(m_bar),
        icc=icc,
        design_effect=deff,
        effective_n=d.size / deff,
        alpha=alpha,
        power=power,
    )


def minimum_detectable_effect_binary(
    outcomes_a: npt.ArrayLike,
    outcomes_b: npt.ArrayLike,
    clusters: npt.ArrayLike | None = None,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
) -> MDEResult:
    """MDE (in rate points) for paired binary outcomes: differences are a - b in {-1, 0, 1}.

    The observed SD of the differences understates what a real change would bring: two
    identical runs have SD 0, and the plain formula would claim that any effect is
    detectable. A true change of delta needs at least a share delta of discordant pairs,
    all one way, whose differences have variance delta * (1 - delta); so the MDE is never
    below the delta that solves delta = c * sqrt(deff * delta * (1 - delta) / n), that is
    delta = c^2 * deff / (n + c^2 * deff), with c = z_{1-alpha/2} + z_power.
    """
    a = np.asarray(outcomes_a, dtype=bool).ravel().astype(float)
    b = np.asarray(outcomes_b, dtype=bool).ravel().astype(float)
    if a.shape != b.shape:
        raise ValueError("outcomes must be paired (same length)")
    observed = minimum_detectable_effect(a - b, clusters, alpha=alpha, power=power)
    c2 = (scipy_stats().norm.ppf(1 - alpha / 2) + scipy_stats().norm.ppf(power)) ** 2
    floor = c2 * observed.design_effect / (observed.n + c2 * observed.design_effect)
    return replace(observed, mde=max(observed.mde, floor))
