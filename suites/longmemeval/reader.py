"""The offline reader: answers the generated sample's questions from retrieved memories.

It knows the sample's wordings (sample.py) and nothing else: it reads a question's form,
looks for the matching sentences in the memories (dated by the stamp the suite writes into
each message's text, or by an ISO time an adapter writes before it), and answers as a person would (the newest value, a count, a number
of days). When nothing answers the question it abstains. On the released data it
recognises nothing and says so (`Answer.memory_unreadable`): use an LLM responder there.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime

from pytest_memeval.framework.memory_text import split_prefixes, stored_text
from pytest_memeval.framework.unreadable import marked
from pytest_memeval.types import Answer, ItemView, Memory

from .sample import DATE_FORMAT, counted, happened, liked, recommended, stated, updated

ABSTAIN_TEXT = "The information provided is not enough to answer the question."
VALUE = r"(?P<value>.+?)"
#: the sample's filler turns, recognised so that a memory of them is not taken for unreadable
FILLER = re.compile(r"^(Can you help me with .+\?|Sure, here is a short overview of |Thanks for letting me know)")


def wording(sentence: Callable[..., str], *parts: str) -> re.Pattern[str]:
    """The regex of a sample wording with each argument replaced by a regex part."""
    sentinels = [f"\x00{n}\x00" for n in range(len(parts))]
    text = re.escape(sentence(*sentinels))
    for sentinel, part in zip(sentinels, parts):
        text = text.replace(re.escape(sentinel), part)
    return re.compile(text, re.IGNORECASE)


KNOWN = [
    wording(stated, ".+?", ".+?"),
    wording(updated, ".+?", ".+?"),
    wording(recommended, ".+?", ".+?"),
    wording(liked, ".+?"),
    wording(happened, ".+?"),
    wording(counted, ".+?", ".+?", ".+?"),
]
Q_BETWEEN = re.compile(r"^How many days passed between the day I (?P<a>.+) and the day I (?P<b>.+)\?$")
Q_AGO = re.compile(r"^How many days have passed since the day I (?P<a>.+)\?$")
Q_COUNT = re.compile(r"^How many (?P<noun>.+) have I (?P<verb>.+)\?$")
Q_VALUE = re.compile(r"^What is (?P<attribute>.+)\?$")
Q_RECOMMENDED = re.compile(r"^What did you recommend for (?P<purpose>.+)\?$")
Q_SUGGEST = re.compile(r"^Can you suggest (?P<thing>.+) for this weekend\?$")


class Note:
    """A memory's text without its stamps and roles, and its date: the innermost stamp that
    is a date (the suite's own "[2023/05/30 (Tue) 23:40] user: ", or an ISO time an adapter
    wrote before it from `Message.timestamp`)."""

    def __init__(self, text: str) -> None:
        stamps, self.text = split_prefixes(text)
        self.date = next((date for date in map(_date, reversed(stamps)) if date is not None), None)


class LongMemEvalReader:
    """A `ResponseModel` for the generated sample."""

    def answer(self, view: ItemView, memories: Sequence[Memory]) -> Answer:
        notes = [Note(stored_text(m)) for m in memories]
        recognised = sum(1 for n in notes if FILLER.match(n.text) or any(p.search(n.text) for p in KNOWN))
        label = _answer(view.question, str(view.extra.get("question_date", "")), notes)
        detail = {"memories_recognised": recognised}
        if label is None:
            return marked(Answer(ABSTAIN_TEXT, abstained=True, raw=ABSTAIN_TEXT, detail=detail), memories, recognised)
        return marked(Answer(label, raw=label, detail=detail), memories, recognised)


def _answer(question: str, asked: str, notes: Sequence[Note]) -> str | None:
    if found := Q_BETWEEN.match(question):
        first, second = (_day_of(notes, found.group(g)) for g in ("a", "b"))
        return None if first is None or second is None else f"{abs((second.date() - first.date()).days)} days"
    if found := Q_AGO.match(question):
        day, today = _day_of(notes, found.group("a")), _date(asked)
        return None if day is None or today is None else f"{(today.date() - day.date()).days} days"
    if found := Q_COUNT.match(question):
        noun, verb = (re.escape(found.group(g)) for g in ("noun", "verb"))
        things = {m.group("value").lower() for n in notes for m in wording(counted, noun, verb, VALUE).finditer(n.text)}
        return str(len(things)) if things else None
    if found := Q_VALUE.match(question):
        attribute = re.escape(found.group("attribute"))
        return _newest(notes, [wording(stated, attribute, VALUE), wording(updated, attribute, VALUE)])
    if found := Q_RECOMMENDED.match(question):
        return _newest(notes, [wording(recommended, VALUE, re.escape(found.group("purpose")))])
    if found := Q_SUGGEST.match(question):
        preference = _newest(notes, [wording(liked, VALUE)])
        thing = found.group("thing")
        return (
            None
            if preference is None
            else f"Since you've been really into {preference}, how about {thing} around {preference}?"
        )
    return None


def _newest(notes: Sequence[Note], patterns: Sequence[re.Pattern[str]]) -> str | None:
    """The value of the newest matching note (by date, then by the later wording: an update)."""
    found = [
        (note.date or datetime.min, rank, match.group("value"))
        for note in notes
        for rank, pattern in enumerate(patterns)
        for match in pattern.finditer(note.text)
    ]
    return max(found)[2] if found else None


def _day_of(notes: Sequence[Note], event: str) -> datetime | None:
    pattern = wording(happened, re.escape(event))
    days = [n.date for n in notes if n.date is not None and pattern.search(n.text)]
    return min(days) if days else None


def _date(text: str) -> datetime | None:
    """The sample's date ("2023/05/30 (Tue) 23:40"), or an ISO 8601 time, to the minute."""
    try:
        return datetime.strptime(text, DATE_FORMAT)
    except ValueError:
        pass
    try:
        return datetime.fromisoformat(text).replace(tzinfo=None, second=0, microsecond=0)
    except ValueError:
        return None
