"""The metrics print_qa_metrics.py prints, with intervals, and retrieval recall beside them.

    accuracy by question type   an abstention question counts in its own type too
    task_averaged_accuracy      the mean of the types' accuracies
    overall_accuracy            the share of all questions answered correctly
    abstention_accuracy         the share of abstention questions (ids with _abs) correct
    session_recall_all          judge.py: recall over the questions it applies to
    turn_recall_all

Every question is its own context and its own cluster. The two shares of questions
(overall and abstention accuracy, and each type's accuracy) have 95% Wilson intervals at
the design-effect-adjusted n, which stay honest at 0% and 100% (a percentile bootstrap of
16 correct answers out of 16 is [1, 1]); the other metrics have the cluster bootstrap's
percentile interval, resampled within question types so that the task average keeps every
type. A run that covers fewer than the six types averages the types it has, and its note
says so.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pytest_memeval.results.records import Cell, Metric, PairedMetric, Record, SuiteSummary
from pytest_memeval.stats import (
    bootstrap_cell,
    cluster_bootstrap,
    clustered_wilson,
    compare_means,
    compare_rates,
    minimum_detectable_effect,
    paired_cell,
    paired_cluster_bootstrap,
)
from pytest_memeval.stats.estimators import Estimator, mean_over_groups, ratio

from .judge import NOT_AVAILABLE
from .released import QUESTION_TYPES

RECALLS = ("session_recall_all", "turn_recall_all")
HEADLINE = ("overall_accuracy", "task_averaged_accuracy", "abstention_accuracy")
METRIC_NAMES = (*HEADLINE, *RECALLS)


def _columns(records: Sequence[Record]) -> dict[str, list[float]]:
    correct = [float(bool(r.correct)) for r in records]
    abstention = [float(r.strata["abstention"] == "yes") for r in records]
    columns = {
        "correct": correct,
        "abstention": abstention,
        "abstention_correct": [c * a for c, a in zip(correct, abstention)],
    }
    for name in RECALLS:
        values = [r.detail.get(name) for r in records]
        columns[name] = [float(v) if isinstance(v, (int, float)) else 0.0 for v in values]
        columns[f"has_{name}"] = [float(isinstance(v, (int, float))) for v in values]
    return columns


def _metrics() -> dict[str, Estimator]:
    """The metrics the cluster bootstrap estimates (the shares of questions have Wilson's)."""
    metrics: dict[str, Estimator] = {
        "task_averaged_accuracy": lambda s: mean_over_groups(ratio(s["correct"], s["n"])),
        "abstention_accuracy": lambda s: ratio(s["abstention_correct"].sum(-1), s["abstention"].sum(-1)),
    }
    for name in RECALLS:
        metrics[name] = _share(name)
    return metrics


def _share(column: str) -> Estimator:
    """The mean of `column` over the items that have it."""
    return lambda s: ratio(s[column].sum(-1), s[f"has_{column}"].sum(-1))


def _bootstrap(records: Sequence[Record], names: Sequence[str], n_resamples: int) -> dict[str, Metric]:
    """The metrics `names` with their intervals: Wilson's for the shares of questions, the
    cluster bootstrap's (one set of resamples) for the others."""
    shares, columns = _shares(records), _columns(records)
    results = cluster_bootstrap(
        {name: metric for name, metric in _metrics().items() if name in names and name not in shares},
        columns,
        [r.cluster for r in records],
        [r.strata["question_type"] for r in records],
        n_resamples=n_resamples,
        seed=0,
    )
    counts = {"task_averaged_accuracy": len(records), **{name: int(sum(columns[f"has_{name}"])) for name in RECALLS}}
    cells = {}
    for name in names:
        if name in shares:
            chosen = shares[name]
            cells[name] = clustered_wilson([bool(r.correct) for r in chosen], [r.cluster for r in chosen])
        else:
            cells[name] = bootstrap_cell(results[name], counts[name])
    return cells


def _shares(records: Sequence[Record]) -> dict[str, list[Record]]:
    """The metrics that are a share of correct questions, with the questions they count."""
    return {
        "overall_accuracy": list(records),
        "abstention_accuracy": [r for r in records if r.strata["abstention"] == "yes"],
    }


def summarize(records: Sequence[Record], n_resamples: int) -> SuiteSummary:
    if not records:
        return SuiteSummary(metrics={})
    head = _bootstrap(records, METRIC_NAMES, n_resamples)
    by_type: dict[str, list[Record]] = {}
    for r in records:
        by_type.setdefault(r.strata["question_type"], []).append(r)
    breakdown = {
        "question_type": {
            t: Cell(len(by_type[t]), _type_cell(by_type[t], n_resamples)) for t in QUESTION_TYPES if t in by_type
        }
    }
    types = [t for t in QUESTION_TYPES if t in by_type]
    return SuiteSummary(
        metrics=head,
        breakdown=breakdown,
        note="; ".join(_notes(records, types)),
        extra={
            "question_types": {t: len(by_type[t]) for t in types},
            "scorers": sorted({str(r.detail.get("scorer", "")) for r in records}),
        },
    )


def _type_cell(records: Sequence[Record], n_resamples: int) -> dict[str, Metric]:
    cell = _bootstrap(records, ("overall_accuracy", *RECALLS), n_resamples)
    return {"accuracy": cell.pop("overall_accuracy"), **cell}


def _notes(records: Sequence[Record], types: Sequence[str]) -> list[str]:
    notes = []
    scorers = {r.detail.get("scorer") for r in records}
    if "offline" in scorers:
        notes.append(
            "graded offline by containment of the released answer, not by the official judge "
            "(--memeval-judge=default grades as evaluate_qa.py does, with gpt-4o-2024-08-06)"
        )
    if len(types) < len(QUESTION_TYPES):
        notes.append(f"task_averaged_accuracy averages the {len(types)} question types present, not all six")
    if any(r.detail.get("recall") == NOT_AVAILABLE for r in records):
        notes.append("recall not available: the memory system keeps no sources (it names no turn it returned)")
    return notes


def compare(a: Sequence[Record], b: Sequence[Record], n_resamples: int) -> dict[str, PairedMetric]:
    """Paired differences a - b, items aligned: overall accuracy by the cluster sign-flip test
    (McNemar's with one item per cluster), the task average and abstention accuracy by the
    paired cluster bootstrap, recall where both systems name their sources."""
    clusters = [r.cluster for r in a]
    out: dict[str, PairedMetric] = {
        "overall_accuracy": compare_rates(
            [bool(r.correct) for r in a], [bool(r.correct) for r in b], clusters, n_resamples
        )
    }
    columns_a, columns_b = _columns(a), _columns(b)
    kept = ("correct", "abstention", "abstention_correct")
    results = paired_cluster_bootstrap(
        {name: _metrics()[name] for name in ("task_averaged_accuracy", "abstention_accuracy")},
        {c: columns_a[c] for c in kept},
        {c: columns_b[c] for c in kept},
        clusters,
        [r.strata["question_type"] for r in a],
        n_resamples=n_resamples,
        seed=0,
    )
    difference = np.array(columns_a["correct"]) - np.array(columns_b["correct"])
    masks = {
        "task_averaged_accuracy": np.ones(len(a), bool),
        "abstention_accuracy": np.array(columns_a["abstention"]) > 0,
    }
    for name, result in results.items():
        if np.isnan(result.estimate_a):
            continue
        mask = masks[name]
        mde = minimum_detectable_effect(difference[mask], np.asarray(clusters)[mask]).mde if mask.sum() >= 2 else None
        out[name] = paired_cell(result, mde)
    for name in RECALLS:
        both = [i for i in range(len(a)) if columns_a[f"has_{name}"][i] and columns_b[f"has_{name}"][i]]
        if len(both) >= 2:
            out[name] = compare_means(
                [columns_a[name][i] for i in both],
                [columns_b[name][i] for i in both],
                [clusters[i] for i in both],
                n_resamples,
            )
    return out
