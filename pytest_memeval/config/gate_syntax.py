"""The syntax of CI gates (--memeval-gate), parsed at configure time.

    multisource.accuracy>=0.75              point estimate against a threshold
    ci:multisource.accuracy>=0.75           the CI bound on the far side of the threshold
                                            (lower bound for >= and >, upper for <= and <)
    multisource[mem0].accuracy>=0.75        only the runs of one memory system
    multisource.f0.5>=0.7                   metric names may contain dots
    ci:locomo.recall_at_k>=0.6              a retrieval metric, of a suite that declares evidence
                                            (thresholds only: running/settings_checks.py)
    multisource.accuracy:no-regression=0.02 fails when the paired CI of (run - baseline) lies
                                            entirely below -0.02 (above +0.02 for a metric
                                            where lower is better); the margin defaults to 0

A suite name has no dots, so everything after the first dot (or after `[system].`) is
the metric. Evaluation is in analysis/gates.py.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import ConfigError

_TARGET = r"(?P<suite>[\w-]+)(?:\[(?P<system>[^\]]+)\])?\.(?P<metric>\w[\w.]*)"
_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)"
_THRESHOLD = re.compile(rf"^(?P<ci>ci:)?{_TARGET}\s*(?P<op>>=|<=|>|<)\s*(?P<value>{_NUMBER})$")
_NO_REGRESSION = re.compile(rf"^{_TARGET}:no-regression(?:=(?P<margin>{_NUMBER}))?$")


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


def can_never_fail(gate: Gate, bounds: tuple[float, float]) -> bool:
    """Whether every value of a metric that lies in `bounds` (lowest, highest) passes the
    gate: a threshold at or beyond the far end of the range, or a no-regression margin as
    wide as the range (a paired difference lies within +-(highest - lowest))."""
    low, high = bounds
    if gate.margin is not None:
        return gate.margin >= high - low
    assert gate.threshold is not None
    threshold = gate.threshold
    return {
        ">=": threshold <= low,
        ">": threshold < low,
        "<=": threshold >= high,
        "<": threshold > high,
    }[gate.op or ">="]


def parse_gates(expressions: Sequence[str], baseline: str | None) -> tuple[Gate, ...]:
    """--memeval-gate's expressions; a no-regression gate needs --memeval-baseline."""
    gates = tuple(parse_gate(expression) for expression in expressions)
    for gate in gates:
        if gate.needs_baseline and baseline is None:
            raise ConfigError(f"--memeval-gate: {gate.expression!r} needs --memeval-baseline")
    return gates


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
            threshold=_finite(expression, match["value"], "threshold"),
            use_ci=bool(match["ci"]),
        )
    match = _NO_REGRESSION.match(text)
    if match:
        margin = _finite(expression, match["margin"] or "0", "no-regression margin")
        if margin < 0:
            raise ConfigError(f"--memeval-gate: {expression!r}: the no-regression margin must not be negative")
        return Gate(text, match["suite"], match["metric"], match["system"], margin=margin)
    raise ConfigError(
        f"--memeval-gate: cannot read {expression!r} "
        "(expected e.g. multisource.accuracy>=0.75, ci:multisource.accuracy>=0.75 "
        "or multisource.accuracy:no-regression=0.02)"
    )


def _finite(expression: str, text: str, what: str) -> float:
    """A number of the gate; one too large for a float (read as inf) would make a gate that
    can never fail (or always fails)."""
    value = float(text)
    if not math.isfinite(value):
        raise ConfigError(f"--memeval-gate: the {what} of {expression[:60]!r}... is too large to be a finite number")
    return value
