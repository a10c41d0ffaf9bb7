"""Metrics of one (system, responder, k) run: success with Wilson intervals, failure-stage
shares, token cost, retrieval latency; and paired comparisons of two runs.

Every rate has a 95% Wilson interval (the paper's statistic). Persona-Retrieval's three
questions share an essay, so its intervals use the effective sample size n / deff, with
the design effect 1 + (m - 1) * ICC estimated from the essays; items of the other datasets
are their own clusters (deff = 1, the plain Wilson interval). Latencies are not metrics:
they differ from machine to machine and run to run, so they are reported beside them.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np

from ...stats import (
    cluster_bootstrap,
    compare_rates,
    design_effect,
    estimate_cell,
    icc_oneway,
    json_number,
    micro_mean,
    ratio,
    wilson_intervals,
)
from .attribution import STAGES
from .datasets import DATASETS

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


def clustered_wilson(outcomes: Sequence[bool], clusters: Sequence[str]) -> dict[str, Any]:
    """{"value", "ci"} of a rate, the Wilson interval at the design-effect-adjusted n."""
    y = np.asarray(outcomes, dtype=float)
    n = y.size
    if n == 0:
        return {"value": None, "ci": [None, None]}
    n_clusters = len(set(clusters))
    deff = 1.0
    if n_clusters < n:
        icc = icc_oneway(y, list(clusters))
        deff = design_effect(n / n_clusters, 1.0 if math.isnan(icc) else icc)
    lo, hi = wilson_intervals([y.sum() / deff], [n / deff])
    return estimate_cell(y.mean(), (lo[0], hi[0]))


def stage_of(record: Mapping[str, Any]) -> str:
    return (record.get("detail") or {}).get("stage", "unknown")


def summarize(records: Sequence[Mapping[str, Any]], n_resamples: int) -> dict[str, Any]:
    correct = [bool(r["correct"]) for r in records]
    clusters = [r["cluster"] for r in records]
    metrics: dict[str, Any] = {"success": clustered_wilson(correct, clusters)}
    by_dataset = _group(records, "dataset")
    for d in DATASETS:
        if d.name in by_dataset:
            group = by_dataset[d.name]
            metrics[f"success_{d.name}"] = clustered_wilson([bool(r["correct"]) for r in group], [r["cluster"] for r in group])
    for stage in FAILURE_STAGES:
        metrics[f"share_{stage}"] = clustered_wilson([stage_of(r) == stage for r in records], clusters)
    metrics.update(_tokens(records, n_resamples))
    breakdown: dict[str, Any] = {}
    for name, key in BREAKDOWNS:
        cells = _group(records, key)
        if cells:
            breakdown[name] = {
                cell: {"n": len(group), "success": clustered_wilson([bool(r["correct"]) for r in group], [r["cluster"] for r in group])}
                for cell, group in sorted(cells.items())
            }
    failures = {
        stage: {"n": sum(stage_of(r) == stage for r in records), "share": metrics[f"share_{stage}"]}
        for stage in FAILURE_STAGES
        if any(stage_of(r) == stage for r in records)
    }
    if failures:
        breakdown["failure_stage"] = failures
    return {
        "metrics": metrics,
        "breakdown": breakdown,
        "stages": {name: _shares(group) for name, group in by_dataset.items()},
        "latency_ms": {"retrieve": _percentiles(records, "retrieve_ms"), "answer": _percentiles(records, "answer_ms")},
    }


def _group(records: Sequence[Mapping[str, Any]], key: str) -> dict[str, list[Mapping[str, Any]]]:
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for record in records:
        value = record["strata"].get(key)
        if value is not None:
            groups.setdefault(value, []).append(record)
    return groups


def _shares(records: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Share of each stage label (correct included) among a dataset's questions."""
    return {stage: json_number(sum(stage_of(r) == stage for r in records) / len(records)) for stage in STAGES}


def _tokens(records: Sequence[Mapping[str, Any]], n_resamples: int) -> dict[str, Any]:
    columns = {
        "tokens": [float(r.get("retrieved_tokens") or 0) for r in records],
        "memories": [float(r.get("n_memories") or 0) for r in records],
    }
    per_memory = lambda sums: ratio(sums["tokens"].sum(-1), sums["memories"].sum(-1))  # noqa: E731
    results = cluster_bootstrap(
        {"tokens_per_memory": per_memory, "tokens_per_question": micro_mean("tokens")},
        columns,
        [r["cluster"] for r in records],
        n_resamples=n_resamples,
        seed=0,
    )
    return {name: estimate_cell(r.estimate, r.ci) for name, r in results.items()}


def _percentiles(records: Sequence[Mapping[str, Any]], field: str) -> dict[str, float | None]:
    values = [float(r[field]) for r in records if r.get(field) is not None]
    if not values:
        return {"p50": None, "p95": None}
    p50, p95 = np.percentile(values, [50, 95])
    return {"p50": round(float(p50), 3), "p95": round(float(p95), 3)}




def compare(a: Sequence[Mapping[str, Any]], b: Sequence[Mapping[str, Any]], n_resamples: int) -> dict[str, dict[str, Any]]:
    """Paired differences a - b of success, overall and per dataset: the cluster sign-flip
    test and the interval that inverts it (McNemar's test where every cluster is one item)."""
    out = {"success": _paired(a, b, n_resamples)}
    for d in DATASETS:
        pairs = [(x, y) for x, y in zip(a, b) if x["strata"].get("dataset") == d.name]
        if len(pairs) >= 2:
            out[f"success_{d.name}"] = _paired([x for x, _ in pairs], [y for _, y in pairs], n_resamples)
    return out


def _paired(a: Sequence[Mapping[str, Any]], b: Sequence[Mapping[str, Any]], n_resamples: int) -> dict[str, Any]:
    correct_a = [bool(r["correct"]) for r in a]
    correct_b = [bool(r["correct"]) for r in b]
    return compare_rates(correct_a, correct_b, [r["cluster"] for r in a], n_resamples)