"""The suite's HTML figures: per-task scores with CIs on the paper's 0-100 scale, one bar
per run, and the evidence recall of each memory system beside them. A run graded by the
LLM judge shows the paper's metric; any other run our diagnostics, and the caption says so."""

from __future__ import annotations

from pytest_memeval.framework.figures import BarChart, Estimate, Series, run_labels
from pytest_memeval.results.records import Cell, Metric, Report

from .tasks import TASKS


def task_figures(report: Report, suite: str) -> list[BarChart]:
    runs = [r for r in report.runs_of(suite) if r.breakdown.get("task")]
    if not runs:
        return []
    cells = list(dict.fromkeys(cell for run in runs for cell in run.breakdown["task"]))
    cells.sort(key=lambda cell: cell.split()[0])
    labels = [_label(cell) for cell in cells]
    names = run_labels(runs)
    approx = any("(approx)" in cell for cell in cells)
    paper_metrics = {t.metric for t in TASKS.values()}
    judged = [bool(paper_metrics.intersection(r.metrics)) for r in runs]
    if all(judged):
        graded = "Scores are the paper's metric: the LLM judge on the paper's 0-5 rubrics, x20. "
    elif any(judged):
        graded = (
            "Runs with a judge show the paper's metric (the LLM judge on its 0-5 rubrics); the others our "
            "deterministic diagnostics, which are not the paper's metric. "
        )
    else:
        graded = "Scores are our deterministic diagnostics, not the paper's metric (an LLM judge on 0-5 rubrics). "
    charts = []
    for metric, title, caption in (
        (
            "score",
            "score per task (0-100)",
            "Mean item score per task on the paper's 0-100 scale with 95% bootstrap CIs over lives. "
            + graded
            + (
                "Cells marked (approx) are scored by the offline coverage stand-in, not the rubric judge. "
                if approx
                else ""
            )
            + "T2 rewards abstention: read it beside T1.",
        ),
        (
            "evidence_recall",
            "evidence recall per task (%)",
            "Share of each item's evidence units found verbatim in what the memory system returned (a diagnostic).",
        ),
    ):
        series = [
            Series(name, tuple(Estimate.coerce(_metric(run.breakdown["task"].get(cell), metric)) for cell in cells))
            for name, run in zip(names, runs)
        ]
        charts.append(
            BarChart(
                title=f"{suite}: {title}",
                categories=tuple(labels),
                series=tuple(series),
                value_label=metric,
                category_label="task",
                value_range=(0.0, 100.0),
                caption=caption,
            )
        )
    return charts


def _label(cell: str) -> str:
    code = cell.split()[0]
    short = TASKS[code].metric.split("_", 1)[1].replace("_", " ") if code in TASKS else cell
    return f"{code} {short}" + (" (approx)" if "(approx)" in cell else "")


def _metric(cell: Cell | None, metric: str) -> Metric | None:
    return None if cell is None else cell.metrics.get(metric)
