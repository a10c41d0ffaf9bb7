"""The offline reader: an extractive baseline that answers from the retrieved turns alone.

It is not a language model and reads no gold. It reads the turns back out of the memory
texts (`<date> | <speaker>: <text>`), picks the turn that shares the most content words
with the question (ties: the turn of a speaker the question names, then the higher rank),
and answers by the question's first word: "When" with the turn's session date moved by the
relative words in it (yesterday, last week, last month, last year, next month), "How many"
with the turn's first number, yes/no questions with "Likely yes" when a turn matched,
names (who, where, "name") with the capitalised words of the turn the question does not
hold, anything else with the turn's words that the question does not contain. A category-5
question's options are chosen by speaker: when the question names a speaker and the best
turn is another's and does not name them, "Not mentioned in the conversation", else the
other option. Memories it cannot read mark the answer (`Answer.memory_unreadable`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_memeval.framework.memory_text import message_text
from pytest_memeval.framework.unreadable import marked
from pytest_memeval.types import Answer, ItemView, Memory

from ..knowme.scoring import content_words
from .catalog import NOT_MENTIONED
from .sample import MONTHS

_TURN = re.compile(r"^(?P<date>[^|\n]+?) \| (?P<speaker>[^:|\n]+): (?P<text>.*)$", re.S)
_DATE = re.compile(r"(\d{1,2}) (" + "|".join(MONTHS) + r"),? (\d{4})")
_NUMBER = re.compile(r"\b\d+\b")
_OPTIONS_CUE = " Select the correct answer:"
_YES_NO = ("would", "is", "are", "does", "do", "did", "can", "could", "was", "were", "has", "have")
NO_ANSWER = "No information available"
MAX_WORDS = 6
#: question words that say nothing about the answer (beside the shared stopwords)
_QUESTION_WORDS = frozenset({"has", "have", "had", "would", "could", "can", "will", "name", "named", "kind", "type"})
_CAPITALISED = re.compile(r"\b[A-Z][a-z]+\b")


def _words(text: str) -> set[str]:
    return set(content_words(text)) - _QUESTION_WORDS


@dataclass(frozen=True)
class ReadTurn:
    rank: int
    date: str
    speaker: str
    text: str


def read_turns(memories: Sequence[Memory]) -> list[ReadTurn]:
    found = []
    for rank, memory in enumerate(memories):
        match = _TURN.match(message_text(memory).strip())
        if match:
            found.append(ReadTurn(rank, match["date"].strip(), match["speaker"].strip(), match["text"]))
    return found


def best_turn(question: str, turns: Sequence[ReadTurn]) -> ReadTurn | None:
    """The turn sharing the most content words with the question (speakers' names aside)."""
    speakers = {t.speaker.lower() for t in turns}
    wanted = _words(question) - speakers
    named = _words(question) & speakers

    def key(turn: ReadTurn) -> tuple[int, int, int]:
        shared = len(wanted & _words(turn.text))
        return (-shared, 0 if turn.speaker.lower() in named else 1, turn.rank)

    ranked = sorted(turns, key=key)
    if not ranked or not wanted & _words(ranked[0].text):
        return None
    return ranked[0]


def session_day(date_text: str) -> dt.date | None:
    match = _DATE.search(date_text)
    if match is None:
        return None
    return dt.date(int(match[3]), MONTHS.index(match[2]) + 1, int(match[1]))


def _day_text(day: dt.date) -> str:
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}"


def when(turn: ReadTurn) -> str:
    day = session_day(turn.date)
    if day is None:
        return turn.date
    text = turn.text.lower()
    if "yesterday" in text:
        return _day_text(day - dt.timedelta(days=1))
    if "last week" in text:
        return f"The week before {_day_text(day)}"
    if "last year" in text:
        return str(day.year - 1)
    if "last month" in text:
        previous = day.replace(day=1) - dt.timedelta(days=1)
        return f"{MONTHS[previous.month - 1]} {previous.year}"
    if "next month" in text:
        following = (day.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
        return f"{MONTHS[following.month - 1]} {following.year}"
    return _day_text(day)


def extract(question: str, turn: ReadTurn) -> str:
    first = question.split(maxsplit=1)[0].lower() if question.strip() else ""
    if first == "when":
        return when(turn)
    if question.lower().startswith("how many"):
        number = _NUMBER.search(turn.text)
        if number is not None:
            return number.group()
    if first in _YES_NO:
        return "Likely yes"
    if first in ("who", "where") or "name" in question.lower().split():
        asked_names = set(_CAPITALISED.findall(question)) | {turn.speaker}
        said = turn.text.split(" and shared ")[0]
        names = [m.group() for m in _CAPITALISED.finditer(said) if m.start() > 0 and m.group() not in asked_names]
        if names:
            return " ".join(names)
    asked = set(content_words(question))
    novel = [w for w in content_words(turn.text) if w not in asked]
    return " ".join(novel[:MAX_WORDS]) or turn.text


def choose_option(question: str, options: Sequence[str], turns: Sequence[ReadTurn]) -> str:
    turn = best_turn(question, turns)
    other = next((o for o in options if o != NOT_MENTIONED), options[0])
    if turn is None:
        return NOT_MENTIONED
    named = _words(question) & {t.speaker.lower() for t in turns}
    spoken_by_other = named and turn.speaker.lower() not in named and not named & set(content_words(turn.text))
    return NOT_MENTIONED if spoken_by_other else other


class LocomoReader:
    """A deterministic `ResponseModel` for the locomo suite."""

    def answer(self, view: ItemView, memories: Sequence[Memory]) -> Answer:
        turns = read_turns(memories)
        return marked(self._answer(view, turns), memories, len(turns))

    def _answer(self, view: ItemView, turns: list[ReadTurn]) -> Answer:
        detail = {"turns_read": len(turns)}
        question = view.question.split(_OPTIONS_CUE)[0]
        options = view.extra.get("options")
        if options:
            return Answer(choose_option(question, options, turns), detail=detail)
        turn = best_turn(question, turns)
        if turn is None:
            first = question.split(maxsplit=1)[0].lower() if question.strip() else ""
            if first in _YES_NO:
                return Answer("Likely no", detail=detail)
            return Answer(NO_ANSWER, abstained=True, detail=detail)
        return Answer(extract(question, turn), detail=detail)
