"""memfail's figures for the HTML report: failure stages per dataset and system (stacked
bars, one chart per k), and success against k per dataset when k was swept."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from msgspec.structs import replace

from pytest_memeval.framework.figures import LineChart, LineSeries, StackedBarChart
from pytest_memeval.results.records import Report, RunSummary

from .attribution import STAGES
from .datasets import DATASETS


def memfail_figures(report: Report, suite: str) -> list[Any]:
    runs = [r for r in report.runs_of(suite) if r.extra.get("stages")]
    if not runs:
        return []
    figures: list[Any] = []
    for k in sorted({r.key.k for r in runs}):
        figures.append(stage_chart([r for r in runs if r.key.k == k], suite, k))
    if len({r.key.k for r in runs}) > 1:
        figures.extend(success_against_k(runs, suite))
    return figures


def _system(run: RunSummary, runs: Sequence[RunSummary]) -> str:
    """The run's label among `runs`, k left out (a chart is per k, or k is its x axis)."""
    return replace(run.key, k=0).label([replace(r.key, k=0) for r in runs])


def stage_chart(runs: Sequence[RunSummary], suite: str, k: int) -> StackedBarChart:
    categories, values = [], []
    for d in DATASETS:
        for run in runs:
            shares = run.extra["stages"].get(d.name)
            if shares is not None:
                categories.append(f"{d.title} | {_system(run, runs)}")
                values.append(tuple(float(shares.get(stage) or 0.0) for stage in STAGES))
    return StackedBarChart(
        title=f"{suite}: failure stages per dataset and system (k={k})",
        categories=tuple(categories),
        segments=STAGES,
        values=tuple(values),
        value_label="share of graded questions",
        caption="Each bar splits a dataset's questions by the first failing stage (storage, summary, retrieval, "
        "then reasoning; abstention for misleading questions answered anyway; unknown when the system cannot list "
        "its memories). 'correct' needs every stage to pass.",
    )


def success_against_k(runs: Sequence[RunSummary], suite: str) -> list[LineChart]:
    charts = []
    for d in DATASETS:
        series: dict[str, list[tuple[float, float]]] = {}
        for run in runs:
            estimate = run.metrics.get(f"success_{d.name}")
            if estimate is not None and estimate.value is not None:
                series.setdefault(_system(run, runs), []).append((float(run.key.k), float(estimate.value)))
        if not series:
            continue
        charts.append(
            LineChart(
                title=f"{suite}: {d.title} success against k",
                series=tuple(
                    LineSeries(name, tuple(sorted(points)), markers=True) for name, points in sorted(series.items())
                ),
                x_label="k (memories retrieved)",
                y_label="success rate",
                y_range=(0.0, 1.0),
                caption="Success rate per retrieval depth, one line per system (95% Wilson intervals are in the run tables).",
            )
        )
    return charts
