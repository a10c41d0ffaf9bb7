"""Metrics of one (system, responder, k) run: success with Wilson intervals, failure-stage
shares, token cost, retrieval latency; and paired comparisons of two runs.

Every rate has a 95% Wilson interval (the paper's statistic). Persona-Retrieval's three
questions share an essay, so its intervals use the effective sample size n / deff, with
the design effect 1 + (m - 1) * ICC estimated from the essays; items of the other datasets
are their own clusters (deff = 1, the plain Wilson interval). Latencies are not metrics:
they differ from machine to machine and run to run, so they are reported beside them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pytest_memeval.results.records import Cell, Metric, PairedMetric, Record, SuiteSummary
from pytest_memeval.stats import (
    bootstrap_cell,
    cluster_bootstrap,
    clustered_wilson,
    compare_rates,
    json_number,
    micro_mean,
    ratio,
)

from .attribution import STAGES
from .datasets import DATASETS
from .release_build import GOLD_DISAGREES

FAILURE_STAGES = tuple(s for s in STAGES if s != "correct")
METRIC_NAMES = (
    "success",
    *(f"success_{d.name}" for d in DATASETS),
    *(f"share_{s}" for s in FAILURE_STAGES),
    "tokens_per_memory",
    "tokens_per_question",
)
#: breakdown dimensions: (name, stratum key)
BREAKDOWNS = (
    ("dataset", "dataset"),
    ("condition_type", "condition_type"),
    ("condition_met", "condition_met"),
    ("n_facts", "n_facts"),
    ("hops", "hops"),
    ("misleading", "misleading"),
    ("update_kind", "update_kind"),
)


def stage_of(record: Record) -> str:
    return record.stage or "unknown"


def summarize(records: Sequence[Record], n_resamples: int) -> SuiteSummary:
    correct = [bool(r.correct) for r in records]
    clusters = [r.cluster for r in records]
    metrics: dict[str, Metric] = {"success": clustered_wilson(correct, clusters)}
    by_dataset = _group(records, "dataset")
    for d in DATASETS:
        if d.name in by_dataset:
            group = by_dataset[d.name]
            metrics[f"success_{d.name}"] = clustered_wilson(
                [bool(r.correct) for r in group], [r.cluster for r in group]
            )
    for stage in FAILURE_STAGES:
        metrics[f"share_{stage}"] = clustered_wilson([stage_of(r) == stage for r in records], clusters)
    metrics.update(_tokens(records, n_resamples))
    breakdown: dict[str, dict[str, Cell]] = {}
    for name, key in BREAKDOWNS:
        cells = _group(records, key)
        if cells:
            breakdown[name] = {
                cell: Cell(
                    len(group),
                    {"success": clustered_wilson([bool(r.correct) for r in group], [r.cluster for r in group])},
                )
                for cell, group in sorted(cells.items())
            }
    failures = {
        stage: Cell(sum(stage_of(r) == stage for r in records), {"share": metrics[f"share_{stage}"]})
        for stage in FAILURE_STAGES
        if any(stage_of(r) == stage for r in records)
    }
    if failures:
        breakdown["failure_stage"] = failures
    return SuiteSummary(
        metrics=metrics,
        breakdown=breakdown,
        note=_disagreement_note(records),
        extra={
            "stages": {name: _shares(group) for name, group in by_dataset.items()},
            "latency_ms": {
                "retrieve": _percentiles([r.retrieve_ms for r in records]),
                "answer": _percentiles([r.answer_ms for r in records]),
            },
        },
    )


def _disagreement_note(records: Sequence[Record]) -> str:
    """The release rows graded by their ground_truth_answer where condition_met says otherwise."""
    rows = sorted({r.id.split("-", 2)[-1] for r in records if r.strata.get(GOLD_DISAGREES) == "yes"})
    if not rows:
        return ""
    return f"graded by ground_truth_answer where the release's condition_met disagrees: {', '.join(rows)}"


def _group(records: Sequence[Record], key: str) -> dict[str, list[Record]]:
    groups: dict[str, list[Record]] = {}
    for record in records:
        value = record.strata.get(key)
        if value is not None:
            groups.setdefault(value, []).append(record)
    return groups


def _shares(records: Sequence[Record]) -> dict[str, float | None]:
    """Share of each stage label (correct included) among a dataset's questions."""
    return {stage: json_number(sum(stage_of(r) == stage for r in records) / len(records)) for stage in STAGES}


def _tokens(records: Sequence[Record], n_resamples: int) -> dict[str, Metric]:
    columns = {
        "tokens": [float(r.retrieved_tokens) for r in records],
        "memories": [float(r.n_memories) for r in records],
    }
    per_memory = lambda sums: ratio(sums["tokens"].sum(-1), sums["memories"].sum(-1))  # noqa: E731
    results = cluster_bootstrap(
        {"tokens_per_memory": per_memory, "tokens_per_question": micro_mean("tokens")},
        columns,
        [r.cluster for r in records],
        n_resamples=n_resamples,
        seed=0,
    )
    return {name: bootstrap_cell(r, len(records)) for name, r in results.items()}


def _percentiles(milliseconds: Sequence[float | None]) -> dict[str, float | None]:
    values = [float(v) for v in milliseconds if v is not None]
    if not values:
        return {"p50": None, "p95": None}
    p50, p95 = np.percentile(values, [50, 95])
    return {"p50": round(float(p50), 3), "p95": round(float(p95), 3)}


def compare(a: Sequence[Record], b: Sequence[Record], n_resamples: int) -> dict[str, PairedMetric]:
    """Paired differences a - b of success, overall and per dataset: the cluster sign-flip
    test and the interval that inverts it (McNemar's test where every cluster is one item)."""
    out = {"success": _paired(a, b, n_resamples)}
    for d in DATASETS:
        pairs = [(x, y) for x, y in zip(a, b) if x.strata.get("dataset") == d.name]
        if len(pairs) >= 2:
            out[f"success_{d.name}"] = _paired([x for x, _ in pairs], [y for _, y in pairs], n_resamples)
    return out


def _paired(a: Sequence[Record], b: Sequence[Record], n_resamples: int) -> PairedMetric:
    correct_a = [bool(r.correct) for r in a]
    correct_b = [bool(r.correct) for r in b]
    return compare_rates(correct_a, correct_b, [r.cluster for r in a], n_resamples)
