"""The figures every report gets from its runs: breakdown bars and comparison forests."""

from __future__ import annotations

from collections.abc import Sequence

from ..framework.figures import BarChart, Difference, Estimate, ForestPlot, Series, run_labels
from ..results.records import Cell, Metric, PairedMetric, Report, RunSummary

#: above this many categories, or this long a label, bars are drawn horizontally
MAX_COLUMNS = 8
MAX_COLUMN_LABEL = 16


def breakdown_figures(report: Report, suite: str) -> list[tuple[str, list[BarChart]]]:
    """Per breakdown dimension: one bar chart per metric (the suite's first metric first).

    Categories are the union of the runs' cells in first-seen order; runs are the series.
    """
    runs = [r for r in report.runs_of(suite) if r.breakdown]
    labels = run_labels(runs)
    dimensions = list(dict.fromkeys(d for r in runs for d in r.breakdown))
    result = []
    for dimension in dimensions:
        cells = list(dict.fromkeys(c for r in runs for c in r.breakdown.get(dimension, {})))
        names = list(dict.fromkeys(m for r in runs for c in r.breakdown.get(dimension, {}).values() for m in c.metrics))
        charts = [_breakdown_chart(suite, dimension, metric, cells, runs, labels) for metric in names]
        if charts:
            result.append((dimension, charts))
    return result


def _breakdown_chart(
    suite: str, dimension: str, metric: str, cells: Sequence[str], runs: Sequence[RunSummary], labels: Sequence[str]
) -> BarChart:
    categories = [_with_count(cell, [r.breakdown.get(dimension, {}).get(cell) for r in runs]) for cell in cells]
    series = [
        Series(
            label, tuple(Estimate.coerce(_metric(run.breakdown.get(dimension, {}).get(cell), metric)) for cell in cells)
        )
        for run, label in zip(runs, labels)
    ]
    horizontal = len(categories) > MAX_COLUMNS or max(map(len, categories), default=0) > MAX_COLUMN_LABEL
    return BarChart(
        title=f"{suite}: {metric} by {dimension}",
        categories=tuple(categories),
        series=tuple(series),
        value_label=metric,
        category_label="" if horizontal else dimension,
        horizontal=horizontal,
        caption=f"{metric} per {dimension} cell, one bar per run; whiskers show the confidence interval. "
        "Hover a bar for its exact value.",
    )


def _metric(cell: Cell | None, metric: str) -> Metric | None:
    return None if cell is None else cell.metrics.get(metric)


def _with_count(cell: str, entries: Sequence[Cell | None]) -> str:
    """The cell name, with its item count when every run has the same one."""
    counts = {e.n for e in entries if e is not None}
    return f"{cell} (n={counts.pop()})" if len(counts) == 1 and None not in entries else cell


def comparison_figure(report: Report, suite: str) -> ForestPlot | None:
    """All paired differences (A minus B) of one suite, metric by metric."""
    keys = report.keys_of(suite)
    comparisons = [c for c in report.comparisons if c.suite == suite]
    pairs = {c.labels(keys or None) for c in comparisons}
    rows = []
    for comparison in comparisons:
        a, b = comparison.labels(keys or None)
        for metric, cell in comparison.metrics.items():
            # one pair of runs: its names go in the title, the rows keep short labels
            label = metric if len(pairs) == 1 else f"{metric}: {a} \u2212 {b}"
            rows.append(Difference(label, cell.difference, cell.ci[0], cell.ci[1], _note(cell)))
    if all(row.value is None for row in rows):
        return None
    heading = f"{suite}: paired differences" + (f", {a} \u2212 {b}" if len(pairs) == 1 else "")
    return ForestPlot(
        title=heading,
        rows=tuple(rows),
        value_label="difference (A \u2212 B)",
        caption="Each row is a paired difference between two runs on the items both scored, "
        "with its confidence interval; the dashed line marks no difference. "
        "p is Holm-adjusted over every comparison of the session.",
    )


def _note(cell: PairedMetric) -> str:
    if cell.difference is None:
        return "n/a"
    text = f"{cell.difference:+.3f}"
    if cell.p_holm is not None:
        return f"{text}  p(Holm)={format_p(cell.p_holm)}"
    return f"{text}  p={format_p(cell.p_value)}" if cell.p_value is not None else text


def format_p(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}"
