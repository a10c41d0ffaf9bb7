"""The terminal summary: compact, aligned, readable in a 100-column terminal."""

from __future__ import annotations

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
    counts = f"n={run['n_items']}"
    if run.get("n_errors") or run.get("n_invalid"):
        counts += f" ({run['n_errors']} errors, {run['n_invalid']} invalid)"
    lines = [f"{head}  {counts}"]
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


def write_summary(terminal: pytest.TerminalReporter, runs: Sequence[Mapping[str, Any]]) -> None:
    if not runs:
        return
    terminal.write_sep("=", "memeval summary")
    for index, run in enumerate(runs):
        if index:
            terminal.write_line("")
        for line in run_lines(run):
            terminal.write_line(line)
