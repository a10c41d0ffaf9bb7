"""A/B pairs alternated in the same minutes, for figures taken on a shared machine.

    pairs = run_pairs({"a": measure_a, "b": measure_b}, count=5)
    print(ratio_line("b / a", [p["b"]["cpu_s"] / p["a"]["cpu_s"] for p in pairs], pairs))

Each arm is a function that does one run and returns its figures (a dict of numbers).
Every arm runs once to warm up before the first pair (its figures dropped), so that both
meet the same caches; then `count` pairs, the arms of a pair back to back, their order
alternating from pair to pair (a, b / b, a / ...), the 1-minute load average read before
each pair. A ratio is taken within each pair and the pairs' ratios summarised by their
median and range, with the load average beside them: on a machine whose load moves
between minutes, a ratio of two runs in the same minute is what reproduces, not either
run's seconds.
"""

from __future__ import annotations

import os
import statistics
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

Figures = dict[str, float]


@dataclass
class Pair:
    """One pair: the 1-minute load average when it started, and each arm's figures."""

    load: float
    arms: dict[str, Figures] = field(default_factory=dict)

    def __getitem__(self, arm: str) -> Figures:
        return self.arms[arm]


def load_average() -> float:
    """The 1-minute load average (0 where the system has none)."""
    return 0.0 if sys.platform == "win32" else os.getloadavg()[0]


def run_pairs(
    arms: Mapping[str, Callable[[], Figures]],
    count: int,
    report: Callable[[int, str, Figures], None] | None = None,
    warm_up: bool = True,
) -> list[Pair]:
    """`count` pairs of the arms (two or more, run in turn, the order reversed every other
    pair), each arm warmed up once first; `report(pair, arm, figures)` after each run."""
    names = list(arms)
    if warm_up:
        for name in names:
            arms[name]()
    pairs: list[Pair] = []
    for index in range(count):
        pair = Pair(load_average())
        for name in names if index % 2 == 0 else names[::-1]:
            figures = arms[name]()
            pair.arms[name] = figures
            if report is not None:
                report(index + 1, name, figures)
        pairs.append(pair)
    return pairs


def loads(pairs: Sequence[Pair]) -> str:
    values = [p.load for p in pairs]
    return f"load average (1 min) {min(values):.2f} to {max(values):.2f}"


def ratio_line(label: str, ratios: Sequence[float], pairs: Sequence[Pair]) -> str:
    """'label: median 1.23x (range 1.10x to 1.31x, 5 pairs), load average (1 min) a to b'."""
    return (
        f"{label}: median {statistics.median(ratios):.2f}x (range {min(ratios):.2f}x to {max(ratios):.2f}x, "
        f"{len(ratios)} pairs), {loads(pairs)}"
    )


def median_of(pairs: Sequence[Pair], arm: str, name: str) -> float:
    return statistics.median(p[arm][name] for p in pairs)
