"""What one item's retrieval found of its gold evidence: the per-item figures behind Recall@k,
NDCG@k and MRR (running/retrieval_scoring.py computes them on the worker, analysis/
retrieval_metrics.py turns a run's into metrics with intervals).

Only counts and scores cross to the controller: which messages were gold stays with the
suite's `Item.evidence` on the worker.
"""

from __future__ import annotations

from .schema import SchemaError, Value

#: the metrics every run of a suite that declares evidence gets beside the suite's own
#: (rates: each lies in [0, 1]); gates may name them (docs/reports.md, "Gates")
RETRIEVAL_METRICS = ("recall_at_k", "ndcg_at_k", "mrr", "memories_mapped")
RETRIEVAL_BOUNDS: dict[str, tuple[float, float]] = dict.fromkeys(RETRIEVAL_METRICS, (0.0, 1.0))


class RetrievalScore(Value, frozen=True):
    """One item's retrieval against its gold evidence (docs/statistics.md, "Retrieval metrics").

    `evidence`: how many evidence messages the item has; `found`: how many of them the
    returned memories map to; `ndcg` and `reciprocal_rank`: the ranking's scores;
    `memories`: how many memories were returned; `by_sources`: how many of them were mapped
    through the provenance the adapter declares (`Memory.sources`), the others by the
    text-overlap rule."""

    evidence: int
    found: int
    ndcg: float
    reciprocal_rank: float
    memories: int
    by_sources: int

    def __post_init__(self) -> None:
        if not 0 <= self.found <= self.evidence or self.evidence < 1:
            raise SchemaError(
                f"retrieval: need 0 <= found <= evidence and evidence >= 1, got {self.found} of {self.evidence}"
            )
        if not 0 <= self.by_sources <= self.memories:
            raise SchemaError(f"retrieval: need 0 <= by_sources <= memories, got {self.by_sources} of {self.memories}")
        for name, value in (("ndcg", self.ndcg), ("reciprocal_rank", self.reciprocal_rank)):
            if not 0.0 <= value <= 1.0:
                raise SchemaError(f"retrieval: {name} must lie in [0, 1], got {value!r}")

    @property
    def recall(self) -> float:
        """The share of the evidence messages that the returned memories map to."""
        return self.found / self.evidence
