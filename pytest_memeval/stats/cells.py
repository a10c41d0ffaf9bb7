"""Statistics as the reports carry them: the typed cells every suite builds the same way.

A metric is a `records.Metric` (value, CI, n, MDE); a paired comparison of one metric is a
`records.PairedMetric`. NaN (a metric undefined on the data, e.g. a rate over zero items)
becomes None, never a number. Numbers are kept at full precision: gates compare them, and
a bound rounded to 0.75 passes ``>=0.75`` when it is 0.7499996. Rounding is for printing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from ..results.records import Metric, PairedMetric
from .bootstrap import DEFAULT_RESAMPLES, BootstrapResult, paired_bootstrap_mean
from .intervals import wilson_intervals
from .power import design_effect, icc_oneway, minimum_detectable_effect, minimum_detectable_effect_binary
from .signflip import paired_sign_flip

PAIRED_BOOTSTRAP = "paired_cluster_bootstrap"
SIGN_FLIP = "cluster_sign_flip"


class PairedResult(Protocol):
    """What a comparison cell is built from: a bootstrap or a sign-flip result."""

    @property
    def estimate_a(self) -> float: ...
    @property
    def estimate_b(self) -> float: ...
    @property
    def difference(self) -> float: ...
    @property
    def ci(self) -> tuple[float, float]: ...
    @property
    def p_value(self) -> float: ...
    @property
    def n_clusters(self) -> int: ...


def json_number(value: float | None) -> float | None:
    """A plain float, unrounded; None for None or NaN."""
    if value is None or math.isnan(value):
        return None
    return float(value)


def estimate_cell(
    value: float | None,
    ci: Sequence[float | None] | None = None,
    n: int | None = None,
    mde: float | None = None,
    n_clusters: int | None = None,
) -> Metric:
    low, high = ci if ci is not None else (None, None)
    return Metric(value, (low, high), n, mde, n_clusters=n_clusters)


def bootstrap_cell(result: BootstrapResult, n: int | None = None) -> Metric:
    """A bootstrap's estimate and interval, with the clusters it resampled; `n` counts items."""
    return Metric(result.estimate, result.ci, n, n_clusters=result.n_clusters)


def clustered_wilson(outcomes: Sequence[bool], clusters: Sequence[Any]) -> Metric:
    """A rate with its 95% Wilson interval at the design-effect-adjusted n: n / deff, where
    deff = 1 + (m - 1) * ICC over the clusters (the plain Wilson interval when every item
    is its own cluster)."""
    y = np.asarray(outcomes, dtype=float)
    n = y.size
    if n == 0:
        return Metric(None)
    n_clusters = len(set(clusters))
    deff = 1.0
    if n_clusters < n:
        icc = icc_oneway(y, list(clusters))
        deff = design_effect(n / n_clusters, 1.0 if math.isnan(icc) else icc)
    lo, hi = wilson_intervals([y.sum() / deff], [n / deff])
    return estimate_cell(y.mean(), (lo[0], hi[0]), n, n_clusters=n_clusters)


def paired_cell(
    result: PairedResult, mde: float | None, p_value: float | None = None, test: str = PAIRED_BOOTSTRAP
) -> PairedMetric:
    """One metric's comparison; the p-value is the bootstrap's unless another test gives it."""
    return PairedMetric(
        estimate_a=result.estimate_a,
        estimate_b=result.estimate_b,
        difference=result.difference,
        ci=(result.ci[0], result.ci[1]),
        p_value=result.p_value if p_value is None else p_value,
        test=test,
        mde=mde,
        n_clusters=result.n_clusters,
    )


def compare_rates(
    correct_a: Sequence[bool], correct_b: Sequence[bool], clusters: Sequence[Any], n_resamples: int = DEFAULT_RESAMPLES
) -> PairedMetric:
    """A success rate of two systems on the same items: the cluster sign-flip test and the
    interval that inverts it (so p <= .05 exactly when the 95% CI excludes 0), the clustered
    binary MDE. Exact up to 16 clusters, Monte Carlo over `n_resamples` sign patterns beyond;
    with one item per cluster the test is McNemar's."""
    test = paired_sign_flip(correct_a, correct_b, clusters, n_resamples=n_resamples, seed=0, bounds=(-1.0, 1.0))
    mde = minimum_detectable_effect_binary(correct_a, correct_b, clusters).mde
    return paired_cell(test, mde, test=SIGN_FLIP)


def compare_means(
    values_a: npt.ArrayLike, values_b: npt.ArrayLike, clusters: Sequence[Any], n_resamples: int = DEFAULT_RESAMPLES
) -> PairedMetric:
    """A graded per-item value of two systems on the same items: paired cluster bootstrap."""
    a, b = np.asarray(values_a, dtype=float), np.asarray(values_b, dtype=float)
    interval = paired_bootstrap_mean(a, b, clusters, n_resamples=n_resamples, seed=0)
    mde = minimum_detectable_effect(a - b, clusters).mde if a.size >= 2 else None
    return paired_cell(interval, mde)
