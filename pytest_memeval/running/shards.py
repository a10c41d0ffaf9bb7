"""--memeval-shard I/N: a deterministic 1/N of a run's contexts, for N CI jobs.

The unit is a context (suite, context id) with every item, memory system, depth and repeat
of it, so each context is filled in one job only. Units are dealt heaviest first, each to
the shard with the least weight so far (ties: the lower shard, then the unit's name), which
every job computes alike from the same collection: the shards are disjoint and their union
is the whole run. The weight of a unit is its number of items, or with
--memeval-shard-durations (a previous report) the seconds its records took; a unit that
report lacks weighs its items times the report's mean seconds per item. Tests that are not
memeval items run in shard 1 only.

N is at most the run's number of contexts where its suites are known before collection (the
bundled suites: a shard with no context would run nothing), and at most MAX_SHARDS always
(config/shard_syntax.py reads the option).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

import pytest

from ..config.shard_syntax import OPTION, Shard
from ..errors import ConfigError
from ..results.reading import read_report
from ..results.records import Record
from .collection import context_of

#: (suite as the test names it, context id)
Unit = tuple[str, str]


def check_shard_count(shard: Shard, units: Collection[Unit]) -> None:
    """A run of these contexts has at most one shard per context."""
    if shard.count > len(units):
        raise ConfigError(
            f"{OPTION}: {shard}: this run has {len(units)} context{'s' if len(units) != 1 else ''}, so at most "
            f"{len(units)} shard{'s' if len(units) != 1 else ''} (a shard runs whole contexts)"
        )


def record_seconds(record: Record) -> float:
    """The time an item's record says it took (retrieval and answer)."""
    return sum(ms for ms in (record.retrieve_ms, record.answer_ms) if ms is not None) / 1000


def durations(path: Path) -> dict[Unit, float]:
    """Seconds per unit in a previous report."""
    seconds: dict[Unit, float] = {}
    for record in read_report(path, f"{OPTION}-durations").records:
        unit = (record.suite_ref, record.context)
        seconds[unit] = seconds.get(unit, 0.0) + record_seconds(record)
    return seconds


def assign(weights: Mapping[Unit, float], sizes: Mapping[Unit, int], count: int) -> dict[Unit, int]:
    """Each unit's shard (1-based): heaviest first, to the lightest shard so far; item
    counts break ties of weight (so that units that weigh nothing still spread)."""
    loads = [(0.0, 0)] * min(count, len(weights))  # shards beyond one per unit stay empty
    shards = {}
    for unit in sorted(weights, key=lambda u: (-weights[u], -sizes[u], u)):
        lightest = min(range(len(loads)), key=lambda i: (loads[i], i))
        shards[unit] = lightest + 1
        weight, size = loads[lightest]
        loads[lightest] = (weight + weights[unit], size + sizes[unit])
    return shards


def split(
    items: Sequence[pytest.Item], shard: Shard, seconds: Mapping[Unit, float] | None = None
) -> tuple[list[pytest.Item], list[pytest.Item]]:
    """(kept, deselected) items of this shard."""
    units = [context_of(item) for item in items]
    sizes = Counter(unit for unit in units if unit is not None)
    weights: dict[Unit, float] = dict(sizes)
    if seconds:
        known = [unit for unit in sizes if unit in seconds]
        per_item = sum(seconds[u] for u in known) / max(1, sum(sizes[u] for u in known))
        weights = {unit: seconds.get(unit, per_item * size) for unit, size in sizes.items()}
    shards = assign(weights, sizes, shard.count)
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item, unit in zip(items, units):
        mine = shards[unit] == shard.index if unit is not None else shard.index == 1
        (kept if mine else dropped).append(item)
    return kept, dropped
