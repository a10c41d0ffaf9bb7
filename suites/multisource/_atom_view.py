"""Shared machinery of the atom readout: a per-source view of the evidence and helpers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._common import DAYS, NUM_DAYS, SOURCE_NAMES
from .parse import DAILY_SOURCES, ParsedSources

Rec = Mapping[str, Any]
Mu = dict[str, "str | None"]
LAST_14 = range(NUM_DAYS - 13, NUM_DAYS + 1)
LAST_7 = range(NUM_DAYS - 6, NUM_DAYS + 1)


class View:
    """Profile facts (or None) and, per daily source, the records present by day_index."""

    def __init__(self, sources: Mapping[str, Any] | ParsedSources) -> None:
        if isinstance(sources, ParsedSources):
            sources = sources.as_sources()
        sources = getattr(sources, "sources", sources)  # a Persona
        prof = sources.get("profile_ltm")
        self.facts: Mapping[str, Any] | None = None if prof is None else prof.get("facts", prof)
        self.days: dict[str, dict[int, Rec]] = {}
        for name in DAILY_SOURCES:
            doc = sources.get(name)
            recs = [] if doc is None else doc["records"] if isinstance(doc, Mapping) else doc
            self.days[name] = {int(r["day_index"]): r for r in recs}
        self.sr, self.pl = self.days["daily_self_report"], self.days["planner"]
        self.obj, self.dl = self.days["objective_log"], self.days["device_log"]

    def block(self, name: str) -> Mapping[str, Any] | None:
        """A routine-snapshot block of the profile, None when the profile did not show it."""
        if self.facts is None:
            return None
        return (self.facts.get("routine_snapshot") or {}).get(name)


def g(d: Any, *keys: str, default: Any = None) -> Any:
    for k in keys:
        # records are plain dicts: the exact type test spares the ABC check on the hot path
        if type(d) is not dict and not isinstance(d, Mapping):
            return default
        d = d.get(k)
    return default if d is None else d


def scale(count: int, seen: int, window: int) -> int:
    return count if seen == window or seen == 0 else round(count * window / seen)


def weekend(day: int) -> bool:
    return DAYS[day - 1][2]


def available_days(days: Mapping[int, Rec]) -> dict[int, Rec]:
    return {d: r for d, r in days.items() if r.get("available")}


def calendar(rec: Rec) -> list[Rec]:
    return g(rec, "signals", "calendar", default=[])


def has(rec: Rec, *kinds: str) -> bool:
    return any(e.get("kind") in kinds for e in calendar(rec))


def long_work(rec: Rec) -> bool:
    return any(e.get("kind") == "work_block" and e.get("duration_min", 0) > 540 for e in calendar(rec))


def n_social(rec: Rec) -> int:
    return len(g(rec, "social", "activities", default=[]))


def nights(n: int) -> str:
    return "20_or_more" if n >= 20 else "10_to_19" if n >= 10 else "fewer_than_10"


def overtime(n: int) -> str:
    return "8_or_more" if n >= 8 else "4_to_7" if n >= 4 else "0_to_3"


def home_share(r: float) -> str:
    return "70_or_more" if r >= 0.7 else "40_to_69" if r >= 0.4 else "less_than_40"


def empty() -> Mu:
    return dict.fromkeys(SOURCE_NAMES)


def all_sources(label: str | None) -> Mu:
    return dict.fromkeys(SOURCE_NAMES, label)
