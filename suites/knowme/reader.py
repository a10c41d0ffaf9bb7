"""The offline reader: answers from the retrieved units alone, or abstains.

It reads the units back out of the memory texts and answers by the question's public form
and slots (the structured copy of the question text). It never sees an item id, a gold or
an evidence id. Its only background knowledge is the severity scales (general knowledge
that surgery is worse than a bruise). When the memories do not support the question's
premise (no such exchange, an unconfirmed cause, a missing end of a flashback) it answers
ABSTAIN rather than guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pytest_memeval.framework.memory_text import message_texts
from pytest_memeval.framework.unreadable import marked
from pytest_memeval.types import Answer, ItemView, Memory

from .scoring import content_words
from .stream import ParsedUnit, format_duration, parse_units, whole_years_between
from .tasks import ABSTAIN
from .vocab_mind import SEVERITY

_TRIGGER = re.compile(r"[Tt]hat (smell|sound|sight|taste|touch) (?:pulls me back to|brings back) (.+?)\.")
_PERCEIVED = re.compile(r"I (smell|hear|see|taste|feel) (.+?)\.")
_SENSE_OF_VERB = {"smell": "smell", "hear": "sound", "see": "sight", "taste": "taste", "feel": "touch"}
_STATE = re.compile(r"My (.+?)(?: these days)? is (.+?)\.")
_TAUGHT = re.compile(r"This is what (.+?) taught me about (.+?)\.")

Slots = Mapping[str, Any]


class KnowmeReader:
    """A deterministic `ResponseModel` for the knowme suite."""

    def answer(self, view: ItemView, memories: Sequence[Memory]) -> Answer:
        units = sorted(parse_units(message_texts(memories)), key=lambda u: u.time)
        handler = HANDLERS.get(view.task, answer_open)
        label = handler(units, view.extra.get("slots") or {}, view.question) if units else None
        detail = {"units_read": len(units)}
        answer = Answer(ABSTAIN, abstained=True, detail=detail) if label is None else Answer(label, detail=detail)
        return marked(answer, memories, len(units))


def _at(
    units: Sequence[ParsedUnit], date: str | None = None, place: str | None = None, month: str | None = None
) -> list[ParsedUnit]:
    return [
        u
        for u in units
        if (date is None or u.date == date)
        and (place is None or u.location.lower() == place.lower())
        and (month is None or u.date[:7] == month)
    ]


def _containing(units: Sequence[ParsedUnit], phrase: str) -> ParsedUnit | None:
    wanted = phrase.lower().rstrip(".")
    return next((u for u in units if wanted in u.text.lower()), None)


def _listing(text: str) -> list[str]:
    return [part.strip() for part in re.split(r",\s*|\s+and\s+", text) if part.strip()]


def answer_extract(units: Sequence[ParsedUnit], slots: Slots, question: str) -> str | None:
    here = _at(units, date=slots["date"], place=slots["place"])
    person = re.escape(slots["person"])
    if slots["direction"] == "buy":
        pattern = re.compile(rf"I (?:also )?buy (.+) for {person}\.")
    else:
        pattern = re.compile(rf"{person} (?:also )?gives me (.+)\.")
    items: list[str] = []
    for unit in here:
        found = pattern.fullmatch(unit.get("action"))
        if found:
            items.extend(i for i in _listing(found.group(1)) if i not in items)
    if not items:
        return None
    if slots.get("cause"):
        because = f"because {slots['person']} {slots['cause']}".lower()
        if not any(because in u.get("background").lower() for u in here):
            return None
    return "; ".join(items)


def answer_duration(units: Sequence[ParsedUnit], slots: Slots, question: str) -> str | None:
    day = _at(units, date=slots["date"])
    start, end = _containing(day, slots["start"]), _containing(day, slots["end"])
    if start is None or end is None:
        return None
    return format_duration(abs(int((end.time - start.time).total_seconds())))


def answer_gap(units: Sequence[ParsedUnit], slots: Slots, question: str) -> str | None:
    for trigger in _at(units, place=slots["place"], month=slots["month"]):
        found = _TRIGGER.search(trigger.get("inner_thought"))
        if not found:
            continue
        marker = f"it is {found.group(2)}.".lower()
        recalled = [u for u in units if marker in u.get("background").lower()]
        if recalled:
            return f"{whole_years_between(recalled[0].time, trigger.time)} years"
    return None


def answer_order(units: Sequence[ParsedUnit], slots: Slots, question: str) -> str | None:
    found = {letter: _containing(units, phrase) for letter, phrase in slots["options"].items()}
    if any(u is None for u in found.values()):
        return None
    return " > ".join(sorted(found, key=lambda letter: found[letter].time))  # type: ignore[union-attr]


def answer_state(units: Sequence[ParsedUnit], slots: Slots, question: str) -> str | None:
    latest: tuple[Any, str] | None = None
    for unit in units:
        for attribute, value in _STATE.findall(unit.get("inner_thought")):
            if attribute.lower() == slots["attribute"].lower() and unit.time.year <= int(slots["year"]):
                if latest is None or unit.time > latest[0]:
                    latest = (unit.time, value)
    return None if latest is None else latest[1]


def answer_rank(units: Sequence[ParsedUnit], slots: Slots, question: str) -> str | None:
    scale = SEVERITY[slots["dimension"]]["phrases"]
    neutral = (len(scale) + 1) / 2
    levels: dict[str, float] = {}
    for letter, description in slots["options"].items():
        unit = _containing(units, description)
        text = unit.text.lower() if unit else ""
        matched = [(len(p), i + 1) for i, p in enumerate(scale) if p.lower() in text]
        if matched:
            levels[letter] = max(matched)[1]
    if not levels:
        return None
    ranked = sorted(slots["options"], key=lambda letter: (levels.get(letter, neutral), letter))
    return " > ".join(ranked)


def answer_trigger(units: Sequence[ParsedUnit], slots: Slots, question: str) -> str | None:
    title = slots["title"].lower()
    for unit in _at(units, place=slots["place"], month=slots["month"]):
        found = _TRIGGER.search(unit.get("inner_thought"))
        if not found or found.group(2).lower() != title:
            continue
        for verb, thing in _PERCEIVED.findall(unit.get("environment")):
            if _SENSE_OF_VERB[verb] == found.group(1):
                return f"the {found.group(1)} of {thing}"
    return None


def answer_mind_body(units: Sequence[ParsedUnit], slots: Slots, question: str) -> str | None:
    here = _at(units, date=slots["date"], place=slots["place"])
    parts = []
    for unit in here:
        parts += [f"Outwardly: {unit.get('action')}"] if unit.get("action") else []
        parts += [f"Inwardly: {unit.get('inner_thought')}"] if unit.get("inner_thought") else []
        parts += [unit.get("background")] if unit.get("background") else []
    return " ".join(parts) or None


def answer_principle(units: Sequence[ParsedUnit], slots: Slots, question: str) -> str | None:
    """The inner sentences of the episodes that show the principle, then the recalled
    origin they name (a second hop through the stream)."""
    if "domain" in slots:
        shown = [
            u
            for u in units
            if (m := _TAUGHT.search(u.get("background"))) and m.group(2).lower() == slots["domain"].lower()
        ]
    else:
        shown = [u for u in _at(units, date=slots["date"], place=slots["place"]) if _TAUGHT.search(u.get("background"))]
    if not shown:
        return None
    parts: list[str] = []
    for unit in shown:
        origin = _TAUGHT.search(unit.get("background")).group(1)  # type: ignore[union-attr]
        for sentence in (unit.get("inner_thought"), f"It comes from {origin}."):
            if sentence not in parts:
                parts.append(sentence)
        for recalled in units:
            if (
                f"it is {origin}.".lower() in recalled.get("background").lower()
                and recalled.get("inner_thought") not in parts
            ):
                parts.append(recalled.get("inner_thought"))
    return " ".join(parts)


def answer_open(units: Sequence[ParsedUnit], slots: Slots, question: str) -> str | None:
    """Released questions: the unit sharing most content words with the question, read out."""
    asked = set(content_words(question))
    best, best_overlap = None, 0
    for unit in units:
        overlap = len(asked & set(content_words(unit.location + " " + unit.text)))
        if overlap > best_overlap:
            best, best_overlap = unit, overlap
    if best is None:
        return None
    return " ".join(best.get(key) for key in ("action", "dialogue", "inner_thought") if best.get(key)) or None


HANDLERS: Mapping[str, Callable[[Sequence[ParsedUnit], Slots, str], str | None]] = {
    "extract": answer_extract,
    "duration": answer_duration,
    "gap": answer_gap,
    "order": answer_order,
    "state": answer_state,
    "rank": answer_rank,
    "trigger": answer_trigger,
    "mind_body": answer_mind_body,
    "principle": answer_principle,
    "open": answer_open,
}
