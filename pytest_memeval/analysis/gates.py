"""Evaluating CI gates (syntax in gate_syntax.py) on a session's runs and comparisons.

Each verdict is printed with the smallest effect the run could detect, so a gate that
cannot fail on this much data is visible as toothless. Values are compared unrounded.
A run that covers part of its suite (-k, -m, --lf, --deselect) says so in the verdict;
with --memeval-gate-subset=refuse its gates fail.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence

from ..config.gate_syntax import Gate
from ..results.clusters import cluster_note, estimable
from ..results.records import Comparison, GateVerdict, Metric, RunSummary

_OPS: Mapping[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
}
#: z_{.975} + z_{.80}: turns a standard error into a minimum detectable effect
_MDE_FACTOR = 1.959964 + 0.841621


def evaluate(
    gate: Gate,
    runs: Sequence[RunSummary],
    comparisons: Sequence[Comparison],
    refuse_subsets: bool = False,
) -> list[GateVerdict]:
    """One verdict per run the gate applies to; a gate that matches nothing fails."""
    if gate.needs_baseline:
        verdicts = _no_regression(gate, comparisons)
        keys = [
            c.a
            for c in comparisons
            if c.source == "baseline" and c.suite == gate.suite and gate.system in (None, c.a.memsystem)
        ]
    else:
        matching = [r for r in runs if r.key.suite == gate.suite and gate.system in (None, r.key.memsystem)]
        if not matching:
            ran = ", ".join(sorted({f"{r.key.suite}[{r.key.memsystem}]" for r in runs})) or "none"
            return [
                GateVerdict(gate.expression, False, f"no run of this suite and system in the session (runs: {ran})")
            ]
        verdicts, keys = [_threshold(gate, run) for run in matching], [run.key for run in matching]
    if len(keys) != len(verdicts):  # no comparison matched: the one verdict says so
        return verdicts
    by_key = {run.key: run for run in runs}
    return [_on_subset(v, by_key.get(key), refuse_subsets) for v, key in zip(verdicts, keys)]


def _on_subset(verdict: GateVerdict, run: RunSummary | None, refuse: bool) -> GateVerdict:
    """The verdict says when its run covered part of the suite; refusing, it fails."""
    if run is None or run.subset is None:
        return verdict
    if refuse:
        detail = (
            f"{run.key.label()}: refused, the run covers a {run.subset.text()} "
            "(--memeval-gate-subset=refuse); run the whole suite"
        )
        return GateVerdict(verdict.expression, False, detail, verdict.mde)
    return GateVerdict(verdict.expression, verdict.passed, f"{verdict.detail} [{run.subset.text()}]", verdict.mde)


def _threshold(gate: Gate, run: RunSummary) -> GateVerdict:
    who = run.key.label()
    if run.gate_blocker:  # e.g. an offline reader that could not read the memories
        return GateVerdict(gate.expression, False, f"{who}: {run.gate_blocker}")
    estimate = run.metrics.get(gate.metric)
    if estimate is None or estimate.value is None:
        return GateVerdict(gate.expression, False, f"{who}: no value for {gate.metric}")
    mde = estimate.mde if estimate.mde is not None else _mde_from_ci(estimate)
    assert gate.op is not None and gate.threshold is not None
    if gate.use_ci and not estimable(run.n_clusters):
        return GateVerdict(gate.expression, False, f"{who}: {cluster_note(run.n_clusters)}")
    if gate.use_ci:
        lower = gate.op in (">=", ">")
        bound = estimate.ci[0] if lower else estimate.ci[1]
        if bound is None:
            why = f": {estimate.no_interval}" if estimate.no_interval else ""
            return GateVerdict(gate.expression, False, f"{who}: no confidence interval for {gate.metric}{why}", mde)
        passed = _OPS[gate.op](bound, gate.threshold)
        side = "lower" if lower else "upper"
        detail = (
            f"{who}: {side} CI bound {_shown(bound, gate.threshold, gate.op)} {_words(gate.op, passed)} "
            f"{gate.threshold:g} (value {estimate.value:.4f})"
        )
    else:
        passed = _OPS[gate.op](estimate.value, gate.threshold)
        shown = _shown(estimate.value, gate.threshold, gate.op)
        detail = f"{who}: value {shown} {_words(gate.op, passed)} {gate.threshold:g}"
    return GateVerdict(gate.expression, passed, _with_clusters(detail, run.n_clusters), mde)


#: how a comparison reads in words, when it holds and when it does not
_WORDS: Mapping[str, tuple[str, str]] = {
    ">=": ("is at least", "is below"),
    ">": ("is above", "is not above"),
    "<=": ("is at most", "is above"),
    "<": ("is below", "is not below"),
}


def _words(op: str, holds: bool) -> str:
    return _WORDS[op][0 if holds else 1]


def _with_clusters(detail: str, n_clusters: int | None) -> str:
    note = cluster_note(n_clusters)
    return f"{detail} [{note}]" if note else detail


def _shown(value: float, threshold: float, op: str) -> str:
    """Four decimals, or as many as it takes to show why a value next to the threshold
    passed or failed (0.7499996 fails >= 0.75; '0.7500' would not say why)."""
    short = f"{value:.4f}"
    if _OPS[op](float(short), threshold) == _OPS[op](value, threshold):
        return short
    return f"{value:.10g}"


def _mde_from_ci(estimate: Metric) -> float | None:
    low, high = estimate.ci
    if low is None or high is None:
        return None
    return _MDE_FACTOR * (high - low) / (2 * 1.959964)


def _no_regression(gate: Gate, comparisons: Sequence[Comparison]) -> list[GateVerdict]:
    matching = [
        c
        for c in comparisons
        if c.source == "baseline" and c.suite == gate.suite and gate.system in (None, c.a.memsystem)
    ]
    if not matching:
        return [GateVerdict(gate.expression, False, "no baseline comparison for this suite and system")]
    verdicts = []
    for comparison in matching:
        who = comparison.a.label()
        if not estimable(comparison.n_clusters):
            verdicts.append(GateVerdict(gate.expression, False, f"{who}: {cluster_note(comparison.n_clusters)}"))
            continue
        cell = comparison.metrics.get(gate.metric)
        low, high = cell.ci if cell is not None else (None, None)
        if cell is None or cell.difference is None or low is None or high is None:
            why = f": {cell.no_interval}" if cell is not None and cell.no_interval else ""
            verdicts.append(GateVerdict(gate.expression, False, f"{who}: no paired interval for {gate.metric}{why}"))
            continue
        assert gate.margin is not None
        if cell.better == "lower":
            passed, bound = not low > gate.margin, f"above +{gate.margin:g}"
        else:
            passed, bound = not high < -gate.margin, f"below -{gate.margin:g}"
        detail = (
            f"{who}: {cell.difference:+.4f} [{low:+.4f}, {high:+.4f}] against the baseline{_other_run(comparison)} "
            f"over {comparison.n_paired} paired items; fails when the interval lies {bound}"
        )
        verdicts.append(GateVerdict(gate.expression, passed, _with_clusters(detail, comparison.n_clusters), cell.mde))
    return verdicts


def _other_run(comparison: Comparison) -> str:
    """Where the baseline's run differs from the run (it was paired as the baseline's only
    run of the suite): the verdict says which axes differ, so that a comparison of another
    memory system, k, responder or judge is never taken for a regression check."""
    a, b = comparison.a, comparison.b
    differ = [
        f"{axis} {getattr(b, axis)}"
        for axis in ("memsystem", "responder", "judge", "k")
        if getattr(a, axis) != getattr(b, axis)
    ]
    if not differ:
        return ""
    return f" (NOT the same run: the baseline's only {comparison.suite} run has {', '.join(differ)})"
