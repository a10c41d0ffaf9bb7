"""The figures every report gets from its own JSON: breakdown bars and comparison forests."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from .figures import BarChart, Difference, Estimate, ForestPlot, Series

Report = Mapping[str, Any]
#: above this many categories, or this long a label, bars are drawn horizontally
MAX_COLUMNS = 8
MAX_COLUMN_LABEL = 16


def suites(report: Report) -> list[str]:
    """Suite names in the order their first run or comparison appears."""
    names = [r["suite"] for r in report.get("runs", ())] + [c["suite"] for c in report.get("comparisons", ())]
    return list(dict.fromkeys(names))


def suite_runs(report: Report, suite: str) -> list[Mapping[str, Any]]:
    return [r for r in report.get("runs", ()) if r["suite"] == suite]


def run_label(run: Mapping[str, Any], runs: Sequence[Mapping[str, Any]]) -> str:
    """The system's name, with the responder when the suite ran with more than one."""
    if len({r.get("responder") for r in runs}) > 1:
        return f"{run['memsystem']} / {run.get('responder')}"
    return str(run["memsystem"])


def side_label(side: Mapping[str, Any]) -> str:
    return str(side.get("label") or side.get("memsystem") or "?")


def metric_names(cells: Mapping[str, Any]) -> list[str]:
    """Metric entries of a metrics dict or breakdown cell (skipping "n" and other scalars)."""
    return [name for name, value in cells.items() if isinstance(value, Mapping) and "value" in value]


def breakdown_figures(report: Report, suite: str) -> list[tuple[str, list[BarChart]]]:
    """Per breakdown dimension: one bar chart per metric (the suite's first metric first).

    Categories are the union of the runs' cells in first-seen order; systems are the series.
    """
    runs = [r for r in suite_runs(report, suite) if r.get("breakdown")]
    dimensions = list(dict.fromkeys(d for r in runs for d in r["breakdown"]))
    result = []
    for dimension in dimensions:
        cells = list(dict.fromkeys(c for r in runs for c in r["breakdown"].get(dimension, {})))
        names = list(dict.fromkeys(m for r in runs for c in r["breakdown"].get(dimension, {}).values()
                                   for m in metric_names(c)))
        charts = [_breakdown_chart(suite, dimension, metric, cells, runs) for metric in names]
        if charts:
            result.append((dimension, charts))
    return result


def _breakdown_chart(suite: str, dimension: str, metric: str, cells: Sequence[str],
                     runs: Sequence[Mapping[str, Any]]) -> BarChart:
    categories = [_with_count(cell, [r["breakdown"].get(dimension, {}).get(cell) for r in runs]) for cell in cells]
    series = [
        Series(run_label(run, runs),
               tuple(Estimate.coerce((run["breakdown"].get(dimension, {}).get(cell) or {}).get(metric))
                     for cell in cells))
        for run in runs
    ]
    horizontal = len(categories) > MAX_COLUMNS or max(map(len, categories), default=0) > MAX_COLUMN_LABEL
    return BarChart(
        title=f"{suite}: {metric} by {dimension}",
        categories=tuple(categories),
        series=tuple(series),
        value_label=metric,
        category_label="" if horizontal else dimension,
        horizontal=horizontal,
        caption=f"{metric} per {dimension} cell, one bar per system; whiskers show the confidence interval. "
                "Hover a bar for its exact value.",
    )


def _with_count(cell: str, entries: Sequence[Mapping[str, Any] | None]) -> str:
    """The cell name, with its item count when every run has the same one."""
    counts = {e.get("n") for e in entries if e is not None}
    return f"{cell} (n={counts.pop()})" if len(counts) == 1 and None not in counts else cell


def comparison_figure(report: Report, suite: str) -> ForestPlot | None:
    """All paired differences (A minus B) of one suite, metric by metric."""
    rows = []
    for comparison in report.get("comparisons", ()):
        if comparison["suite"] != suite:
            continue
        a, b = side_label(comparison["a"]), side_label(comparison["b"])
        if comparison.get("source") == "baseline":
            b += " (baseline)"
        for metric, cell in comparison.get("metrics", {}).items():
            ci = cell.get("ci") or (None, None)
            rows.append(Difference(f"{metric}: {a} \u2212 {b}", cell.get("difference"), ci[0], ci[1],
                                   _note(cell)))
    if all(row.value is None for row in rows):
        return None
    return ForestPlot(
        title=f"{suite}: paired differences",
        rows=tuple(rows),
        value_label="difference (A \u2212 B)",
        caption="Each row is a paired difference between two systems on the items both scored, "
                "with its confidence interval; the dashed line marks no difference. "
                "p is Holm-adjusted over every comparison of the session.",
    )


def _note(cell: Mapping[str, Any]) -> str:
    difference = cell.get("difference")
    if difference is None:
        return "n/a"
    text = f"{difference:+.3f}"
    if cell.get("p_holm") is not None:
        return f"{text}  p(Holm)={format_p(cell['p_holm'])}"
    return f"{text}  p={format_p(cell['p_value'])}" if cell.get("p_value") is not None else text


def format_p(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}"
