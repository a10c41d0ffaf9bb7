"""The rows of a suite's tokens, latency and cost table, one cell per run: what the terminal
summary and the HTML report both show."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ..results.records import Report, RunSummary
from ..results.usage import Latency, RunUsage, Tokens

UsageRow = tuple[str, list[str]]
LATENCY_LABELS = {
    "retrieve": "retrieve ms p50/95/99 (n)",
    "ingest": "ingest ms p50/95/99 (n)",  # per session stored: n counts sessions
    "answer": "answer ms p50/95/99 (n)",
    "judge": "judge ms p50/95/99 (n)",
    "searchable": "searchable ms p50/95/99",  # per session stored, from its ingest (--memeval-searchable)
}


def usage_rows(report: Report, runs: Sequence[RunSummary]) -> list[UsageRow]:
    """Only the rows some run has a value for; an empty cell where a run has none."""
    usages = [report.usage.get(run.key) for run in runs]
    if all(u is None for u in usages):
        return []
    rows: list[UsageRow] = []

    def add(label: str, cell: Callable[[RunUsage], str]) -> None:
        cells = [cell(u) if u is not None else "" for u in usages]
        if any(cells):
            rows.append((label, cells))

    add("context tokens (median)", lambda u: "" if u.context_tokens is None else f"{u.context_tokens:.0f}")
    for phase, label in LATENCY_LABELS.items():
        add(label, _phase_cell(phase, lambda u, p: _latency(u.latency.get(p))))
    add("not searchable by deadline", lambda u: str(u.not_searchable) if u.not_searchable else "")
    phases = list(dict.fromkeys(phase for u in usages if u is not None for phase in u.llm))
    for phase in phases:
        add(f"{phase} LLM tokens", _phase_cell(phase, lambda u, p: _tokens(u.llm.get(p))))
    if any(u is not None and u.cost for u in usages):
        for phase in phases:
            add(f"{phase} cost", _phase_cell(phase, lambda u, p: _money(u.cost.get(p), p in u.cost)))
        add("cost", lambda u: _money(u.total_cost, bool(u.cost)))
        add("spent (cache misses)", lambda u: _money(u.spent, bool(u.cost)))
        add("no price for", lambda u: ", ".join(u.unpriced))
    return rows


def _phase_cell(phase: str, cell: Callable[[RunUsage, str], str]) -> Callable[[RunUsage], str]:
    return lambda usage: cell(usage, phase)


def _latency(latency: Latency | None) -> str:
    if latency is None:
        return ""
    p99 = "n/a" if latency.p99 is None else f"{latency.p99:.1f}"
    return f"{latency.p50:.1f} / {latency.p95:.1f} / {p99} ({latency.n})"


def _tokens(models: Mapping[str, Tokens] | None) -> str:
    if not models:
        return ""
    total = sum(models.values(), Tokens())
    cached = f", {total.cached_calls} cached" if total.cached_calls else ""
    return f"{total.prompt_tokens + total.completion_tokens:,} in {total.calls} calls{cached}"


def _money(value: float | None, priced: bool) -> str:
    if not priced:
        return ""
    return "n/a" if value is None else f"{value:.4f}"
