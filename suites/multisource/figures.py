"""The risk-coverage curve: selective accuracy against coverage as the abstention margin moves.

The offline reader records each item's posterior margin, so every threshold can be
replayed after the run; the reader's own calibrated threshold is one point on the curve.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_memeval.framework.figures import LineChart, LineSeries
from pytest_memeval.results.records import Record, Report, RunKey

from .metrics import coverage, selective_accuracy

THRESHOLDS = tuple(i / 50 for i in range(51))


def risk_coverage_figures(report: Report, suite: str) -> list[LineChart]:
    runs: dict[RunKey, list[Record]] = {}
    for record in report.records_of(suite):
        if record.is_scored and "margin" in record.answer_detail:
            runs.setdefault(record.key, []).append(record)
    if not runs:
        return []
    keys = report.keys_of(suite)
    series = tuple(
        LineSeries(key.label(keys), tuple(curve(records)), markers=True) for key, records in sorted(runs.items())
    )
    return [
        LineChart(
            title="multisource: risk-coverage",
            series=series,
            x_label="coverage (share answered)",
            y_label="selective accuracy (macro)",
            x_range=(0.0, 1.0),
            y_range=(0.0, 1.0),
            caption="Each point abstains below one posterior-margin threshold (0 to 1 in steps of .02); "
            "items with fewer than two sources of evidence always answer, as in the paper."
            + "".join(
                _single_point(s.name, records)
                for s, records in zip(series, (runs[k] for k in sorted(runs)))
                if len(s.points) == 1
            ),
        )
    ]


def _single_point(label: str, records: Sequence[Record]) -> str:
    """Why a run's curve is one point: no threshold changes what it answers."""
    always = sum(r.answer_detail["sources_with_evidence"] < 2 for r in records)
    if always == len(records):
        return (
            f" {label}: one point only, at full coverage: every item had fewer than two sources of "
            "evidence in the retrieved memories, so no threshold makes it abstain."
        )
    return f" {label}: one point only: every threshold leaves the same items answered."


def curve(records: Sequence[Record]) -> list[tuple[float, float]]:
    qids = [r.task for r in records]
    correct = [bool(r.correct) for r in records]
    margins = [r.answer_detail["margin"] for r in records]
    always = [r.answer_detail["sources_with_evidence"] < 2 for r in records]
    points = set()
    for theta in THRESHOLDS:
        answered = [a or m >= theta for a, m in zip(always, margins)]
        if any(answered):
            points.add((round(coverage(answered), 4), round(selective_accuracy(qids, correct, answered), 4)))
    return sorted(points)
