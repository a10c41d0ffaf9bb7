"""Metrics of one run: BEAM's score per ability and overall, with intervals clustered by conversation.

- per ability (the breakdown's `ability` cells, report_results.py's columns): the mean of
  its questions' scores (llm_judge_score; event ordering: tau_norm, or tau_norm x F1 under
  the corrected scoring). report_results.py averages each conversation's mean over the
  conversations; with the release's 2 questions per ability and conversation this is the
  same number when every item is scored;
- `score`: the mean of the ability means (the code computes no overall number; the paper's
  overall is taken to be this);
- `evidence_recall`: the share of a question's source messages among the retrieved
  memories' sources, over the questions that have sources; n/a for memory systems that
  keep no provenance.

Intervals are percentile bootstraps that resample conversations; paired comparisons use
the same resamples for both runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from pytest_memeval.results.records import Cell, PairedMetric, Record, SuiteSummary
from pytest_memeval.results.records import Metric as MetricValue
from pytest_memeval.stats import (
    bootstrap_cell,
    cluster_bootstrap,
    minimum_detectable_effect,
    paired_cell,
    paired_cluster_bootstrap,
)
from pytest_memeval.stats.estimators import Estimator, macro_mean, ratio

from .released import ABILITIES

METRIC_NAMES = ("score", "evidence_recall")


def _recall(record: Record) -> float | None:
    value = record.detail.get("evidence_recall")
    return float(value) if isinstance(value, (int, float)) else None


def columns(records: Sequence[Record]) -> dict[str, list[float]]:
    recall = [_recall(r) for r in records]
    return {
        "score": [float(r.score or 0.0) for r in records],
        "recall": [0.0 if x is None else x for x in recall],
        "has_recall": [float(x is not None) for x in recall],
    }


def groups(records: Sequence[Record]) -> list[int]:
    return [ABILITIES.index(r.strata["ability"]) for r in records]


def estimators(with_recall: bool) -> dict[str, Estimator]:
    metrics: dict[str, Estimator] = {"score": macro_mean("score")}
    if with_recall:
        metrics["evidence_recall"] = lambda s: ratio(s["recall"].sum(-1), s["has_recall"].sum(-1))
    return metrics


def _estimates(records: Sequence[Record], n_resamples: int) -> dict[str, MetricValue]:
    with_recall = sum(_recall(r) is not None for r in records)
    results = cluster_bootstrap(
        estimators(with_recall > 0),
        columns(records),
        [r.cluster for r in records],
        groups(records),
        n_resamples=n_resamples,
        seed=0,
    )
    return {
        name: bootstrap_cell(result, with_recall if name == "evidence_recall" else len(records))
        for name, result in results.items()
    }


def summarize(records: Sequence[Record], n_resamples: int) -> SuiteSummary:
    def cells(key: Callable[[Record], str]) -> dict[str, Cell]:
        grouped: dict[str, list[Record]] = {}
        for r in records:
            grouped.setdefault(key(r), []).append(r)
        return {name: Cell(len(g), _estimates(g, n_resamples)) for name, g in sorted(grouped.items())}

    breakdown = {"ability": cells(lambda r: r.strata["ability"]), "scale": cells(lambda r: r.strata["scale"])}
    scorers = sorted({str(r.detail.get("scorer")) for r in records})
    extra: dict[str, Any] = {
        "scale": "0-1; 95% bootstrap intervals resample conversations",
        "n_conversations": len({r.cluster for r in records}),
        "scorers": scorers,
    }
    notes = []
    if "offline" in scorers:
        notes.append("offline judge: the rubric's texts looked up in the answer, not the official LLM judge")
    if records and not any(_recall(r) is not None for r in records):
        notes.append("evidence_recall n/a: the memory system keeps no provenance (keeps_sources)")
    return SuiteSummary(
        metrics=_estimates(records, n_resamples) if records else {},
        breakdown={k: v for k, v in breakdown.items() if v},
        note="; ".join(notes),
        extra=extra,
    )


def compare(a: Sequence[Record], b: Sequence[Record], n_resamples: int) -> Mapping[str, PairedMetric]:
    """Paired cluster bootstrap of a - b, items aligned; evidence recall only where both
    systems keep provenance."""
    recall_a, recall_b = [_recall(r) for r in a], [_recall(r) for r in b]
    both = any(x is not None for x in recall_a) and any(x is not None for x in recall_b)
    clusters = [r.cluster for r in a]
    columns_a, columns_b = columns(a), columns(b)
    results = paired_cluster_bootstrap(
        estimators(both), columns_a, columns_b, clusters, groups(a), n_resamples=n_resamples, seed=0
    )
    out = {}
    for name, result in results.items():
        if name == "evidence_recall":
            kept = np.array([x is not None and y is not None for x, y in zip(recall_a, recall_b)], dtype=bool)
            diff = np.array(columns_a["recall"]) - np.array(columns_b["recall"])
        else:
            kept = np.ones(len(a), dtype=bool)
            diff = np.array(columns_a["score"]) - np.array(columns_b["score"])
        mde = minimum_detectable_effect(diff[kept], np.asarray(clusters)[kept]).mde if kept.sum() >= 2 else None
        out[name] = paired_cell(result, mde)
    return out
