"""Episode builders: each returns a `Draft` (its units in narration order, before ids are
known) and, once ids are assigned, the private fact that questions are built from.

Facts are the generator's ground truth (who gave what, which cue triggered which memory,
how severe an event was). They never reach a memory system: only rendered units do.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from .stream import TIME_FORMAT, Unit
from .vocab import CUES, EVENT_LINES, FILLER, PERCEIVE, SCENES
from .vocab_mind import MISMATCHES, PRINCIPLES, RECALLS, SEVERITY

#: what the inner thought calls each modality ("That smell pulls me back to ...")
MODALITY_NOUN = {"smell": "smell", "sound": "sound", "sight": "sight", "taste": "taste", "touch": "touch"}

TRIGGER_ACTIONS = (
    "I stop in the middle of what I am doing.",
    "I set my bag down and stand still.",
    "I lean on the railing for a moment.",
    "I pause with my hand on the door.",
)
RETURN_ACTIONS = (
    "I come back to myself and carry on.",
    "I blink and the present returns.",
    "I shake off the memory and walk on.",
    "Someone bumps into me and I am back.",
)


@dataclass
class Draft:
    day: date
    #: seconds after midnight of the first present unit: orders episodes within a day
    start: int
    units: list[dict[str, Any]]
    bind: Callable[[list[Unit]], Any] | None = None


# --- facts ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Exchange:
    date: str
    place: str
    person: str
    direction: str  # "buy": I buy for person; "give": person gives me
    items: tuple[str, ...]
    cause: str | None
    unit_ids: tuple[int, ...]


@dataclass(frozen=True)
class News:
    date: str
    person: str
    event: str
    unit_id: int


@dataclass(frozen=True)
class Scene:
    date: str
    place: str
    start: str
    end: str
    seconds: int
    unit_ids: tuple[int, int]


@dataclass(frozen=True)
class Recall:
    kind: str  # "sustained" (a flashback block) or "transient" (a fleeting association)
    title: str
    place: str
    trigger_id: int
    trigger_time: str
    modality: str
    cue: str
    distractors: tuple[str, ...]
    past_ids: tuple[int, ...] = ()
    past_time: str | None = None
    past_actions: tuple[str, ...] = ()


@dataclass(frozen=True)
class StateHalf:
    """One side of an update-paradox pair, as its episode records it."""

    when: str  # "past" or "present"
    attribute: str
    value: str
    unit_id: int
    time: str


@dataclass(frozen=True)
class StatePair:
    attribute: str
    past_value: str
    present_value: str
    past_id: int
    past_time: str
    present_id: int
    present_time: str


@dataclass(frozen=True)
class SeverityEvent:
    dimension: str
    description: str
    level: int
    unit_id: int
    time: str


@dataclass(frozen=True)
class Mismatch:
    date: str
    place: str
    outward: str
    inner: str
    context: str
    core: tuple[tuple[str, ...], ...]
    unit_id: int


@dataclass(frozen=True)
class PrincipleFacts:
    domain: str
    inner: str
    origin: str
    origin_feeling: str
    core: tuple[tuple[str, ...], ...]
    episodes: tuple[tuple[str, str, str, int], ...]  # (date, place, action, unit id)
    origin_id: int


@dataclass
class Facts:
    exchanges: list[Exchange] = field(default_factory=list)
    news: list[News] = field(default_factory=list)
    scenes: list[Scene] = field(default_factory=list)
    recalls: list[Recall] = field(default_factory=list)
    states: list[StatePair] = field(default_factory=list)
    severity: list[SeverityEvent] = field(default_factory=list)
    mismatches: list[Mismatch] = field(default_factory=list)
    principles: list[PrincipleFacts] = field(default_factory=list)


# --- helpers -------------------------------------------------------------------------------


def stamp(day: date, seconds: int) -> str:
    return (datetime(day.year, day.month, day.day) + timedelta(seconds=seconds)).strftime(TIME_FORMAT)


def listing(items: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def sentence(phrase: str) -> str:
    return phrase[0].upper() + phrase[1:] + ("" if phrase.endswith((".", "!", "?")) else ".")


def sensory(rng: random.Random, modality: str, cue: str, others: int) -> tuple[str, tuple[str, ...]]:
    """An environment line naming `cue` and `others` cues of other modalities, shuffled."""
    modalities = [m for m in CUES if m != modality]
    rng.shuffle(modalities)
    pairs = [(modality, cue)] + [(m, rng.choice(CUES[m])) for m in modalities[:others]]
    rng.shuffle(pairs)
    line = " ".join(f"I {PERCEIVE[m]} {c}." for m, c in pairs)
    return line, tuple(c for m, c in pairs if c != cue)


# --- builders ------------------------------------------------------------------------------


def exchange(
    rng: random.Random,
    day: date,
    start: int,
    place: str,
    person: str,
    direction: str,
    items: Sequence[str],
    cause: str | None,
) -> Draft:
    split = rng.randint(1, len(items) - 1)
    first, second = list(items[:split]), list(items[split:])
    gap = rng.randint(4, 15) * 60 + rng.choice((0, 0, 20, 40))
    modality = rng.choice(list(CUES))
    env = f"I {PERCEIVE[modality]} {rng.choice(CUES[modality])}."
    if direction == "buy":
        actions = (f"I buy {listing(first)} for {person}.", f"I also buy {listing(second)} for {person}.")
        background = f"I buy them because {person} {cause}." if cause else ""
        dialogue = 'The seller says, "Anything else today?"'
    else:
        actions = (f"{person} gives me {listing(first)}.", f"{person} also gives me {listing(second)}.")
        background = f"{person} gives them to me because {person} {cause}." if cause else ""
        dialogue = f'{person} says, "Do not argue, just take them."'
    units = [
        dict(timestamp=stamp(day, start), location=place, action=actions[0], environment=env, background=background),
        dict(timestamp=stamp(day, start + gap), location=place, action=actions[1], dialogue=dialogue),
    ]
    fact = lambda u: Exchange(str(day), place, person, direction, tuple(items), cause, (u[0].id, u[1].id))  # noqa: E731
    return Draft(day, start, units, fact)


def news(rng: random.Random, day: date, start: int, place: str, person: str, event: str) -> Draft:
    unit = dict(
        timestamp=stamp(day, start),
        location=place,
        action=f"I get a call from {person}.",
        dialogue=f'{person} says, "{EVENT_LINES[event]}"',
        background=f"{person} {event}.",
    )
    return Draft(day, start, [unit], lambda u: News(str(day), person, event, u[0].id))


def scene(rng: random.Random, day: date, start: int, which: int, seconds: int) -> Draft:
    place, first, middle, last = SCENES[which]
    middle_at = start + seconds // 2 + rng.randint(-60, 60)
    units = [
        dict(timestamp=stamp(day, start), location=place, action=sentence(first)),
        dict(timestamp=stamp(day, middle_at), location=place, action=sentence(middle)),
        dict(timestamp=stamp(day, start + seconds), location=place, action=sentence(last)),
    ]
    return Draft(day, start, units, lambda u: Scene(str(day), place, first, last, seconds, (u[0].id, u[2].id)))


def sustained_recall(rng: random.Random, day: date, start: int, place: str, which: int, past_day: date) -> Draft:
    title, past_place, past_units = RECALLS[which]
    modality = rng.choice(list(CUES))
    cue = rng.choice(CUES[modality])
    env, distractors = sensory(rng, modality, cue, 2)
    units: list[dict[str, Any]] = [
        dict(
            timestamp=stamp(day, start),
            location=place,
            action=rng.choice(TRIGGER_ACTIONS),
            environment=env,
            inner_thought=f"That {MODALITY_NOUN[modality]} pulls me back to {title}.",
        )
    ]
    past_start = rng.randint(8, 17) * 3600
    for i, (action, dialogue, environment, inner) in enumerate(past_units):
        units.append(
            dict(
                timestamp=stamp(past_day, past_start + i * rng.randint(10, 40) * 60),
                location=past_place,
                action=action,
                dialogue=dialogue,
                environment=environment,
                background=f"It is {title}.",
                inner_thought=inner,
                layer=1,
                alignment="PUSH" if i == 0 else "MAINTAIN",
            )
        )
    units.append(
        dict(
            timestamp=stamp(day, start + rng.randint(3, 9) * 60),
            location=place,
            action=rng.choice(RETURN_ACTIONS),
            alignment="POP",
        )
    )

    def fact(u: list[Unit]) -> Recall:
        past = u[1:-1]
        return Recall(
            "sustained",
            title,
            place,
            u[0].id,
            u[0].timestamp,
            modality,
            cue,
            distractors,
            tuple(p.id for p in past),
            past[0].timestamp,
            tuple(p.action for p in past),
        )

    return Draft(day, start, units, fact)


def transient_recall(rng: random.Random, day: date, start: int, place: str, which: int) -> Draft:
    title = RECALLS[which][0]
    modality = rng.choice(list(CUES))
    cue = rng.choice(CUES[modality])
    env, distractors = sensory(rng, modality, cue, 2)
    unit = dict(
        timestamp=stamp(day, start),
        location=place,
        action=rng.choice(TRIGGER_ACTIONS),
        environment=env,
        inner_thought=f"For a moment that {MODALITY_NOUN[modality]} brings back {title}.",
        alignment="TRANSIENT",
    )
    return Draft(
        day,
        start,
        [unit],
        lambda u: Recall("transient", title, place, u[0].id, u[0].timestamp, modality, cue, distractors),
    )


def state_statement(day: date, start: int, place: str, attribute: str, value: str) -> Draft:
    """The present state, told early in the present."""
    unit = dict(
        timestamp=stamp(day, start),
        location=place,
        action="I write a few lines in my notebook.",
        inner_thought=f"My {attribute} these days is {value}.",
    )
    return Draft(day, start, [unit], lambda u: StateHalf("present", attribute, value, u[0].id, u[0].timestamp))


def state_memory(
    rng: random.Random,
    day: date,
    start: int,
    place: str,
    past_day: date,
    past_place: str,
    attribute: str,
    value: str,
    age: int,
) -> Draft:
    """The childhood state, recalled late in the present but anchored at its own date."""
    units: list[dict[str, Any]] = [
        dict(timestamp=stamp(day, start), location=place, action="I find an old photograph of myself in a shoebox."),
        dict(
            timestamp=stamp(past_day, rng.randint(9, 18) * 3600),
            location=past_place,
            background=f"I am {age} years old.",
            inner_thought=f"My {attribute} is {value}.",
            layer=1,
            alignment="PUSH",
        ),
        dict(
            timestamp=stamp(day, start + rng.randint(2, 6) * 60),
            location=place,
            action="I put the photograph back.",
            alignment="POP",
        ),
    ]
    return Draft(day, start, units, lambda u: StateHalf("past", attribute, value, u[1].id, u[1].timestamp))


def severity_event(day: date, start: int, place: str, dimension: str, description: str, level: int) -> Draft:
    phrase = SEVERITY[dimension]["phrases"][level - 1]
    unit: dict[str, Any] = dict(timestamp=stamp(day, start), location=place)
    if dimension == "blame":
        unit.update(action=sentence(description), inner_thought=f"I know that {phrase}.")
    else:
        unit.update(action=f"{sentence(description)} {sentence(phrase)}")
    return Draft(day, start, [unit], lambda u: SeverityEvent(dimension, description, level, u[0].id, u[0].timestamp))


def mismatch(day: date, start: int, which: int, person: str) -> Draft:
    outward, inner, context, core, place = MISMATCHES[which]
    outward, inner, context = (text.replace("{X}", person) for text in (outward, inner, context))
    unit = dict(
        timestamp=stamp(day, start), location=place, action=f"I {outward}.", background=context, inner_thought=inner
    )
    return Draft(day, start, [unit], lambda u: Mismatch(str(day), place, outward, inner, context, core, u[0].id))


def principle_episode(day: date, start: int, place: str, which: int, episode: int, person: str) -> Draft:
    spec = PRINCIPLES[which]
    action = spec["episodes"][episode].replace("{X}", person)
    unit = dict(
        timestamp=stamp(day, start),
        location=place,
        action=f"I {action}.",
        inner_thought=spec["inner"],
        background=f"This is what {spec['origin']} taught me about {spec['domain']}.",
    )
    return Draft(day, start, [unit], lambda u: (str(day), place, action, u[0].id))


def principle_origin(
    rng: random.Random, day: date, start: int, place: str, which: int, past_day: date, past_place: str
) -> Draft:
    spec = PRINCIPLES[which]
    action, feeling = spec["origin_unit"]
    units: list[dict[str, Any]] = [
        dict(
            timestamp=stamp(day, start),
            location=place,
            action="I go through a box of old papers.",
            inner_thought=f"I think back to {spec['origin']}.",
        ),
        dict(
            timestamp=stamp(past_day, rng.randint(9, 18) * 3600),
            location=past_place,
            action=action,
            background=f"It is {spec['origin']}.",
            inner_thought=feeling,
            layer=1,
            alignment="PUSH",
        ),
        dict(
            timestamp=stamp(day, start + rng.randint(3, 8) * 60),
            location=place,
            action="I close the box.",
            alignment="POP",
        ),
    ]
    return Draft(day, start, units, lambda u: u[1].id)


def filler(rng: random.Random, day: date, start: int) -> Draft:
    place, action, environment = rng.choice(FILLER)
    return Draft(
        day, start, [dict(timestamp=stamp(day, start), location=place, action=action, environment=environment)]
    )
