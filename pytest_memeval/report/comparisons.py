"""Paired comparisons: every pair of systems in one run, and each run against a baseline.

Records are paired by item id. Items scored on one side only (missing, errored or
invalid on the other) are counted and named, never silently dropped. All p-values of one
session form one family for the Holm correction.
"""

from __future__ import annotations

import math
from itertools import combinations
from typing import Any, Callable, Mapping, Sequence

Record = Mapping[str, Any]
CompareFn = Callable[[Sequence[Record], Sequence[Record]], dict[str, dict[str, Any]]]
#: how many unpaired item ids a comparison names
NAMED_IDS = 20


def scored(records: Sequence[Record]) -> dict[str, Record]:
    """Records that produced a verdict, by item id."""
    return {r["id"]: r for r in records if not r.get("error") and r.get("valid", True)}


def compare_runs(
    suite: str,
    a: tuple[Mapping[str, str], Sequence[Record]],
    b: tuple[Mapping[str, str], Sequence[Record]],
    compare: CompareFn,
    source: str,
    lower_is_better: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """One comparison (a minus b) of two runs of the same suite."""
    (label_a, records_a), (label_b, records_b) = a, b
    by_id_a, by_id_b = scored(records_a), scored(records_b)
    common = sorted(by_id_a.keys() & by_id_b.keys())
    only_a = sorted(by_id_a.keys() - by_id_b.keys())
    only_b = sorted(by_id_b.keys() - by_id_a.keys())
    comparison: dict[str, Any] = {
        "suite": suite,
        "a": dict(label_a),
        "b": dict(label_b),
        "source": source,
        "n_paired": len(common),
        "only_a": {"count": len(only_a), "ids": only_a[:NAMED_IDS]},
        "only_b": {"count": len(only_b), "ids": only_b[:NAMED_IDS]},
        "metrics": {},
    }
    if common:
        metrics = compare([by_id_a[i] for i in common], [by_id_b[i] for i in common])
        comparison["metrics"] = {
            name: dict(_clean(values), better="lower" if name in lower_is_better else "higher")
            for name, values in metrics.items()
        }
    return comparison


def pairs_within_session(
    runs: Sequence[tuple[Mapping[str, str], Sequence[Record]]],
    suite: str,
    compare: CompareFn,
    lower_is_better: frozenset[str] = frozenset(),
) -> list[dict[str, Any]]:
    """Every pair of runs of one suite, in the order the systems were named."""
    return [compare_runs(suite, a, b, compare, "run", lower_is_better) for a, b in combinations(runs, 2)]


def apply_holm(comparisons: Sequence[dict[str, Any]]) -> None:
    """Add `p_holm` to every metric of every comparison: one family per session."""
    from ..stats import holm  # scipy is slow to import; only sessions that compare need it

    cells = [m for c in comparisons for m in c["metrics"].values() if m.get("p_value") is not None]
    adjusted = holm([m["p_value"] for m in cells]) if cells else []
    for cell, p in zip(cells, adjusted):
        cell["p_holm"] = float(p)


def _clean(values: Mapping[str, Any]) -> dict[str, Any]:
    def number(x: Any) -> Any:
        if isinstance(x, float):
            return None if math.isnan(x) else x  # unrounded: gates compare these
        if isinstance(x, (list, tuple)):
            return [number(v) for v in x]
        return x

    return {key: number(value) for key, value in values.items()}
