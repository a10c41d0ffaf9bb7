"""Metrics of one run, per category and overall, with intervals clustered by conversation.

Each metric is the mean over items on 0-100, as the papers print them:

- `f1`: the official F1 of `task_eval/evaluation.py` (the LoCoMo paper's);
- `bleu1`, `mem0_f1`: BLEU-1 and Mem0's own F1 (the Mem0 paper's tables);
- `j`: Mem0's LLM judge, only where every item was judged (`--memeval-judge`);
- `evidence_recall`: the share of evidence turns the retrieved memories came from, over
  the items that have evidence; n/a (None) for memory systems that keep no provenance.

Intervals are percentile bootstraps that resample conversations (one cluster each); the
per-conversation cells resample items. Paired comparisons use the same resamples for both
systems.
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
from pytest_memeval.stats.estimators import GroupSums, ratio

MetricFn = Callable[[GroupSums], np.ndarray]
SCORES = ("f1", "bleu1", "mem0_f1", "j")
METRICS = (*SCORES, "evidence_recall")


def judged(records: Sequence[Record]) -> bool:
    return bool(records) and all(r.detail.get("j") is not None for r in records)


def columns(records: Sequence[Record]) -> dict[str, list[float]]:
    recall = [r.detail.get("evidence_recall") for r in records]
    out = {name: [100.0 * float(r.detail.get(name) or 0.0) for r in records] for name in SCORES}
    out["recall"] = [0.0 if x is None else 100.0 * x for x in recall]
    out["has_recall"] = [float(x is not None) for x in recall]
    return out


def metric_functions(with_j: bool) -> dict[str, MetricFn]:
    def mean(column: str) -> MetricFn:
        return lambda s: ratio(s[column].sum(-1), s["n"].sum(-1))

    metrics = {name: mean(name) for name in SCORES if name != "j" or with_j}
    metrics["evidence_recall"] = lambda s: ratio(s["recall"].sum(-1), s["has_recall"].sum(-1))
    return metrics


def _estimates(records: Sequence[Record], n_resamples: int, clustered: bool = True) -> dict[str, MetricValue]:
    results = cluster_bootstrap(
        metric_functions(judged(records)),
        columns(records),
        [r.cluster for r in records] if clustered else None,
        n_resamples=n_resamples,
        seed=0,
    )
    with_recall = sum(r.detail.get("evidence_recall") is not None for r in records)
    return {
        name: bootstrap_cell(result, with_recall if name == "evidence_recall" else len(records))
        for name, result in results.items()
    }


def summarize(records: Sequence[Record], n_resamples: int) -> SuiteSummary:
    def cells(key: Callable[[Record], str], clustered: bool) -> dict[str, Cell]:
        groups: dict[str, list[Record]] = {}
        for r in records:
            groups.setdefault(key(r), []).append(r)
        return {name: Cell(len(g), _estimates(g, n_resamples, clustered)) for name, g in sorted(groups.items())}

    breakdown = {
        "category": cells(lambda r: r.strata["category_name"], clustered=True),
        # one conversation is one cluster: its interval resamples the conversation's items
        "conversation": cells(lambda r: r.strata["conversation"], clustered=False),
    }
    tokenizers = sorted({str(r.detail.get("bleu_tokenizer")) for r in records})
    extra: dict[str, Any] = {
        "scale": "0-100; 95% bootstrap intervals resample conversations",
        "n_conversations": len({r.cluster for r in records}),
        "bleu_tokenizer": tokenizers,
        "provenance": any(r.detail.get("provenance") for r in records),
    }
    templates = sorted({str(r.detail["j_template"]) for r in records if r.detail.get("j_template")})
    if templates:
        extra["j_templates"] = templates
    return SuiteSummary(
        metrics=_estimates(records, n_resamples) if records else {},
        breakdown={k: v for k, v in breakdown.items() if v},
        note="; ".join(_notes(records, tokenizers)),
        extra=extra,
    )


def _notes(records: Sequence[Record], tokenizers: Sequence[str]) -> list[str]:
    notes = ["f1 is the official LoCoMo F1; bleu1, mem0_f1 and j as the Mem0 paper computes them"]
    if records and not judged(records):
        notes.append("j needs an LLM judge: --memeval-judge=default (gpt-4o-mini, the Mem0 paper's)")
    if records and not any(r.detail.get("provenance") for r in records):
        notes.append("evidence_recall n/a: the memory system keeps no provenance (keeps_sources)")
    if "treebank" in tokenizers:
        notes.append(
            "bleu1 tokenised without nltk's punkt_tab tables (answers read as one sentence); "
            "python -m nltk.downloader punkt_tab gives Mem0's tokenisation"
        )
    return notes


def compare(a: Sequence[Record], b: Sequence[Record], n_resamples: int) -> Mapping[str, PairedMetric]:
    """Paired cluster bootstrap of a - b, items aligned; j only where both runs were judged,
    evidence recall only where both systems keep provenance."""
    with_j = judged(a) and judged(b)
    metrics = metric_functions(with_j)
    recall_a = [r.detail.get("evidence_recall") for r in a]
    recall_b = [r.detail.get("evidence_recall") for r in b]
    if all(x is None for x in recall_a) or all(x is None for x in recall_b):
        metrics.pop("evidence_recall")
    clusters = [r.cluster for r in a]
    columns_a, columns_b = columns(a), columns(b)
    results = paired_cluster_bootstrap(metrics, columns_a, columns_b, clusters, n_resamples=n_resamples, seed=0)
    out = {}
    for name, result in results.items():
        if name == "evidence_recall":
            kept = [x is not None and y is not None for x, y in zip(recall_a, recall_b)]
            diff = np.array(columns_a["recall"]) - np.array(columns_b["recall"])
        else:
            kept = [True] * len(a)
            diff = np.array(columns_a[name]) - np.array(columns_b[name])
        mask = np.array(kept, dtype=bool)
        mde = minimum_detectable_effect(diff[mask], np.asarray(clusters)[mask]).mde if mask.sum() >= 2 else None
        out[name] = paired_cell(result, mde)
    return out
