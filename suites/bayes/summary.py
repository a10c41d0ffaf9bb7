"""Metrics of one (system, responder, k) run and paired comparisons between runs.

Every metric is an episode value (already averaged over the episode's probes by the
judge) averaged over episodes: errors averaged over turns, then over trials, as in the
paper. Each estimate carries a 95% percentile bootstrap interval that resamples evidence
streams (the conditions of one (true parameter, trial) share their observations, so they
are one cluster), and the mean +- 1 SEM across episodes that the paper reports.
Coin metrics average coin episodes only, recommender metrics recommender episodes only.
What the memory let through: evidence_recall, the share of the stored observations that the
retrieved memories state (mean over probes); retrieval_recency, their mean relative position
(0 the oldest, 1 the newest, 0.5 for an unbiased choice), where positions are known
(indexed coin observations, recommender ratings).

The headline metrics average the episodes that go through memory; single-turn episodes,
which state the evidence in the probe, are the memory-free control and are summarised
under "control" (and in the breakdowns).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial

import numpy as np

from pytest_memeval.results.records import Cell, Metric, PairedMetric, Record, SuiteSummary
from pytest_memeval.stats import bootstrap_mean, compare_means, mean_sem
from pytest_memeval.stats.estimability import checked

from .conditions import SINGLE_TURN
from .environments import COIN, COIN_TURNS, REC_TURNS, RECOMMENDER
from .ess import pooled_ess
from .judge import COIN_TOLERANCE, REC_TOLERANCE
from .reference import MAX_WEIGHT

#: metric -> (environment it applies to, or None for both; the detail key of its episode value)
#: within_tolerance is the share of episodes that pass; the ESS metrics are pooled (ess.py)
METRICS: dict[str, tuple[str | None, str | None]] = {
    "coin_mae": (COIN, "mae"),
    "coin_final_error": (COIN, "final_error"),
    "coin_ess": (COIN, None),
    "rating_tvd": (RECOMMENDER, "rating_tvd"),
    "type_tvd": (RECOMMENDER, "type_tvd"),
    "rating_mae": (RECOMMENDER, "rating_mae"),
    "conditioned_rating_mae": (RECOMMENDER, "conditioned_rating_mae"),
    "p_true_type": (RECOMMENDER, "p_true_type"),
    "final_type_tvd": (RECOMMENDER, "final_type_tvd"),
    "type_ess": (RECOMMENDER, None),
    "evidence_recall": (None, "evidence_recall"),
    "retrieval_recency": (None, "recency"),
    "within_tolerance": (None, None),
}
METRIC_NAMES = tuple(METRICS)
POOLED = ("coin_ess", "type_ess")
#: where each metric lies: rates, distances and recalls in [0, 1]; rating errors in stars
#: (1 to 5); an effective sample size up to the fit's limit, MAX_WEIGHT x the episode's turns
METRIC_BOUNDS: dict[str, tuple[float, float]] = {
    **{name: (0.0, 1.0) for name in METRIC_NAMES},
    "rating_mae": (0.0, 4.0),
    "conditioned_rating_mae": (0.0, 4.0),
    "coin_ess": (0.0, MAX_WEIGHT * COIN_TURNS),
    "type_ess": (0.0, MAX_WEIGHT * REC_TURNS),
}
COIN_METRICS = ("coin_mae", "coin_final_error", "coin_ess", "evidence_recall", "retrieval_recency")
REC_METRICS = (
    "rating_tvd",
    "type_tvd",
    "rating_mae",
    "conditioned_rating_mae",
    "p_true_type",
    "final_type_tvd",
    "type_ess",
    "evidence_recall",
    "retrieval_recency",
)
CONTROL_METRICS = ("coin_mae", "rating_tvd", "type_tvd", "within_tolerance")
#: probe ranges of the coin error-by-turn breakdown (the top-k cap shows as growth with t)
TURN_RANGES = ((0, 10), (11, 25), (26, 50), (51, 100))


def metric_value(record: Record, metric: str) -> float | None:
    """The episode's value of a per-episode metric (None where it does not apply)."""
    env, key = METRICS[metric]
    if env is not None and record.task != env:
        return None
    if metric == "within_tolerance":
        return None if record.correct is None else float(record.correct)
    if key is None:
        raise ValueError(f"{metric} is pooled over episodes, not an episode value")
    value = record.detail.get(key)
    return None if value is None else float(value)


def summarize(records: Sequence[Record], n_resamples: int) -> SuiteSummary:
    breakdown: dict[str, dict[str, Cell]] = {}
    for dimension, env, key, metrics in (
        ("coin_condition", COIN, "condition", COIN_METRICS),
        ("coin_theta", COIN, "truth", COIN_METRICS[:3]),
        ("rec_condition", RECOMMENDER, "condition", REC_METRICS),
        ("rec_type", RECOMMENDER, "truth", REC_METRICS[:5]),
    ):
        cells = _cells([r for r in records if r.task == env], key)
        if cells:
            breakdown[dimension] = {name: _cell(group, metrics, n_resamples) for name, group in cells.items()}
    coin = [r for r in records if r.task == COIN and r.strata["delivery"] != SINGLE_TURN]
    if coin:
        breakdown["coin_error_by_turn"] = _error_by_turn(coin, n_resamples)
    details = [r.answer_detail for r in records]
    through_memory = [r for r in records if r.strata["delivery"] != SINGLE_TURN]
    control = [r for r in records if r.strata["delivery"] == SINGLE_TURN]
    return SuiteSummary(
        metrics={name: metric_estimate(name, through_memory, n_resamples) for name in METRIC_NAMES},
        breakdown=breakdown,
        extra={
            # the memory-free control's metrics, their intervals checked as the run's are
            "control": {
                name: checked(metric_estimate(name, control, n_resamples), bounds=METRIC_BOUNDS[name]).to_json()
                for name in CONTROL_METRICS
            },
            "readouts": dict(sorted(Counter(str(d.get("readout")) for d in details).items())),
            "probe_every": sorted({d["probe_every"] for d in details if d.get("probe_every") is not None}),
            "flagged_probes": sum(int(r.detail.get("flagged_probes") or 0) for r in records),
            "tolerance": {"coin_mae": COIN_TOLERANCE, "recommender_tvd": REC_TOLERANCE},
        },
    )


def metric_estimate(name: str, records: Sequence[Record], n_resamples: int) -> Metric:
    if name in POOLED:
        env = METRICS[name][0]
        return pooled_ess([r for r in records if r.task == env], n_resamples)
    return estimate([metric_value(r, name) for r in records], records, n_resamples)


def estimate(values: Sequence[float | None], records: Sequence[Record], n_resamples: int) -> Metric:
    """Mean over the episodes that have a value, with its bootstrap CI and SEM."""
    pairs = [(v, r.cluster) for v, r in zip(values, records) if v is not None]
    if not pairs:
        return Metric(None, n=0)
    x = [v for v, _ in pairs]
    result = bootstrap_mean(x, [c for _, c in pairs], n_resamples=n_resamples, seed=0)
    return Metric(result.estimate, result.ci, len(x), sem=mean_sem(x).sem, n_clusters=result.n_clusters)


def _cells(records: Sequence[Record], key: str) -> dict[str, list[Record]]:
    cells: dict[str, list[Record]] = {}
    for record in records:
        cells.setdefault(record.strata[key], []).append(record)
    return dict(sorted(cells.items()))


def _cell(records: Sequence[Record], metrics: Sequence[str], n_resamples: int) -> Cell:
    estimates = {name: metric_estimate(name, records, n_resamples) for name in metrics}
    return Cell(len(records), {name: m for name, m in estimates.items() if m.value is not None})


def _error_by_turn(records: Sequence[Record], n_resamples: int) -> dict[str, Cell]:
    """Coin MAE over the probes of each turn range, averaged over the episodes through memory."""
    out = {}
    for low, high in TURN_RANGES:
        values = [_range_mean(r, low, high) for r in records]
        out[f"t{low}-{high}"] = Cell(len(records), {"coin_mae": estimate(values, records, n_resamples)})
    return out


def _range_mean(record: Record, low: int, high: int) -> float | None:
    errors = [p["error"] for p in record.detail.get("per_probe", ()) if low <= p["t"] <= high]
    return float(np.mean(errors)) if errors else None


def compare(a: Sequence[Record], b: Sequence[Record], n_resamples: int) -> dict[str, PairedMetric]:
    """Paired differences a - b per metric, over the episodes where both have a value (the
    pooled ESS metrics are not episode values and are not compared)."""
    out: dict[str, PairedMetric] = {}
    for name in METRIC_NAMES:
        if name in POOLED:
            continue
        out.update(_paired(name, a, b, partial(metric_value, metric=name), n_resamples))
    return out


def _paired(
    name: str, a: Sequence[Record], b: Sequence[Record], value: Callable[[Record], float | None], n_resamples: int
) -> dict[str, PairedMetric]:
    rows = [(value(ra), value(rb), ra.cluster) for ra, rb in zip(a, b)]
    rows = [(x, y, c) for x, y, c in rows if x is not None and y is not None]
    if not rows:
        return {}
    xs, ys, clusters = (list(column) for column in zip(*rows))
    return {name: compare_means(xs, ys, clusters, n_resamples)}
