"""Paired comparisons: every pair of runs of a suite in one session, and each run against
its baseline.

Records are paired by item id (and repeat, with --memeval-repeat). Items scored on one
side only (missing, errored or invalid on the other) are counted and named, never
silently dropped. All p-values of one session form one family for the Holm correction.
Items whose verdict differs between the sides are listed as flipped.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from itertools import combinations

from msgspec.structs import replace

from ..results.clusters import count_clusters, estimable
from ..results.records import (
    Comparison,
    FlippedItem,
    PairedMetric,
    Record,
    RunKey,
    Source,
    Unpaired,
    p_value_cells,
    with_holm,
)

CompareFn = Callable[[Sequence[Record], Sequence[Record]], Mapping[str, PairedMetric]]
#: how many unpaired item ids a comparison names
NAMED_IDS = 20


PairKey = tuple[str, int]  # (item id, repeat)


def scored_by_id(records: Sequence[Record]) -> dict[PairKey, Record]:
    return {(r.id, r.repeat): r for r in records if r.is_scored}


def named(key: PairKey) -> str:
    """An item as an unpaired list names it: its id, and its repeat beyond the first."""
    item_id, repeat = key
    return f"{item_id} r{repeat}" if repeat else item_id


def flipped_items(a: Sequence[Record], b: Sequence[Record]) -> tuple[FlippedItem, ...]:
    """Items (paired records) whose share of repeats judged correct differs between a and
    b, those worse in a first, then by id."""
    shares = []
    for side in (a, b):
        verdicts: dict[str, list[bool]] = defaultdict(list)
        for record in side:
            if record.correct is not None:
                verdicts[record.id].append(bool(record.correct))
        shares.append({i: sum(v) / len(v) for i, v in verdicts.items()})
    flips = [
        FlippedItem(i, shares[0][i], shares[1][i])
        for i in sorted(shares[0].keys() & shares[1].keys())
        if shares[0][i] != shares[1][i]
    ]
    return tuple(sorted(flips, key=lambda f: (not f.worse_in_a, f.id)))


def compare_runs(
    a: tuple[RunKey, Sequence[Record]],
    b: tuple[RunKey, Sequence[Record]],
    compare: CompareFn,
    source: Source,
    lower_is_better: frozenset[str] = frozenset(),
    bounds: Mapping[str, tuple[float, float]] | None = None,
) -> Comparison:
    """One comparison (a minus b) of two runs of the same suite; `bounds` are the ranges of
    the metrics where they are known (each difference's interval is checked against them)."""
    from ..stats.estimability import checked_paired  # numpy and the stats

    (key_a, records_a), (key_b, records_b) = a, b
    by_id_a, by_id_b = scored_by_id(records_a), scored_by_id(records_b)
    common = sorted(by_id_a.keys() & by_id_b.keys())
    only_a = sorted(by_id_a.keys() - by_id_b.keys())
    only_b = sorted(by_id_b.keys() - by_id_a.keys())
    metrics: dict[str, PairedMetric] = {}
    n_clusters = count_clusters(by_id_a[i] for i in common) if common else None
    if common:
        try:
            compared = compare([by_id_a[i] for i in common], [by_id_b[i] for i in common])
        except Exception:
            if estimable(n_clusters):
                raise
            compared = {}  # a suite's test may refuse one cluster; its note says why nothing is shown
        metrics = {
            name: replace(
                checked_paired(cell, n_clusters, (bounds or {}).get(name)),
                better="lower" if name in lower_is_better else "higher",
            )
            for name, cell in compared.items()
        }
    return Comparison(
        suite=key_a.suite,
        a=key_a,
        b=key_b,
        source=source,
        n_paired=len(common),
        metrics=metrics,
        only_a=Unpaired(len(only_a), tuple(map(named, only_a[:NAMED_IDS]))),
        only_b=Unpaired(len(only_b), tuple(map(named, only_b[:NAMED_IDS]))),
        flipped=flipped_items([by_id_a[i] for i in common], [by_id_b[i] for i in common]),
        n_clusters=n_clusters,
    )


def pairs_within_session(
    runs: Sequence[tuple[RunKey, Sequence[Record]]],
    compare: CompareFn,
    lower_is_better: frozenset[str] = frozenset(),
    bounds: Mapping[str, tuple[float, float]] | None = None,
) -> list[Comparison]:
    """Every pair of runs of one suite, in the order the systems were named."""
    return [compare_runs(a, b, compare, "run", lower_is_better, bounds) for a, b in combinations(runs, 2)]


def apply_holm(comparisons: Sequence[Comparison]) -> list[Comparison]:
    """The comparisons with `p_holm` on every metric that has a p-value: one family per session."""
    cells = p_value_cells(comparisons)
    if not cells:
        return list(comparisons)
    from ..stats import holm  # scipy is slow to import; only sessions that compare need it

    p_values = [c.p_value for c in cells if c.p_value is not None]
    return with_holm(comparisons, [float(p) for p in holm(p_values)])
