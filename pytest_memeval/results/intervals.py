"""Every metric of a run and every difference of a comparison, as the reports print them:
its interval where `stats.estimability` finds it estimable, else none and the reason.

A metric without an interval keeps its value and loses what rests on the same variation
(its MDE and SEM); a paired difference keeps its p-value unless it rests on one cluster.
A run (or comparison) of fewer than two clusters has no interval anywhere; otherwise each
value is judged on the clusters its own statistic resampled (`n_clusters`, where it says),
the breakdown cells too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from ..stats.estimability import Bounds, difference_bounds, no_interval_reason
from .clusters import estimable
from .records import Flakiness, JudgePair, JudgeSensitivity, Metric, PairedMetric, SuiteSummary

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
