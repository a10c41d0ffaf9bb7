"""The behavior suite's figures: per-subject dots by condition, deltas against the baseline,
the tested pairs as a forest, and the top-k overlap between memory systems."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_memeval.framework.figures import BarChart, Difference, DotPlot, Estimate, ForestPlot, Series
from pytest_memeval.results.records import Report, RunSummary

from .conditions import BASELINE, CONDITIONS

SUITE = "behavior"


def figures(report: Report) -> list[Any]:
    out: list[Any] = []
    keys = report.keys_of(SUITE)
    for run in report.runs_of(SUITE):
        if run.extra.get("subjects"):
            out.extend(run_figures(run, run.key.label(keys)))
    overlap = overlap_figure(report)
    if overlap is not None:
        out.append(overlap)
    return out


def _judge_note(run: RunSummary) -> str:
    judge = run.extra.get("judge") or {}
    if judge.get("approximate"):
        return " Scored by the offline judge (approximate: the rubric mapped from the predicted behaviour)."
    return f" Scored by {', '.join(judge.get('judges') or ['the LLM panel'])}."


def run_figures(run: RunSummary, label: str) -> list[Any]:
    table: Mapping[str, Mapping[str, float]] = run.extra["subjects"]
    conditions = [c for c in CONDITIONS if any(c in row for row in table.values())]
    subjects = sorted(table, key=lambda s: (table[s].get(BASELINE, 0.0), s))
    note = _judge_note(run)
    figures: list[Any] = [
        DotPlot(
            title=f"behavior: per-subject score by condition ({label})",
            rows=tuple(subjects),
            series=tuple(Series(c, tuple(Estimate.coerce(table[s].get(c)) for s in subjects)) for c in conditions),
            value_label="mean rubric score (questions -> judges -> subject)",
            value_range=(1.0, 5.0),
            caption="Subjects ordered by their no-context baseline (C5)." + note,
        )
    ]
    treated = [c for c in conditions if c != BASELINE]
    if BASELINE in conditions and treated:
        figures.append(
            DotPlot(
                title=f"behavior: per-subject change against the baseline C5 ({label})",
                rows=tuple(subjects),
                series=tuple(
                    Series(f"{c} - C5", tuple(Estimate.coerce(_delta(table[s], c)) for s in subjects)) for c in treated
                ),
                value_label="score minus C5",
                caption="Each dot is one subject's condition score minus its no-context score." + note,
            )
        )
    tests = run.extra.get("tests") or {}
    if tests:
        rows = []
        for pair, test in tests.items():
            ci = test.get("ci") or [None, None]
            p = test.get("p_value")
            w = test.get("W")
            note_text = f"W = {w:g}, p = {p:.4f}" if p is not None and w is not None else ""
            rows.append(Difference(pair.replace("-", " - "), test.get("mean_delta"), ci[0], ci[1], note_text))
        figures.append(
            ForestPlot(
                title=f"behavior: condition pairs across subjects ({label})",
                rows=tuple(rows),
                value_label="mean per-subject difference",
                caption="Wilcoxon signed-rank across subjects, two-sided; interval: bootstrap over subjects." + note,
            )
        )
    return figures


def _delta(row: Mapping[str, float], condition: str) -> float | None:
    if condition in row and BASELINE in row:
        return row[condition] - row[BASELINE]
    return None


def overlap_figure(report: Report) -> BarChart | None:
    """Mean top-k Jaccard per pair of systems (C1 items), controlled and native ingestion."""
    rows: list[tuple[str, dict[str, Any]]] = []
    keys = report.keys_of(SUITE)
    for comparison in report.comparisons:
        if comparison.suite != SUITE or comparison.source != "run":
            continue
        cells = {
            c: comparison.metrics[c].extra
            for c in ("C1", "C1_native")
            if c in comparison.metrics and comparison.metrics[c].extra.get("topk_jaccard") is not None
        }
        if cells:
            label_a, label_b = comparison.labels(keys)
            rows.append((f"{label_a} ~ {label_b}", cells))
    if not rows:
        return None
    series = []
    for condition, name in (("C1", "controlled (one fact per write)"), ("C1_native", "native (raw corpus)")):
        values = tuple(
            Estimate.coerce({"value": cells[condition]["topk_jaccard"], "ci": cells[condition]["topk_jaccard_ci"]})
            if condition in cells
            else None
            for _, cells in rows
        )
        if any(v is not None for v in values):
            series.append(Series(name, values))
    return BarChart(
        title="behavior: overlap of the systems' top-k (Jaccard)",
        categories=tuple(label for label, _ in rows),
        series=tuple(series),
        value_label="mean Jaccard of the retrieved sets",
        value_range=(0.0, 1.0),
        horizontal=True,
        caption="Per question, |A & B| / |A | B| of the distinct memories two systems returned; averaged per subject, then over subjects.",
    )
