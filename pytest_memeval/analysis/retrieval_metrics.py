"""Recall@k, NDCG@k and MRR of a run, from its records' retrieval scores (docs/statistics.md,
"Retrieval metrics"), overall and per stratum, beside the share of memories mapped through
provenance.

Each metric is the mean over the items whose suite declares evidence; its interval is a
percentile cluster bootstrap over the run's clusters (`Record.cluster`, as the suite
clusters its own metrics); `memories_mapped` is the share of all returned memories whose
mapping came from the adapter's provenance (`Memory.sources`), a ratio over the same
resamples. Every interval then goes through stats.estimability, as the suite's own do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from msgspec.structs import replace

from ..results.records import Cell, Metric, Record, SuiteSummary
from ..stats import bootstrap_cell, cluster_bootstrap, micro_mean, ratio
from ..stats.estimators import GroupSums

#: the prefix of the breakdown dimensions these metrics add, one per stratum of the items
DIMENSION = "retrieval by "


def _mapped(sums: GroupSums) -> np.ndarray:
    return ratio(sums["by_sources"].sum(axis=-1), sums["memories"].sum(axis=-1))


def retrieval_metrics(records: Sequence[Record], n_resamples: int) -> dict[str, Metric]:
    """The four metrics over the records that carry a retrieval score ({} when none does)."""
    scored = [r for r in records if r.retrieval is not None]
    if not scored:
        return {}
    scores = [r.retrieval for r in scored if r.retrieval is not None]
    columns = {
        "recall": [s.recall for s in scores],
        "ndcg": [s.ndcg for s in scores],
        "rr": [s.reciprocal_rank for s in scores],
        "by_sources": [float(s.by_sources) for s in scores],
        "memories": [float(s.memories) for s in scores],
    }
    estimators = {
        "recall_at_k": micro_mean("recall"),
        "ndcg_at_k": micro_mean("ndcg"),
        "mrr": micro_mean("rr"),
        "memories_mapped": _mapped,
    }
    results = cluster_bootstrap(estimators, columns, [r.cluster for r in scored], n_resamples=n_resamples, seed=0)
    memories = sum(s.memories for s in scores)
    return {
        name: bootstrap_cell(result, memories if name == "memories_mapped" else len(scored))
        for name, result in results.items()
    }


def strata_groups(records: Sequence[Record]) -> dict[str, dict[str, list[Record]]]:
    """The records by each stratum's value; a stratum that groups them as an earlier one
    does (locomo's category and its name) is left out."""
    found: dict[str, dict[str, list[Record]]] = {}
    seen: set[frozenset[tuple[int, ...]]] = set()
    for stratum in dict.fromkeys(s for r in records for s in r.strata):
        groups: dict[str, list[Record]] = {}
        positions: dict[str, list[int]] = {}
        for position, record in enumerate(records):
            if stratum in record.strata:
                groups.setdefault(record.strata[stratum], []).append(record)
                positions.setdefault(record.strata[stratum], []).append(position)
        partition = frozenset(tuple(p) for p in positions.values())
        if partition not in seen:
            seen.add(partition)
            found[stratum] = groups
    return found


def with_retrieval(summary: SuiteSummary, records: Sequence[Record], n_resamples: int) -> SuiteSummary:
    """`summary` with the retrieval metrics added to its metrics, and a breakdown dimension
    "retrieval by <stratum>" per stratum of the items; unchanged when no record has a score."""
    metrics = retrieval_metrics(records, n_resamples)
    if not metrics:
        return summary
    breakdown: dict[str, Mapping[str, Cell]] = dict(summary.breakdown)
    for stratum, groups in strata_groups([r for r in records if r.retrieval is not None]).items():
        breakdown[DIMENSION + stratum] = {
            name: Cell(len(group), retrieval_metrics(group, n_resamples)) for name, group in sorted(groups.items())
        }
    scores = [r.retrieval for r in records if r.retrieval is not None]
    memories, by_sources = sum(s.memories for s in scores), sum(s.by_sources for s in scores)
    note = (
        f"recall_at_k, ndcg_at_k and mrr over the {len(scores):,} items with gold evidence; "
        f"{by_sources:,} of {memories:,} memories mapped to messages through provenance, the rest by text overlap"
    )
    return replace(
        summary,
        metrics={**summary.metrics, **metrics},
        breakdown=breakdown,
        note="; ".join(filter(None, [summary.note, note])),
    )
