"""Belief trajectories against the Bayesian reference, one chart per condition.

Coin: the mean p(heads) per probe for each true bias and run, the reference posterior
mean (dashed) and the true bias (a guide line). Recommender: the mean probability on the
true type per probe for each run and the reference's (zero-shot, which has no type
belief: the rating TVD per probe). Means are over the episodes of the cell (trials, and
true types for the recommender).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from pytest_memeval.framework.figures import LineChart, LineSeries, ReferenceLine
from pytest_memeval.results.records import Record, Report

from .environments import COIN, COIN_THETAS, N_TYPES, RECOMMENDER

#: coin conditions drawn together in the error-by-turn chart
ERROR_BY_TURN = ("passive_b1-identical-unknown_bias", "passive_b1-indexed-unknown_bias")


def trajectory_figures(report: Report, suite: str) -> list[LineChart]:
    records = [r for r in report.records_of(suite) if r.is_scored]
    if not records:
        return []
    keys = report.keys_of(suite)
    runs: dict[str, list[Record]] = defaultdict(list)
    for record in records:
        runs[record.key.label(keys)].append(record)
    figures = []
    for condition in sorted({r.strata["condition"] for r in records if r.task == COIN}):
        figures.append(_coin_chart(condition, {label: _of(rs, COIN, condition) for label, rs in runs.items()}))
    figures += _error_by_turn(runs)
    for condition in sorted({r.strata["condition"] for r in records if r.task == RECOMMENDER}):
        figures.append(
            _recommender_chart(condition, {label: _of(rs, RECOMMENDER, condition) for label, rs in runs.items()})
        )
    return figures


def _of(records: Sequence[Record], task: str, condition: str) -> list[Record]:
    return [r for r in records if r.task == task and r.strata["condition"] == condition]


#: line styles that tell runs apart within one true bias's colour (the reference is dashed)
RUN_DASHES = ("", "dotted")


def _coin_chart(condition: str, runs: Mapping[str, Sequence[Record]]) -> LineChart:
    """One colour per true bias, shared by its Bayesian reference (dashed, thinner); runs
    differ by line style (the first solid, the second dotted)."""
    series = []
    for index, (label, records) in enumerate(sorted(runs.items())):
        for colour, (theta_label, theta) in enumerate(_thetas()):
            chosen = [r for r in records if r.strata["truth"] == theta_label]
            if chosen:
                series.append(
                    LineSeries(
                        f"{label}, theta={theta}",
                        _mean_curve(chosen, lambda r: _column(r, "p_heads")),
                        color=colour,
                        dash=RUN_DASHES[index % len(RUN_DASHES)],
                    )
                )
    # the reference depends on the flips only, which every run of a condition shares
    first = next((records for _, records in sorted(runs.items()) if records), [])
    references = []
    for colour, (theta_label, theta) in enumerate(_thetas()):
        chosen = [r for r in first if r.strata["truth"] == theta_label]
        if chosen:
            references.append(
                LineSeries(f"Bayes, theta={theta}", _mean_curve(chosen, _coin_reference), reference=True, color=colour)
            )
    styles = "; ".join(f"{style}: {label}" for style, label in zip(("solid", "dotted"), sorted(runs)))
    return LineChart(
        title=f"bayes coin | {condition}: p(heads) vs the Bayesian posterior mean",
        series=tuple(series + references),
        x_label="flips observed (t)",
        y_label="p(heads)",
        y_range=(0.0, 1.0),
        reference_lines=tuple(ReferenceLine(theta, "y", f"theta={theta}") for _, theta in _thetas()),
        caption=f"One colour per true bias (theta). The belief rebuilt from memory, mean over trials ({styles}); "
        "dashed, thinner: the exact posterior mean of all flips so far (Bayes).",
    )


def _error_by_turn(runs: Mapping[str, Sequence[Record]]) -> list[LineChart]:
    series = []
    for label, records in sorted(runs.items()):
        for condition in ERROR_BY_TURN:
            chosen = _of(records, COIN, condition)
            if chosen:
                series.append(LineSeries(f"{label}, {condition.split('-')[1]}", _mean_curve(chosen, _coin_errors)))
    if not series:
        return []
    return [
        LineChart(
            title="bayes coin: |belief - Bayes| by turn, one observation per session",
            series=tuple(series),
            x_label="flips observed (t)",
            y_label="absolute error",
            caption="Mean over true biases and trials. A memory that caps or loses evidence shows as error growing with t.",
        )
    ]


def _recommender_chart(condition: str, runs: Mapping[str, Sequence[Record]]) -> LineChart:
    has_type = any("type" in r.answer_detail["trajectory"][0] for rs in runs.values() for r in rs)
    series, reference = [], None
    for label, records in sorted(runs.items()):
        if not records:
            continue
        if has_type:
            series.append(LineSeries(label, _mean_curve(records, lambda r: _probe_column(r, "p_true_type"))))
            reference = reference or LineSeries(
                "Bayes", _mean_curve(records, lambda r: _probe_column(r, "reference_p_true_type")), reference=True
            )
        else:
            series.append(LineSeries(label, _mean_curve(records, lambda r: _probe_column(r, "rating_tvd"))))
    if has_type:
        return LineChart(
            title=f"bayes recommender | {condition}: probability on the true type",
            series=tuple(series + ([reference] if reference else [])),
            x_label="ratings observed (t)",
            y_label="p(true type)",
            y_range=(0.0, 1.0),
            reference_lines=(ReferenceLine(1 / N_TYPES, "y", "chance"),),
            caption="Solid: the type belief rebuilt from memory, mean over types and trials; dashed: the exact posterior.",
        )
    return LineChart(
        title=f"bayes recommender | {condition}: rating TVD to the Bayesian predictive",
        series=tuple(series),
        x_label="ratings observed (t)",
        y_label="TVD",
        y_range=(0.0, 1.0),
        caption="Zero-shot has no profile table, hence no type belief; 0 is the exact predictive.",
    )


def _thetas() -> list[tuple[str, float]]:
    return [(f"theta{round(t * 100)}", t) for t in COIN_THETAS]


def _mean_curve(
    records: Sequence[Record], column: Callable[[Record], list[tuple[int, float]]]
) -> tuple[tuple[float, float], ...]:
    by_turn: dict[int, list[float]] = defaultdict(list)
    for record in records:
        for t, value in column(record):
            by_turn[t].append(value)
    return tuple((float(t), float(np.mean(values))) for t, values in sorted(by_turn.items()))


def _column(record: Record, key: str) -> list[tuple[int, float]]:
    return [(e["t"], e[key]) for e in record.answer_detail["trajectory"]]


def _probe_column(record: Record, key: str) -> list[tuple[int, float]]:
    return [(p["t"], p[key]) for p in record.detail["per_probe"] if p.get(key) is not None]


def _coin_reference(record: Record) -> list[tuple[int, float]]:
    return _probe_column(record, "reference")


def _coin_errors(record: Record) -> list[tuple[int, float]]:
    return _probe_column(record, "error")
