"""One synthetic life: a narrator, a cast, a few hundred first-person units over years.

`generate_life(seed, index)` is a pure function of its arguments: its random stream is
derived from (seed, index) alone, so building one life gives exactly what a full run
gives. Lives come in three styles mirroring the paper's datasets: dataset1 is
flashback-heavy, dataset2 event-dense, dataset3 introspective.

The present spans six years of the narrator's thirties, one session per narrated day.
Recalled childhood episodes sit in the session of the present day that triggered them,
but carry their own historical timestamps.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from . import episodes as ep
from .episodes import Draft, Facts, PrincipleFacts
from .stream import Unit
from .vocab import (
    ATTRIBUTES,
    CAST_EVENTS,
    CHILDHOOD_PLACES,
    EXCHANGE_PLACES,
    ITEMS,
    NAMES,
    PRESENT_PLACES,
    ROLES,
    SCENE_DURATIONS,
    SCENES,
)
from .vocab_mind import MISMATCHES, PRINCIPLES, RECALLS, SEVERITY

DATASETS = ("dataset1", "dataset2", "dataset3")
STYLE_NAMES = {"dataset1": "flashback-heavy", "dataset2": "event-dense", "dataset3": "introspective"}

#: how many episodes of each kind a life of each style narrates
STYLES: Mapping[str, Mapping[str, int]] = {
    "dataset1": dict(
        exchange_pairs=4,
        exchanges=6,
        scenes=6,
        sustained=11,
        transient=3,
        states=4,
        mismatches=10,
        principles=3,
        filler=14,
    ),
    "dataset2": dict(
        exchange_pairs=6,
        exchanges=10,
        scenes=9,
        sustained=7,
        transient=3,
        states=3,
        mismatches=10,
        principles=3,
        filler=14,
    ),
    "dataset3": dict(
        exchange_pairs=4,
        exchanges=6,
        scenes=6,
        sustained=7,
        transient=4,
        states=4,
        mismatches=16,
        principles=4,
        filler=14,
    ),
}
SEVERITY_EVENTS = 7  # per dimension: one per level of its scale
EVENTS_PER_PERSON = 2
PRESENT_YEARS = 6


@dataclass(frozen=True)
class Life:
    context_id: str
    seed: int
    index: int
    dataset: str
    narrator: str
    born: int
    present_years: tuple[int, ...]
    cast: Mapping[str, str]  # name -> role
    units: tuple[Unit, ...]  # narration order; unit.id is the position + 1
    sessions: tuple[tuple[int, ...], ...]  # unit ids per narrated day
    facts: Facts

    def unit(self, unit_id: int) -> Unit:
        return self.units[unit_id - 1]


def context_id(seed: int, index: int) -> str:
    return f"s{seed}-life{index:02d}"


def life_rng(seed: int, index: int, purpose: str) -> random.Random:
    # str seeds are hashed with SHA-512 by random.seed: stable across processes and runs
    return random.Random(f"knowme:{seed}:{index}:{purpose}")


def generate_life(seed: int, index: int) -> Life:
    rng = life_rng(seed, index, "life")
    dataset = DATASETS[index % len(DATASETS)]
    style = STYLES[dataset]
    names = rng.sample(NAMES, len(ROLES) + 1)
    narrator, cast = names[0], dict(zip(names[1:], ROLES))
    people = list(cast)
    born = rng.randint(1968, 1982)
    first_year = born + rng.randint(30, 34)
    years = tuple(range(first_year, first_year + PRESENT_YEARS))
    days = _DayPool(rng, date(years[0], 1, 1), date(years[-1], 12, 31))
    past_days = _DayPool(rng, date(born + 6, 1, 1), date(born + 14, 12, 31))
    drafts: list[Draft] = []

    events = rng.sample(CAST_EVENTS, EVENTS_PER_PERSON * len(people))
    person_events = {p: events[i * EVENTS_PER_PERSON : (i + 1) * EVENTS_PER_PERSON] for i, p in enumerate(people)}
    news_day = {}
    for person, own in person_events.items():
        for event in own:
            news_day[event] = days.take(year=rng.choice(years[:3]))
            drafts.append(ep.news(rng, news_day[event], _time(rng, 8, 20), rng.choice(PRESENT_PLACES), person, event))

    def exchange(day: date, start: int, place: str, person: str, direction: str) -> Draft:
        earlier = [e for e in person_events[person] if news_day[e] < day]
        cause = rng.choice(earlier) if earlier and rng.random() < 0.8 else None
        return ep.exchange(rng, day, start, place, person, direction, rng.sample(ITEMS, rng.randint(2, 4)), cause)

    for _ in range(style["exchange_pairs"]):
        day, person, direction = days.take(), rng.choice(people), rng.choice(("buy", "give"))
        morning, afternoon = rng.sample(EXCHANGE_PLACES, 2)
        drafts.append(exchange(day, _time(rng, 9, 11), morning, person, direction))
        drafts.append(exchange(day, _time(rng, 14, 16), afternoon, person, direction))
    for _ in range(style["exchanges"]):
        drafts.append(
            exchange(
                days.take(),
                _time(rng, 8, 18),
                rng.choice(EXCHANGE_PLACES),
                rng.choice(people),
                rng.choice(("buy", "give")),
            )
        )

    for which in rng.sample(range(len(SCENES)), style["scenes"]):
        drafts.append(ep.scene(rng, days.take(), _time(rng, 8, 16), which, rng.choice(SCENE_DURATIONS)))

    recalls = rng.sample(range(len(RECALLS)), style["sustained"] + style["transient"])
    for which in recalls[: style["sustained"]]:
        drafts.append(
            ep.sustained_recall(
                rng, days.take(), _time(rng, 8, 19), rng.choice(PRESENT_PLACES), which, past_days.take()
            )
        )
    for which in recalls[style["sustained"] :]:
        drafts.append(ep.transient_recall(rng, days.take(), _time(rng, 8, 19), rng.choice(PRESENT_PLACES), which))

    for attribute, past, present in rng.sample(ATTRIBUTES, style["states"]):
        told = days.take(year=years[0])
        drafts.append(ep.state_statement(told, _time(rng, 8, 20), rng.choice(PRESENT_PLACES), attribute, present))
        past_day = past_days.take()
        drafts.append(
            ep.state_memory(
                rng,
                days.take(year=years[-1]),
                _time(rng, 8, 20),
                rng.choice(PRESENT_PLACES),
                past_day,
                rng.choice(CHILDHOOD_PLACES),
                attribute,
                past,
                past_day.year - born,
            )
        )

    for dimension, spec in SEVERITY.items():
        levels = rng.sample(range(1, SEVERITY_EVENTS + 1), SEVERITY_EVENTS)
        for description, level in zip(rng.sample(spec["events"], SEVERITY_EVENTS), levels):
            drafts.append(
                ep.severity_event(
                    days.take(), _time(rng, 8, 20), rng.choice(PRESENT_PLACES), dimension, description, level
                )
            )

    for which in rng.sample(range(len(MISMATCHES)), style["mismatches"]):
        drafts.append(ep.mismatch(days.take(), _time(rng, 8, 21), which, rng.choice(people)))

    principle_drafts = []
    for which in rng.sample(range(len(PRINCIPLES)), style["principles"]):
        shown = [
            ep.principle_episode(
                days.take(), _time(rng, 8, 20), rng.choice(PRESENT_PLACES), which, i, rng.choice(people)
            )
            for i in range(len(PRINCIPLES[which]["episodes"]))
        ]
        origin = ep.principle_origin(
            rng,
            days.take(),
            _time(rng, 8, 20),
            rng.choice(PRESENT_PLACES),
            which,
            past_days.take(),
            rng.choice(CHILDHOOD_PLACES),
        )
        drafts.extend(shown + [origin])
        principle_drafts.append((which, shown, origin))

    for _ in range(style["filler"]):
        drafts.append(ep.filler(rng, days.take(), _time(rng, 7, 21)))

    units, sessions, bound = _narrate(drafts)
    facts = _facts(drafts, bound, principle_drafts)
    return Life(context_id(seed, index), seed, index, dataset, narrator, born, years, cast, units, sessions, facts)


class _DayPool:
    """Distinct random days of a span, drawn without replacement (optionally from one year)."""

    def __init__(self, rng: random.Random, first: date, last: date) -> None:
        self.rng = rng
        self.free = [first + timedelta(days=i) for i in range((last - first).days + 1)]

    def take(self, year: int | None = None) -> date:
        choices = [i for i, d in enumerate(self.free) if year is None or d.year == year]
        return self.free.pop(self.rng.choice(choices))


def _time(rng: random.Random, first_hour: int, last_hour: int) -> int:
    """Seconds after midnight: a whole 5-minute step between the two hours."""
    return rng.randint(first_hour * 12, last_hour * 12) * 300


def _narrate(drafts: list[Draft]) -> tuple[tuple[Unit, ...], tuple[tuple[int, ...], ...], dict[int, list[Unit]]]:
    """Number the units in narration order (day, then time of the episode's first present unit)."""
    order = sorted(range(len(drafts)), key=lambda i: (drafts[i].day, drafts[i].start))
    units: list[Unit] = []
    sessions: dict[date, list[int]] = {}
    bound: dict[int, list[Unit]] = {}
    for i in order:
        made = [Unit(id=len(units) + j + 1, **spec) for j, spec in enumerate(drafts[i].units)]
        units.extend(made)
        sessions.setdefault(drafts[i].day, []).extend(u.id for u in made)
        bound[i] = made
    return tuple(units), tuple(tuple(ids) for ids in sessions.values()), bound


def _facts(drafts: list[Draft], bound: dict[int, list[Unit]], principles: list) -> Facts:
    made = {i: d.bind(bound[i]) for i, d in enumerate(drafts) if d.bind is not None}
    facts = Facts()
    #: each fact type's list in `facts`; the lists hold different fact types
    lists: dict[type, list[Any]] = {
        ep.Exchange: facts.exchanges,
        ep.News: facts.news,
        ep.Scene: facts.scenes,
        ep.Recall: facts.recalls,
        ep.SeverityEvent: facts.severity,
        ep.Mismatch: facts.mismatches,
    }
    halves: dict[tuple[str, str], ep.StateHalf] = {}
    for fact in made.values():
        if type(fact) in lists:
            lists[type(fact)].append(fact)
        elif isinstance(fact, ep.StateHalf):
            halves[(fact.attribute, fact.when)] = fact
    for (attribute, when), now in halves.items():
        if when == "present":
            then = halves[(attribute, "past")]
            facts.states.append(
                ep.StatePair(attribute, then.value, now.value, then.unit_id, then.time, now.unit_id, now.time)
            )
    position = {id(d): i for i, d in enumerate(drafts)}
    for which, shown, origin in principles:
        spec = PRINCIPLES[which]
        facts.principles.append(
            PrincipleFacts(
                spec["domain"],
                spec["inner"],
                spec["origin"],
                spec["origin_unit"][1],
                spec["core"],
                tuple(made[position[id(d)]] for d in shown),
                made[position[id(origin)]],
            )
        )
    for collection in (
        facts.exchanges,
        facts.news,
        facts.scenes,
        facts.recalls,
        facts.severity,
        facts.mismatches,
        facts.states,
    ):
        collection.sort(key=_first_unit)
    return facts


def _first_unit(fact: object) -> int:
    for name in ("unit_ids", "unit_id", "trigger_id", "present_id"):
        value = getattr(fact, name, None)
        if value is not None:
            return value[0] if isinstance(value, tuple) else value
    raise TypeError(f"no unit id on {fact!r}")
