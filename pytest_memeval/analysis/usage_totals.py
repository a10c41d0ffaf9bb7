"""A run's tokens, latency and cost (usage.RunUsage) from its records and the price table."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..config.prices import Prices, cost
from ..results.records import Record
from ..results.usage import PHASES, Latency, RunUsage, Tokens, add_tokens


def run_usage(records: Sequence[Record], prices: Prices) -> RunUsage | None:
    """None for a run with nothing measured (every item an error before retrieval)."""
    answered = [r for r in records if r.status != "error" and r.retrieve_ms is not None]
    timings = {
        "ingest": [ms for r in records for ms in r.ingest_ms],
        "retrieve": [r.retrieve_ms for r in answered if r.retrieve_ms is not None],
        "answer": [r.answer_ms for r in answered if r.answer_ms is not None],
        "judge": [r.judge_ms for r in records if r.judge_ms is not None],
        "searchable": [ms for r in records for ms in r.searchable_ms if ms is not None],
    }
    not_searchable = sum(1 for r in records for ms in r.searchable_ms if ms is None)
    latency = {phase: _latency(values) for phase, values in timings.items() if values}
    llm: dict[str, dict[str, Tokens]] = {}
    for record in records:
        add_tokens(llm, record.llm_tokens)
    if not answered and not latency and not llm and not not_searchable:
        return None
    context = float(np.median([r.retrieved_tokens for r in answered])) if answered else None
    ordered = {phase: llm[phase] for phase in (*PHASES, *sorted(set(llm) - set(PHASES))) if phase in llm}
    if not prices:
        return RunUsage(context, latency, ordered, not_searchable=not_searchable)
    phase_costs = {phase: cost(models, prices) for phase, models in ordered.items()}
    spent = [cost({m: t.spent for m, t in models.items()}, prices) for models in ordered.values()]
    unpriced = sorted({m for models in ordered.values() for m, t in models.items() if m not in prices and t.calls})
    total_spent = None if None in spent else sum(s for s in spent if s is not None)
    return RunUsage(context, latency, ordered, phase_costs, total_spent, tuple(unpriced), not_searchable)


def _latency(values: Sequence[float]) -> Latency:
    p50, p95, p99 = np.percentile(values, [50, 95, 99])
    return Latency(float(p50), float(p95), len(values), float(p99))
