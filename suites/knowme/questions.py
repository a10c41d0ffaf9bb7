"""Questions of a life for all seven tasks, with golds computed from the generator's facts.

Each question keeps its evidence unit ids (private) and public `slots`: a structured copy
of what its text says (date, place, quoted phrases), nothing more. Within a task, kinds
are interleaved so that a prefix of the list (what smaller sizes take) covers every kind.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .episodes import Exchange, Recall
from .life import Life, life_rng
from .stream import TIME_FORMAT, long_date, month_year, whole_years_between
from .tasks import ABSTAIN
from .vocab import EXCHANGE_PLACES
from .vocab_mind import SEVERITY

LETTERS = "ABCD"
TRAPS_PER_KIND = 6
RANKS_PER_DIMENSION = 8
ORDER_QUESTIONS = 6


@dataclass(frozen=True)
class Question:
    task: str
    kind: str
    form: str
    text: str
    slots: Mapping[str, Any]
    gold: Any
    evidence: tuple[int, ...]
    flashback: bool = False
    update_paradox: bool = False
    trap: str | None = None
    transient: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict)


def life_questions(life: Life) -> dict[str, list[Question]]:
    """All questions of the life by task, in the order smaller sizes take them."""
    rng = life_rng(life.seed, life.index, "questions")
    return {
        "T1": extraction(life, rng),
        "T2": traps(life, rng),
        "T3": _interleave([gaps(life), states(life), durations(life), orders(life, rng)]),
        "T4": _interleave([ranks(life, rng, dimension) for dimension in SEVERITY]),
        "T5": _interleave([[q for q in triggers(life) if q.kind == kind] for kind in ("sustained", "transient")]),
        "T6": mind_body(life),
        "T7": _interleave([principles(life, general) for general in (True, False)]),
    }


def _interleave(groups: Sequence[Sequence[Question]]) -> list[Question]:
    out: list[Question] = []
    for row in itertools.zip_longest(*groups):
        out.extend(q for q in row if q is not None)
    return out


def _flashback(life: Life, ids: Iterable[int]) -> bool:
    """Evidence on both sides of a PUSH/POP: in a recalled block and in the present."""
    layers = {life.unit(i).layer for i in ids}
    return layers == {0, 1}


# --- level I -------------------------------------------------------------------------------


def exchange_question(
    date: str, place: str, person: str, direction: str, cause: str | None
) -> tuple[str, dict[str, Any]]:
    when = long_date(date)
    asked = f"what did I buy for {person}" if direction == "buy" else f"what did {person} give me"
    because = f" because {person} {cause}" if cause else ""
    slots = {"date": date, "place": place, "person": person, "direction": direction, "cause": cause}
    return f"On {when}, {at(place)}, {asked}{because}?", slots


def extraction(life: Life, rng: random.Random) -> list[Question]:
    out = []
    for e in life.facts.exchanges:
        cause = e.cause if e.cause and rng.random() < 0.6 else None
        text, slots = exchange_question(e.date, e.place, e.person, e.direction, cause)
        out.append(
            Question(
                "T1",
                e.direction + ("_cause" if cause else ""),
                "extract",
                text,
                slots,
                {"entities": list(e.items)},
                e.unit_ids,
            )
        )
    return out


def traps(life: Life, rng: random.Random) -> list[Question]:
    """Real entities, false relation: every trap is checked against every true exchange."""
    facts = life.facts
    taken = {(e.date, e.place, e.person, e.direction) for e in facts.exchanges}
    dates = sorted({u.timestamp[:10] for u in life.units if u.layer == 0})
    events = {p: [n.event for n in facts.news if n.person == p] for p in life.cast}
    asked: set[tuple[Any, ...]] = set()
    kinds: dict[str, list[Question]] = {}
    for kind in ("entity_swap", "spatiotemporal", "false_causality"):
        kinds[kind] = []
        for e in rng.sample(facts.exchanges, len(facts.exchanges)):
            slots = _trap(rng, kind, e, life, taken, dates, events)
            if slots is None or tuple(slots.values()) in asked:
                continue
            asked.add(tuple(slots.values()))
            text, slots = exchange_question(**slots)
            evidence = e.unit_ids + _news_ids(life, slots) if kind == "false_causality" else e.unit_ids
            kind_name = e.direction + ("_cause" if slots["cause"] else "")
            kinds[kind].append(Question("T2", kind_name, "extract", text, slots, ABSTAIN, evidence, trap=kind))
            if len(kinds[kind]) == TRAPS_PER_KIND:
                break
    return _interleave(list(kinds.values()))


def _news_ids(life: Life, slots: Mapping[str, Any]) -> tuple[int, ...]:
    return tuple(n.unit_id for n in life.facts.news if n.person == slots["person"] and n.event == slots["cause"])


def _trap(
    rng: random.Random,
    kind: str,
    e: Exchange,
    life: Life,
    taken: set,
    dates: list[str],
    events: Mapping[str, list[str]],
) -> dict[str, Any] | None:
    base = dict(date=e.date, place=e.place, person=e.person, direction=e.direction, cause=None)
    if kind == "entity_swap":
        others = [p for p in life.cast if (e.date, e.place, p, e.direction) not in taken]
        return dict(base, person=rng.choice(others)) if others else None
    if kind == "spatiotemporal":
        if rng.random() < 0.5:
            moved = [d for d in dates if (d, e.place, e.person, e.direction) not in taken]
            return dict(base, date=rng.choice(moved)) if moved else None
        places = [p for p in EXCHANGE_PLACES if (e.date, p, e.person, e.direction) not in taken]
        return dict(base, place=rng.choice(places)) if places else None
    others = [ev for ev in events[e.person] if ev != e.cause]
    if e.cause is None or not others:
        return None
    return dict(base, cause=rng.choice(others))


def durations(life: Life) -> list[Question]:
    out = []
    for s in life.facts.scenes:
        text = (
            f'According to the record from {long_date(s.date)}, how much time passed between "{s.start}" and "{s.end}"?'
        )
        slots = {"date": s.date, "start": s.start, "end": s.end}
        out.append(Question("T3", "duration", "duration", text, slots, {"seconds": s.seconds}, s.unit_ids))
    return out


def _trigger_key(r: Recall) -> tuple[str, str]:
    return r.place, r.trigger_time[:7]


def gaps(life: Life) -> list[Question]:
    """Years between a present trigger and the recalled day: both ends of a flashback."""
    keys = [_trigger_key(r) for r in life.facts.recalls]
    out: list[Question] = []
    for r in life.facts.recalls:
        if r.kind != "sustained" or keys.count(_trigger_key(r)) > 1:
            continue
        assert r.past_time is not None, "a sustained recall has its past day"
        where = at(r.place)
        text = (
            f"{where[0].upper()}{where[1:]} in {month_year(r.trigger_time)}, something I perceive pulls me back to an earlier day. "
            f"How many whole years before that moment did the recalled day take place?"
        )
        years = whole_years_between(_time(r.past_time), _time(r.trigger_time))
        slots = {"place": r.place, "month": r.trigger_time[:7]}
        ids = (r.trigger_id, *r.past_ids)
        out.append(Question("T3", "gap", "gap", text, slots, {"years": years}, ids, flashback=_flashback(life, ids)))
    return out


def orders(life: Life, rng: random.Random) -> list[Question]:
    """A recalled moment narrated after two present ones but older than both."""
    out: list[Question] = []
    sustained = [r for r in life.facts.recalls if r.kind == "sustained"]
    for r in rng.sample(sustained, len(sustained)):
        before = [e for e in life.facts.severity if e.time < r.trigger_time]
        if len(before) < 2 or len(out) >= ORDER_QUESTIONS:
            continue
        picked = rng.sample(before, 2)
        assert r.past_time is not None, "a sustained recall has its past day"
        moments = [(r.past_time, _phrase(r.past_actions[0]), r.past_ids[0])]
        moments += [(e.time, e.description, e.unit_id) for e in picked]
        rng.shuffle(moments)
        options = {LETTERS[i]: phrase for i, (_, phrase, _) in enumerate(moments)}
        order = [LETTERS[i] for i, _ in sorted(enumerate(moments), key=lambda m: m[1][0])]
        listed = "; ".join(f'({letter}) "{phrase}"' for letter, phrase in options.items())
        text = f"Put these moments in the order they happened in real time, earliest first: {listed}."
        ids = tuple(m[2] for m in moments)
        out.append(
            Question(
                "T3",
                "order",
                "order",
                text,
                {"options": options},
                {"order": order},
                ids,
                flashback=_flashback(life, ids),
            )
        )
    return out


def states(life: Life) -> list[Question]:
    """Update paradox: the childhood state is narrated after the present one."""
    out = []
    for s in life.facts.states:
        ids = (s.present_id, s.past_id)
        now, then = life.present_years[-1], int(s.past_time[:4])
        for year, value, other, text in (
            (now, s.present_value, s.past_value, f"As of {now}, what is my {s.attribute}?"),
            (then, s.past_value, s.present_value, f"In {then}, what was my {s.attribute}?"),
        ):
            out.append(
                Question(
                    "T3",
                    "state",
                    "state",
                    text,
                    {"attribute": s.attribute, "year": year},
                    {"value": value, "other": other},
                    ids,
                    flashback=_flashback(life, ids),
                    update_paradox=True,
                )
            )
    return out


# --- level II ------------------------------------------------------------------------------


def ranks(life: Life, rng: random.Random, dimension: str) -> list[Question]:
    """Rank by a non-temporal dimension; never one that chronology alone would give."""
    events = [e for e in life.facts.severity if e.dimension == dimension]
    seen: set[frozenset[int]] = set()
    out: list[Question] = []
    for _attempt in range(200):
        if len(out) >= RANKS_PER_DIMENSION:
            break
        size = 3 + len(out) % 2
        picked = rng.sample(events, size)
        key = frozenset(e.unit_id for e in picked)
        by_level = [e.unit_id for e in sorted(picked, key=lambda e: e.level)]
        by_time = [e.unit_id for e in sorted(picked, key=lambda e: e.time)]
        if key in seen or by_level in (by_time, by_time[::-1]):
            continue
        seen.add(key)
        options = {LETTERS[i]: e.description for i, e in enumerate(picked)}
        order = [LETTERS[i] for i, _ in sorted(enumerate(picked), key=lambda m: m[1].level)]
        listed = "; ".join(f"({letter}) {text}" for letter, text in options.items())
        text = f"Rank these events by {SEVERITY[dimension]['question']}: {listed}."
        out.append(
            Question(
                "T4",
                dimension,
                "rank",
                text,
                {"dimension": dimension, "options": options},
                {"order": order},
                tuple(e.unit_id for e in picked),
            )
        )
    return out


def triggers(life: Life) -> list[Question]:
    out = []
    for r in life.facts.recalls:
        text = (
            f"I am {at(r.place)} in {month_year(r.trigger_time)}, but my mind goes back to {r.title}. "
            f"What specific cue triggers this jump?"
        )
        slots = {"place": r.place, "month": r.trigger_time[:7], "title": r.title}
        gold = {"cue": r.cue, "modality": r.modality, "distractors": list(r.distractors)}
        ids = (r.trigger_id, *r.past_ids[:1])
        out.append(
            Question(
                "T5",
                r.kind,
                "trigger",
                text,
                slots,
                gold,
                ids,
                flashback=_flashback(life, ids),
                transient=r.kind == "transient",
            )
        )
    return out


# --- level III -----------------------------------------------------------------------------


def mind_body(life: Life) -> list[Question]:
    out = []
    for m in life.facts.mismatches:
        text = (
            f"On {long_date(m.date)}, {at(m.place)}, I {m.outward}. "
            f"What is going on inside me, and how does it connect to what I do?"
        )
        reference = f"Outwardly I {m.outward}. Inwardly: {m.inner} Context: {m.context}"
        gold = {"reference": reference, "core": [list(g) for g in m.core], "rubric": "mind_body"}
        out.append(
            Question("T6", "mismatch", "mind_body", text, {"date": m.date, "place": m.place}, gold, (m.unit_id,))
        )
    return out


def principles(life: Life, general: bool) -> list[Question]:
    out = []
    for p in life.facts.principles:
        reference = f"{p.inner} It comes from {p.origin}: {p.origin_feeling}"
        gold = {"reference": reference, "core": [list(g) for g in p.core], "rubric": "principle"}
        if general:
            text = f"What lasting principle guides what I do about {p.domain}, and where does it come from?"
            ids = (*(e[3] for e in p.episodes), p.origin_id)
            out.append(
                Question(
                    "T7", "general", "principle", text, {"domain": p.domain}, gold, ids, flashback=_flashback(life, ids)
                )
            )
            continue
        for date, place, action, unit_id in p.episodes:
            text = (
                f"On {long_date(date)}, {at(place)}, I {action}. "
                f"What deeper principle explains this choice, and where does it come from?"
            )
            ids = (unit_id, p.origin_id)
            out.append(
                Question(
                    "T7",
                    "episode",
                    "principle",
                    text,
                    {"date": date, "place": place},
                    gold,
                    ids,
                    flashback=_flashback(life, ids),
                )
            )
    return out


def at(place: str) -> str:
    """'in my kitchen', 'at the pier'."""
    return f"in {place}" if place.startswith("my ") else f"at {place}"


def _phrase(action: str) -> str:
    """A stream sentence as a quotable phrase: no final period, lower-case unless it starts with 'I'."""
    text = action.rstrip(".")
    return text if text.startswith("I ") else text[0].lower() + text[1:]


def _time(timestamp: str) -> datetime:
    return datetime.strptime(timestamp, TIME_FORMAT)
