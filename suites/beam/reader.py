"""The offline reader: answers the generated sample's questions from retrieved memories.

It knows the sample's wordings (sample.py) and nothing else: it reads a question's form,
finds the sentences that answer it in the memories (the newest value where one was
updated, the dates written in the text for durations and orders) and answers as the
rubric asks. When nothing answers a value question it says the chat holds nothing on it.
On the released data it recognises nothing and says so (`Answer.memory_unreadable`): use
an LLM responder there.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from pytest_memeval.framework.memory_text import message_text
from pytest_memeval.framework.unreadable import marked
from pytest_memeval.types import Answer, ItemView, Memory

from .released import TIME_ANCHOR
from .sample import no_information

_END = r"\.(?=\s|$)"
_DAY = r"(?P<day>[A-Z][a-z]+-\d\d-\d{4})"
STATED = re.compile(r"\bMy (?P<attribute>[A-Za-z ]+?) is (?P<value>.+?)" + _END)
UPDATED = re.compile(r"\bUpdate: my (?P<attribute>[A-Za-z ]+?) is now (?P<value>.+?)" + _END)
DATED = re.compile(rf"\bOn {_DAY} I (?P<what>.+?)" + _END)
ADDED = re.compile(r"\bI added (?P<thing>.+?) to my (?P<name>[a-z ]+?)" + _END)
NEVER = re.compile(r"\bI have never (?P<action>.+?)" + _END)
DID = re.compile(r"\bLast month I (?P<action>.+?)" + _END)
SIGN_OFF = re.compile(r"\balways end your answers to me with the word (?P<word>\w+)" + _END)
PREFERS = re.compile(r"\bI prefer (?P<preference>.+?) whenever you suggest (?P<kind>.+?)" + _END)
FILLER = re.compile(
    r"^(Can you help me with |Sure\. Which language|Python\.$|Here is a short guide to |Thanks for letting me know)"
)
KNOWN = (STATED, UPDATED, DATED, ADDED, NEVER, DID, SIGN_OFF, PREFERS)

Q_VALUE = re.compile(r"^What is my (?P<attribute>.+)\?$")
Q_REMIND = re.compile(r"^Remind me of my (?P<attribute>.+)\.$")
Q_EVER = re.compile(r"^Have I ever (?P<action>.+)\?$")
Q_ORDER = re.compile(r"^In what order did I start working on (?P<topics>.+)\? Mention ONLY and ONLY \d+ items\.$")
Q_COUNT = re.compile(r"^How many (?P<noun>.+) have I added to my (?P<name>.+) in total\?$")
Q_SUGGEST = re.compile(r"^Can you suggest (?P<kind>.+)\?$")
Q_PROJECT = "Can you summarize the details of my project I have shared?"
Q_LIST = re.compile(r"^Can you summarize what is on my (?P<name>.+)\?$")
Q_DAYS = re.compile(r"^How many days passed between when I (?P<first>.+) and when I (?P<second>.+)\?$")


class BeamReader:
    """A `ResponseModel` for the generated sample."""

    def answer(self, view: ItemView, memories: Sequence[Memory]) -> Answer:
        texts = [message_text(m) for m in memories]
        recognised = sum(1 for t in texts if FILLER.match(t.strip()) or any(p.search(t) for p in KNOWN))
        label = _answer(view.question, "\n".join(texts))
        detail = {"memories_recognised": recognised}
        if label is None:
            text = "I cannot tell from what I remember."
            return marked(Answer(text, abstained=True, raw=text, detail=detail), memories, recognised)
        return marked(Answer(label, raw=label, detail=detail), memories, recognised)


def _values(text: str) -> dict[str, str]:
    """Each attribute's newest value: an update wins over a statement."""
    values = {m.group("attribute"): m.group("value") for m in STATED.finditer(text)}
    values.update({m.group("attribute"): m.group("value") for m in UPDATED.finditer(text)})
    return values


def _day(text: str, what: str) -> datetime | None:
    days = [m.group("day") for m in DATED.finditer(text) if m.group("what") == what]
    return datetime.strptime(days[0], TIME_ANCHOR) if days else None


def _answer(question: str, text: str) -> str | None:
    if found := Q_VALUE.match(question):
        attribute = found.group("attribute")
        value = _values(text).get(attribute)
        return f"Your {attribute} is {value}." if value else no_information(attribute) + "."
    if found := Q_REMIND.match(question):
        attribute = found.group("attribute")
        value = _values(text).get(attribute)
        if value is None:
            return None
        words = [m.group("word") for m in SIGN_OFF.finditer(text)]
        return f"Your {attribute} is {value}." + (f" {words[-1]}" if words else "")
    if found := Q_EVER.match(question):
        action = found.group("action")
        denied = any(m.group("action") == action for m in NEVER.finditer(text))
        done = [m.group("action") for m in DID.finditer(text) if m.group("action").startswith(action)]
        if denied and done:
            return (
                f"There is contradictory information: you said you have never {action}, but you also said you "
                f"{done[0]}. Which statement is correct?"
            )
        return f"Yes, you {done[0]}." if done else "No, you have never done that." if denied else None
    if found := Q_ORDER.match(question):
        topics = found.group("topics").split(", ")
        dated = sorted((day, t) for t in topics if (day := _day(text, f"started working on {t}")) is not None)
        return "\n".join(t for _, t in dated) or None
    if found := Q_COUNT.match(question):
        things = {m.group("thing") for m in ADDED.finditer(text) if m.group("name") == found.group("name")}
        return str(len(things)) if things else None
    if found := Q_SUGGEST.match(question):
        liked = [m.group("preference") for m in PREFERS.finditer(text) if m.group("kind") == found.group("kind")]
        return f"Since you prefer {liked[-1]}, here is an idea along those lines." if liked else None
    if question == Q_PROJECT:
        return " ".join(f"Your {a} is {v}." for a, v in sorted(_values(text).items())) or None
    if found := Q_LIST.match(question):
        name = found.group("name")
        listed = list(dict.fromkeys(m.group("thing") for m in ADDED.finditer(text) if m.group("name") == name))
        return f"Your {name} has {', '.join(listed)}." if listed else None
    if found := Q_DAYS.match(question):
        first, second = _day(text, found.group("first")), _day(text, found.group("second"))
        return None if first is None or second is None else f"{abs((second - first).days)} days"
    return None
