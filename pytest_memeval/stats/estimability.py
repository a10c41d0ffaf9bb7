"""Whether an interval says anything: the one place that decides it, for every metric and
every paired difference the reports print (docs/statistics.md).

An interval is printed only when it is informative and holds its own value; otherwise the
reports print ``n/a`` and the reason this module gives:

- **one cluster** (or none): there is no variation between clusters to learn from; a
  cluster bootstrap of one cluster draws the same data every time;
- **no variation**: every resample (every sign pattern) gave the same value. A zero-width
  interval is the data's sameness, not certainty: 63 of 63 items right in three lives print
  ``[100.0, 100.0]``, and two identical runs a paired difference of ``[0, 0]``;
- **the whole range**: the interval is everything the metric can take. A sign-flip test
  over four clusters cannot reject any difference, so the interval of a difference of two
  rates is all of [-1, +1]: a filler, not a measurement;
- **a miss**: the interval does not hold its own estimate (a percentile bootstrap whose
  resamples all fall on one side of it). That is a defect of the statistic; the reports
  say so instead of printing both.

A suite may give a metric no interval with a reason of its own (`Metric.no_interval`);
that reason is kept.

`checked` and its kin apply the decision to every metric of a run and every difference of
a comparison, as the reports print them. A metric without an interval keeps its value and
loses what rests on the same variation (its MDE and SEM); a paired difference keeps its
p-value unless it rests on one cluster. A run (or comparison) of fewer than two clusters
has no interval anywhere; otherwise each value is judged on the clusters its own statistic
resampled (`n_clusters`, where it says), the breakdown cells too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from msgspec.structs import replace

from ..results.clusters import MIN_CLUSTERS, estimable
from ..results.records import Flakiness, JudgePair, JudgeSensitivity, Metric, PairedMetric, SuiteSummary

#: an interval narrower than this share of its value's magnitude (at least 1) has no width
ZERO_WIDTH = 1e-9

Bounds = tuple[float, float]


def no_interval_reason(
    value: float | None,
    ci: Sequence[float | None],
    n_clusters: int | None = None,
    bounds: Bounds | None = None,
    given: str = "",
) -> str:
    """Why `value` gets no interval from `ci`; "" when the interval is to be printed.

    `n_clusters` counts the independent clusters the statistic rests on (None: unknown);
    `bounds` is the range the value can take (None: unknown), for a paired difference the
    range of a difference. `given` is a reason the statistic gave itself."""
    if value is None or not math.isfinite(value):
        return ""
    if n_clusters is not None and n_clusters < MIN_CLUSTERS:
        return "one cluster" if n_clusters == 1 else "no clusters"
    if given:
        return given
    low, high = ci
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
        return "no interval computed"
    clusters = f" in {n_clusters} clusters" if n_clusters is not None else ""
    if high - low <= ZERO_WIDTH * max(1.0, abs(value)):
        return f"no variation{clusters}"
    if bounds is not None and low <= bounds[0] and high >= bounds[1]:
        few = f"{n_clusters} clusters are" if n_clusters is not None else "the items are"
        return f"{few} too few to bound it (the interval is the whole range)"
    if not low <= value <= high:
        return f"the interval [{low:.6g}, {high:.6g}] misses the estimate"
    return ""


def difference_bounds(bounds: Bounds | None) -> Bounds | None:
    """The range of a difference of two values in `bounds`."""
    if bounds is None:
        return None
    width = bounds[1] - bounds[0]
    return (-width, width)


MetricBounds = Mapping[str, Bounds]
RATE: Bounds = (0.0, 1.0)
KAPPA: Bounds = (-1.0, 1.0)


def checked(metric: Metric, run_clusters: int | None = None, bounds: Bounds | None = None) -> Metric:
    """`metric` with its interval, or without it and with the reason."""
    n_clusters = metric.n_clusters if estimable(run_clusters) else run_clusters
    reason = no_interval_reason(metric.value, metric.ci, n_clusters, bounds, metric.no_interval)
    if not reason:
        return metric
    return replace(metric, ci=(None, None), mde=None, sem=None, no_interval=reason)


def checked_summary(summary: SuiteSummary, n_clusters: int | None, bounds: MetricBounds) -> SuiteSummary:
    """A run's summary, its breakdown cells too."""
    breakdown = {
        dimension: {
            name: replace(cell, metrics=_checked_all(cell.metrics, n_clusters, bounds)) for name, cell in cells.items()
        }
        for dimension, cells in summary.breakdown.items()
    }
    return replace(summary, metrics=_checked_all(summary.metrics, n_clusters, bounds), breakdown=breakdown)


def checked_flakiness(flakiness: Flakiness | None, n_clusters: int | None) -> Flakiness | None:
    if flakiness is None:
        return None
    return replace(
        flakiness,
        agreement=checked(flakiness.agreement, n_clusters, RATE),
        pass_all=checked(flakiness.pass_all, n_clusters, RATE),
        pass_any=checked(flakiness.pass_any, n_clusters, RATE),
    )


def checked_judges(sensitivity: JudgeSensitivity | None, n_clusters: int | None) -> JudgeSensitivity | None:
    if sensitivity is None:
        return None
    pairs = tuple(
        JudgePair(
            pair.a,
            pair.b,
            pair.n,
            pair.agree,
            checked(pair.kappa, n_clusters, KAPPA),
            checked_paired(pair.difference, n_clusters, RATE),
        )
        for pair in sensitivity.pairs
    )
    accuracy = {name: checked(m, n_clusters, RATE) for name, m in sensitivity.accuracy.items()}
    return replace(sensitivity, accuracy=accuracy, pairs=pairs)


def checked_paired(cell: PairedMetric, run_clusters: int | None, bounds: Bounds | None = None) -> PairedMetric:
    """One difference a - b: its interval, or none and the reason; on fewer than two
    clusters its p-values and MDE go too."""
    n_clusters = cell.n_clusters if estimable(run_clusters) else run_clusters
    reason = no_interval_reason(cell.difference, cell.ci, n_clusters, difference_bounds(bounds), cell.no_interval)
    if not estimable(n_clusters):
        return replace(cell, ci=(None, None), p_value=None, p_holm=None, mde=None, no_interval=reason)
    if not reason:
        return cell
    return replace(cell, ci=(None, None), mde=None, no_interval=reason)


def _checked_all(metrics: Mapping[str, Metric], n_clusters: int | None, bounds: MetricBounds) -> dict[str, Metric]:
    return {name: checked(metric, n_clusters, bounds.get(name)) for name, metric in metrics.items()}
