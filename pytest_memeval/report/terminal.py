"""The terminal summary: compact, aligned, readable in a 100-column terminal."""

from __future__ import annotations

import textwrap
from typing import Any, Mapping, Sequence

import pytest

WIDTH = 100


def format_estimate(estimate: Mapping[str, Any]) -> str:
    value = estimate.get("value")
    if value is None:
        return "n/a"
    ci = estimate.get("ci")
    text = f"{value:.3f}"
    if ci and ci[0] is not None:
        text += f" [{ci[0]:.3f}, {ci[1]:.3f}]"
    return text


def run_lines(run: Mapping[str, Any]) -> list[str]:
    head = f"{run['suite']} | {run['memsystem']} | {run['responder']}"
    if run.get("k") is not None:
        head += f" | k={run['k']}"
    counts = f"n={run['n_items']}"
    if run.get("n_errors") or run.get("n_invalid"):
        counts += f" ({run['n_errors']} errors, {run['n_invalid']} invalid)"
    lines = _wrap(f"{head}  {counts}", "", "    ")
    if run.get("note"):  # e.g. an approximate offline judge: said beside the numbers it feeds
        lines.extend(_wrap(f"note: {run['note']}", "  ", "    "))
    metrics = run.get("metrics", {})
    width = max((len(name) for name in metrics), default=0)
    for name, estimate in metrics.items():
        lines.append(f"  {name:<{width}}  {format_estimate(estimate)}")
    for dimension, cells in run.get("breakdown", {}).items():
        lines.extend(_breakdown_lines(dimension, cells))
    return lines


def _breakdown_lines(dimension: str, cells: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """One line per dimension when it fits, wrapped at the terminal width otherwise."""
    parts = []
    for value, cell in cells.items():
        metric = next((v for k, v in cell.items() if isinstance(v, Mapping)), None)
        if metric is not None and metric.get("value") is not None:
            parts.append(f"{value} {metric['value']:.3f}")
    lines, current = [], f"  by {dimension}:"
    for part in parts:
        if len(current) + len(part) + 3 > WIDTH:
            lines.append(current)
            current = "    "
        current += f"  {part}"
    lines.append(current)
    return lines


#: test names as the terminal shows them
SHORT_TESTS = {"paired_cluster_bootstrap": "bootstrap", "mcnemar_exact": "McNemar"}


def comparison_lines(comparison: Mapping[str, Any]) -> list[str]:
    head = (
        f"{comparison['suite']}: {comparison['a']['label']}  minus  {comparison['b']['label']}"
        f"  ({comparison['n_paired']} paired items)"
    )
    lines = _wrap(head, "", "    ")
    for side in ("only_a", "only_b"):
        unpaired = comparison[side]
        if unpaired["count"]:
            who = comparison["a" if side == "only_a" else "b"]["label"]
            names = ", ".join(unpaired["ids"][:3]) + (", ..." if unpaired["count"] > 3 else "")
            lines.extend(_wrap(f"{unpaired['count']} items scored only in {who}: {names}", "  ", "    "))
    metrics = comparison["metrics"]
    if not metrics:
        return lines
    width = max(len("metric"), *(len(name) for name in metrics))
    lines.append(f"  {'metric':<{width}}  {'diff':>7}  {'95% CI':<18}  {'p':>6}  {'p Holm':>6}  {'MDE':>5}  test")
    for name, cell in metrics.items():
        ci = cell.get("ci") or [None, None]
        interval = f"[{ci[0]:+.3f}, {ci[1]:+.3f}]" if None not in ci else "n/a"
        p_holm = f"{cell['p_holm']:.4f}" if cell.get("p_holm") is not None else "n/a"
        mde = f"{cell['mde']:.3f}" if cell.get("mde") is not None else "n/a"
        p_value = f"{cell['p_value']:.4f}" if cell.get("p_value") is not None else "n/a"
        test = SHORT_TESTS.get(cell.get("test", ""), cell.get("test", ""))
        lines.append(
            f"  {name:<{width}}  {cell['difference']:>+7.3f}  {interval:<18}  {p_value:>6}  {p_holm:>6}"
            f"  {mde:>5}  {test}"
        )
    return lines


def gate_lines(gate: Mapping[str, Any]) -> list[str]:
    verdict = "PASS" if gate["passed"] else "FAIL"
    detail = gate["detail"]
    if gate.get("mde") is not None:
        detail += f"; smallest detectable effect {gate['mde']:.3f}"
    return [f"  {verdict}  {gate['expression']}", *_wrap(detail, "        ", "        ")]


def _wrap(text: str, first: str, rest: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False) or [first]


def write_summary(
    terminal: pytest.TerminalReporter,
    runs: Sequence[Mapping[str, Any]],
    comparisons: Sequence[Mapping[str, Any]] = (),
    gates: Sequence[Mapping[str, Any]] = (),
) -> None:
    if not runs:
        return
    terminal.write_sep("=", "memeval summary")
    for index, run in enumerate(runs):
        if index:
            terminal.write_line("")
        for line in run_lines(run):
            terminal.write_line(line)
    if comparisons:
        terminal.write_sep("-", "paired comparisons (p Holm-adjusted over the session)")
        for comparison in comparisons:
            for line in comparison_lines(comparison):
                terminal.write_line(line)
    if gates:
        terminal.write_sep("-", "gates")
        for gate in gates:
            for line in gate_lines(gate):
                terminal.write_line(line, green=gate["passed"], red=not gate["passed"])
