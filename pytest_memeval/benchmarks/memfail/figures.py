"""memfail's figures for the HTML report: failure stages per dataset and system (stacked
bars, one chart per k), and success against k per dataset when k was swept."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ...report.figures import LineChart, LineSeries, StackedBarChart
from .attribution import STAGES
from .datasets import DATASETS


def memfail_figures(report: Mapping[str, Any], suite: str) -> list[Any]:
    runs = [r for r in report.get("runs", ()) if r.get("suite") == suite and r.get("stages")]
    if not runs:
        return []
    figures: list[Any] = []
    for k in sorted({r.get("k") for r in runs}, key=lambda v: (v is None, v)):
        figures.append(stage_chart([r for r in runs if r.get("k") == k], suite, k))
    if len({r.get("k") for r in runs}) > 1:
        figures.extend(success_against_k(runs, suite))
    return figures


def _system(run: Mapping[str, Any], runs: Sequence[Mapping[str, Any]]) -> str:
    if len({r.get("responder") for r in runs}) > 1:
        return f"{run['memsystem']} / {run.get('responder')}"
    return str(run["memsystem"])


def stage_chart(runs: Sequence[Mapping[str, Any]], suite: str, k: Any) -> StackedBarChart:
    categories, values = [], []
    for d in DATASETS:
        for run in runs:
            shares = run["stages"].get(d.name)
            if shares is not None:
                categories.append(f"{d.title} | {_system(run, runs)}")
                values.append(tuple(float(shares.get(stage) or 0.0) for stage in STAGES))
    return StackedBarChart(
        title=f"{suite}: failure stages per dataset and system" + (f" (k={k})" if k is not None else ""),
        categories=tuple(categories),
        segments=STAGES,
        values=tuple(values),
        value_label="share of graded questions",
        caption="Each bar splits a dataset's questions by the first failing stage (storage, summary, retrieval, "
        "then reasoning; abstention for misleading questions answered anyway; unknown when the system cannot list "
        "its memories). 'correct' needs every stage to pass.",
    )


def success_against_k(runs: Sequence[Mapping[str, Any]], suite: str) -> list[LineChart]:
    charts = []
    for d in DATASETS:
        series: dict[str, list[tuple[float, float]]] = {}
        for run in runs:
            estimate = (run.get("metrics") or {}).get(f"success_{d.name}")
            if estimate and estimate.get("value") is not None and run.get("k") is not None:
                series.setdefault(_system(run, runs), []).append((float(run["k"]), float(estimate["value"])))
        if not series:
            continue
        charts.append(
            LineChart(
                title=f"{suite}: {d.title} success against k",
                series=tuple(LineSeries(name, tuple(sorted(points)), markers=True) for name, points in sorted(series.items())),
                x_label="k (memories retrieved)",
                y_label="success rate",
                y_range=(0.0, 1.0),
                caption="Success rate per retrieval depth, one line per system (95% Wilson intervals are in the run tables).",
            )
        )
    return charts
