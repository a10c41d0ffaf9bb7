"""CI gates: thresholds on metrics and no-regression checks against a baseline.

    multisource.accuracy>=0.75              point estimate against a threshold
    ci:multisource.accuracy>=0.75           the CI bound on the far side of the threshold
                                            (lower bound for >= and >, upper for <= and <)
    multisource[mem0].accuracy>=0.75        only the runs of one memory system
    multisource.accuracy:no-regression=0.02 fails when the paired CI of (run - baseline) lies
                                            entirely below -0.02 (above +0.02 for a metric
                                            where lower is better); the margin defaults to 0

Each verdict is printed with the smallest effect the run could detect, so a gate that
cannot fail on this much data is visible as toothless.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from ..errors import ConfigError

_THRESHOLD = re.compile(
    r"^(?P<ci>ci:)?(?P<suite>[\w.-]+?)(?:\[(?P<system>[^\]]+)\])?\.(?P<metric>\w+)"
    r"\s*(?P<op>>=|<=|>|<)\s*(?P<value>-?\d+(?:\.\d+)?)$"
)
_NO_REGRESSION = re.compile(
    r"^(?P<suite>[\w.-]+?)(?:\[(?P<system>[^\]]+)\])?\.(?P<metric>\w+)"
    r":no-regression(?:=(?P<margin>\d+(?:\.\d+)?))?$"
)
_OPS: Mapping[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
}
#: z_{.975} + z_{.80}: turns a standard error into a minimum detectable effect
_MDE_FACTOR = 1.959964 + 0.841621


@dataclass(frozen=True)
class Gate:
    expression: str
    suite: str
    metric: str
    system: str | None = None
    op: str | None = None
    threshold: float | None = None
    use_ci: bool = False
    margin: float | None = None  # set for no-regression gates

    @property
    def needs_baseline(self) -> bool:
        return self.margin is not None


def parse_gate(expression: str) -> Gate:
    text = expression.strip()
    match = _THRESHOLD.match(text)
    if match:
        return Gate(
            text,
            match["suite"],
            match["metric"],
            match["system"],
            op=match["op"],
            threshold=float(match["value"]),
            use_ci=bool(match["ci"]),
        )
    match = _NO_REGRESSION.match(text)
    if match:
        return Gate(text, match["suite"], match["metric"], match["system"], margin=float(match["margin"] or 0))
    raise ConfigError(
        f"--memeval-gate: cannot read {expression!r} "
        "(expected e.g. multisource.accuracy>=0.75, ci:multisource.accuracy>=0.75 "
        "or multisource.accuracy:no-regression=0.02)"
    )


def evaluate(gate: Gate, runs: Sequence[Mapping[str, Any]], comparisons: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One verdict per run the gate applies to; a gate that matches nothing fails."""
    if gate.needs_baseline:
        return _no_regression(gate, comparisons)
    matching = [r for r in runs if r["suite"] == gate.suite and gate.system in (None, r["memsystem"])]
    if not matching:
        ran = ", ".join(sorted({f"{r['suite']}[{r['memsystem']}]" for r in runs})) or "none"
        return [_verdict(gate, False, f"no run of this suite and system in the session (runs: {ran})", None)]
    return [_threshold(gate, run) for run in matching]


def _threshold(gate: Gate, run: Mapping[str, Any]) -> dict[str, Any]:
    who = f"{run['memsystem']} | {run['responder']}" + (f" | k={run['k']}" if run.get("k") is not None else "")
    estimate = run.get("metrics", {}).get(gate.metric)
    if not estimate or estimate.get("value") is None:
        return _verdict(gate, False, f"{who}: no value for {gate.metric}", None)
    value, ci = estimate["value"], estimate.get("ci") or [None, None]
    mde = _MDE_FACTOR * (ci[1] - ci[0]) / (2 * 1.959964) if None not in ci else None
    assert gate.op is not None and gate.threshold is not None
    if gate.use_ci:
        bound = ci[0] if gate.op in (">=", ">") else ci[1]
        if bound is None:
            return _verdict(gate, False, f"{who}: no confidence interval for {gate.metric}", mde)
        passed = _OPS[gate.op](bound, gate.threshold)
        detail = f"{who}: CI bound {bound:.4f} {gate.op} {gate.threshold:g} (value {value:.4f})"
    else:
        passed = _OPS[gate.op](value, gate.threshold)
        detail = f"{who}: {value:.4f} {gate.op} {gate.threshold:g}"
    return _verdict(gate, passed, detail, mde)


def _no_regression(gate: Gate, comparisons: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    matching = [
        c
        for c in comparisons
        if c["source"] == "baseline" and c["suite"] == gate.suite and gate.system in (None, c["a"]["memsystem"])
    ]
    if not matching:
        return [_verdict(gate, False, "no baseline comparison for this suite and system", None)]
    verdicts = []
    for comparison in matching:
        who = comparison["a"]["label"]
        cell = comparison["metrics"].get(gate.metric)
        if not cell or cell.get("ci") is None or None in cell["ci"]:
            verdicts.append(_verdict(gate, False, f"{who}: no paired interval for {gate.metric}", None))
            continue
        low, high = cell["ci"]
        assert gate.margin is not None
        if cell.get("better") == "lower":
            passed, bound = not low > gate.margin, f"above +{gate.margin:g}"
        else:
            passed, bound = not high < -gate.margin, f"below -{gate.margin:g}"
        detail = (
            f"{who}: {cell['difference']:+.4f} [{low:+.4f}, {high:+.4f}] against the baseline "
            f"over {comparison['n_paired']} paired items; fails when the interval lies {bound}"
        )
        verdicts.append(_verdict(gate, passed, detail, cell.get("mde")))
    return verdicts


def _verdict(gate: Gate, passed: bool, detail: str, mde: float | None) -> dict[str, Any]:
    return {"expression": gate.expression, "passed": passed, "detail": detail, "mde": None if mde is None else round(mde, 6)}
