"""The terminal summary: compact, aligned, readable in a 100-column terminal."""

from __future__ import annotations

import textwrap
from typing import Mapping

import pytest

from ..records import Cell, Comparison, GateVerdict, Metric, Report, RunSummary

WIDTH = 100


def format_estimate(estimate: Metric) -> str:
    if estimate.value is None:
        return "n/a"
    text = f"{estimate.value:.3f}"
    if estimate.has_ci:
        text += f" [{estimate.ci[0]:.3f}, {estimate.ci[1]:.3f}]"
    return text


def run_lines(run: RunSummary) -> list[str]:
    head = f"{run.key.suite} | {run.key.label()}"
    counts = f"n={run.n_items}"
    if run.n_errors or run.n_invalid:
        counts += f" ({run.n_errors} errors, {run.n_invalid} invalid)"
    lines = _wrap(f"{head}  {counts}", "", "    ")
    if run.note:  # e.g. an approximate offline judge: said beside the numbers it feeds
        lines.extend(_wrap(f"note: {run.note}", "  ", "    "))
    if run.gate_blocker:
        lines.extend(_wrap(f"not gated: {run.gate_blocker}", "  ", "    "))
    width = max((len(name) for name in run.metrics), default=0)
    for name, estimate in run.metrics.items():
        lines.append(f"  {name:<{width}}  {format_estimate(estimate)}")
    for dimension, cells in run.breakdown.items():
        lines.extend(_breakdown_lines(dimension, cells))
    return lines


def _breakdown_lines(dimension: str, cells: Mapping[str, Cell]) -> list[str]:
    """One line per dimension when it fits, wrapped at the terminal width otherwise."""
    parts = []
    for value, cell in cells.items():
        metric = next(iter(cell.metrics.values()), None)
        if metric is not None and metric.value is not None:
            parts.append(f"{value} {metric.value:.3f}")
    lines, current = [], f"  by {dimension}:"
    for part in parts:
        if len(current) + len(part) + 3 > WIDTH:
            lines.append(current)
            current = "    "
        current += f"  {part}"
    lines.append(current)
    return lines


#: test names as the terminal shows them
SHORT_TESTS = {"paired_cluster_bootstrap": "bootstrap", "mcnemar_exact": "McNemar", "cluster_sign_flip": "sign-flip"}


def comparison_lines(comparison: Comparison) -> list[str]:
    label_a, label_b = comparison.labels()
    head = f"{comparison.suite}: {label_a}  minus  {label_b}  ({comparison.n_paired} paired items)"
    lines = _wrap(head, "", "    ")
    for unpaired, who in ((comparison.only_a, label_a), (comparison.only_b, label_b)):
        if unpaired.count:
            names = ", ".join(unpaired.ids[:3]) + (", ..." if unpaired.count > 3 else "")
            lines.extend(_wrap(f"{unpaired.count} items scored only in {who}: {names}", "  ", "    "))
    if not comparison.metrics:
        return lines
    width = max(len("metric"), *(len(name) for name in comparison.metrics))
    lines.append(f"  {'metric':<{width}}  {'diff':>7}  {'95% CI':<18}  {'p':>6}  {'p Holm':>6}  {'MDE':>5}  test")
    for name, cell in comparison.metrics.items():
        interval = f"[{cell.ci[0]:+.3f}, {cell.ci[1]:+.3f}]" if cell.has_ci else "n/a"
        diff = f"{cell.difference:>+7.3f}" if cell.difference is not None else f"{'n/a':>7}"
        lines.append(
            f"  {name:<{width}}  {diff}  {interval:<18}  {_number(cell.p_value, 4):>6}"
            f"  {_number(cell.p_holm, 4):>6}  {_number(cell.mde, 3):>5}  {SHORT_TESTS.get(cell.test, cell.test)}"
        )
    return lines


def gate_lines(gate: GateVerdict) -> list[str]:
    verdict = "PASS" if gate.passed else "FAIL"
    detail = gate.detail
    if gate.mde is not None:
        detail += f"; smallest detectable effect {gate.mde:.3f}"
    return [f"  {verdict}  {gate.expression}", *_wrap(detail, "        ", "        ")]


def _number(value: float | None, digits: int) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _wrap(text: str, first: str, rest: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False) or [first]


def write_summary(terminal: pytest.TerminalReporter, report: Report) -> None:
    if not report.runs:
        return
    terminal.write_sep("=", "memeval summary")
    for index, run in enumerate(report.runs):
        if index:
            terminal.write_line("")
        for line in run_lines(run):
            terminal.write_line(line)
    if report.comparisons:
        terminal.write_sep("-", "paired comparisons (p Holm-adjusted over the session)")
        for comparison in report.comparisons:
            for line in comparison_lines(comparison):
                terminal.write_line(line)
    if report.gates:
        terminal.write_sep("-", "gates")
        for gate in report.gates:
            for line in gate_lines(gate):
                terminal.write_line(line, green=gate.passed, red=not gate.passed)
