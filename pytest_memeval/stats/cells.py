"""Statistics as the reports carry them: the typed cells every suite builds the same way.

A metric is a `records.Metric` (value, CI, n, MDE); a paired comparison of one metric is a
`records.PairedMetric`. NaN (a metric undefined on the data, e.g. a rate over zero items)
becomes None, never a number. Values stay unrounded: rounding is for printing only.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
import numpy.typing as npt

from ..records import Metric, PairedMetric
from .bootstrap import DEFAULT_RESAMPLES, PairedBootstrapResult, paired_bootstrap_mean
from .paired import mcnemar_exact
from .power import minimum_detectable_effect, minimum_detectable_effect_binary

PAIRED_BOOTSTRAP = "paired_cluster_bootstrap"
MCNEMAR = "mcnemar_exact"


def json_number(value: float | None, digits: int = 6) -> float | None:
    if value is None or math.isnan(value):
        return None
    return round(float(value), digits)


def estimate_cell(
    value: float | None, ci: Sequence[float | None] | None = None, n: int | None = None, mde: float | None = None
) -> Metric:
    low, high = ci if ci is not None else (None, None)
    return Metric(value, (low, high), n, mde)


def paired_cell(
    result: PairedBootstrapResult, mde: float | None, p_value: float | None = None, test: str = PAIRED_BOOTSTRAP
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
    )


def compare_rates(
    correct_a: Sequence[bool], correct_b: Sequence[bool], clusters: Sequence[Any], n_resamples: int = DEFAULT_RESAMPLES
) -> PairedMetric:
    """A success rate of two systems on the same items: exact McNemar for the p-value, the
    paired cluster bootstrap for the interval, the clustered binary MDE."""
    interval = paired_bootstrap_mean(correct_a, correct_b, clusters, n_resamples=n_resamples, seed=0)
    mde = minimum_detectable_effect_binary(correct_a, correct_b, clusters).mde
    return paired_cell(interval, mde, mcnemar_exact(correct_a, correct_b).p_value, MCNEMAR)


def compare_means(
    values_a: npt.ArrayLike, values_b: npt.ArrayLike, clusters: Sequence[Any], n_resamples: int = DEFAULT_RESAMPLES
) -> PairedMetric:
    """A graded per-item value of two systems on the same items: paired cluster bootstrap."""
    a, b = np.asarray(values_a, dtype=float), np.asarray(values_b, dtype=float)
    interval = paired_bootstrap_mean(a, b, clusters, n_resamples=n_resamples, seed=0)
    mde = minimum_detectable_effect(a - b, clusters).mde if a.size >= 2 else None
    return paired_cell(interval, mde)
