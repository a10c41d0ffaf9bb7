"""The paper's metrics for one (system, responder) run, with persona-cluster bootstrap CIs.

Macro accuracy (answer recorded before abstaining), micro coverage, macro selective
accuracy and F0.5 (App. C.3), each with a 95% percentile bootstrap over seed x persona
clusters (B from --memeval-bootstrap, seed 0), overall and by reasoning type, difficulty
and type x difficulty.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_memeval.results.records import Cell, Metric, PairedMetric, Record, SuiteSummary
from pytest_memeval.stats import (
    bootstrap_cell,
    bootstrap_multisource,
    minimum_detectable_effect_binary,
    paired_bootstrap_multisource,
    paired_cell,
)

METRIC_NAMES = {
    "accuracy": "accuracy",
    "coverage": "coverage",
    "selective_accuracy": "selective_accuracy",
    "f0.5": "f05",
}
BREAKDOWNS = (("type", ("type",)), ("difficulty", ("difficulty",)), ("type_x_difficulty", ("type", "difficulty")))


def summarize(records: Sequence[Record], n_resamples: int) -> SuiteSummary:
    breakdown = {}
    for name, keys in BREAKDOWNS:
        cells: dict[str, list[Record]] = {}
        for record in records:
            cells.setdefault(" x ".join(record.strata[k] for k in keys), []).append(record)
        breakdown[name] = {
            cell: Cell(len(group), _metrics(group, n_resamples)) for cell, group in sorted(cells.items())
        }
    unreachable = sum(1 for r in records if r.detail.get("source_unreachable"))
    return SuiteSummary(
        metrics=_metrics(records, n_resamples),
        breakdown=breakdown,
        extra={"source_reachability": 1 - unreachable / len(records)},
    )


def _metrics(records: Sequence[Record], n_resamples: int) -> dict[str, Metric]:
    results = bootstrap_multisource(
        correct=[bool(r.correct) for r in records],
        answered=[not r.abstained for r in records],
        clusters=[r.cluster for r in records],
        groups=[r.task for r in records],
        n_resamples=n_resamples,
        seed=0,
    )
    return {METRIC_NAMES[name]: bootstrap_cell(result, len(records)) for name, result in results.items()}


def compare(a: Sequence[Record], b: Sequence[Record], n_resamples: int) -> dict[str, PairedMetric]:
    """Paired cluster bootstrap of the four metrics, a minus b, on items aligned one to one.

    The macro metrics are not binary per item, so the bootstrap gives both the interval
    and the p-value; the MDE is that of the per-item outcome each metric averages.
    """
    clusters = [r.cluster for r in a]
    correct_a, correct_b = [bool(r.correct) for r in a], [bool(r.correct) for r in b]
    answered_a, answered_b = [not r.abstained for r in a], [not r.abstained for r in b]
    results = paired_bootstrap_multisource(
        correct_a, answered_a, correct_b, answered_b, clusters, [r.task for r in a], n_resamples=n_resamples, seed=0
    )
    mde_correct = minimum_detectable_effect_binary(correct_a, correct_b, clusters).mde
    mde_answered = minimum_detectable_effect_binary(answered_a, answered_b, clusters).mde
    return {
        METRIC_NAMES[name]: paired_cell(result, mde_answered if name == "coverage" else mde_correct)
        for name, result in results.items()
    }
