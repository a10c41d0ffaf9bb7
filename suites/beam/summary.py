"""Metrics of one run: BEAM's score per ability and overall, with intervals clustered by conversation.

- per ability (the breakdown's `ability` cells, report_results.py's columns): the mean of
  its questions' scores (llm_judge_score; event ordering: tau_norm, or tau_norm x F1 under
  the corrected scoring). report_results.py averages each conversation's mean over the
  conversations; with the release's 2 questions per ability and conversation this is the
  same number when every item is scored;
- `score`: the mean of the ability means (the code computes no overall number; the paper's
  overall is taken to be this).

The retrieval metrics (recall@k, NDCG@k, MRR on each question's source messages) are the
plugin's. Intervals are percentile bootstraps that resample conversations; paired
comparisons use the same resamples for both runs.
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
from pytest_memeval.stats.estimators import macro_mean

from .released import ABILITIES

METRIC_NAMES = ("score",)
ESTIMATORS = {"score": macro_mean("score")}


def _columns(records: Sequence[Record]) -> dict[str, list[float]]:
    return {"score": [float(r.score or 0.0) for r in records]}


def _groups(records: Sequence[Record]) -> list[int]:
    return [ABILITIES.index(r.strata["ability"]) for r in records]


def _estimates(records: Sequence[Record], n_resamples: int) -> dict[str, MetricValue]:
    results = cluster_bootstrap(
        ESTIMATORS, _columns(records), [r.cluster for r in records], _groups(records), n_resamples=n_resamples, seed=0
    )
    return {name: bootstrap_cell(result, len(records)) for name, result in results.items()}


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
    note = "offline judge: the rubric's texts looked up in the answer, not the official LLM judge"
    return SuiteSummary(
        metrics=_estimates(records, n_resamples) if records else {},
        breakdown={k: v for k, v in breakdown.items() if v},
        note=note if "offline" in scorers else "",
        extra=extra,
    )


def compare(a: Sequence[Record], b: Sequence[Record], n_resamples: int) -> Mapping[str, PairedMetric]:
    """Paired cluster bootstrap of a - b, items aligned."""
    clusters = [r.cluster for r in a]
    results = paired_cluster_bootstrap(
        ESTIMATORS, _columns(a), _columns(b), clusters, _groups(a), n_resamples=n_resamples, seed=0
    )
    diff = np.array(_columns(a)["score"]) - np.array(_columns(b)["score"])
    mde = minimum_detectable_effect(diff, np.asarray(clusters)).mde if len(a) >= 2 else None
    return {name: paired_cell(result, mde) for name, result in results.items()}
