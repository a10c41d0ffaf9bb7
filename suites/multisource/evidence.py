"""A persona's stored units as messages with ids, and each question's gold evidence among them.

A unit's id names its source and, for a daily source, the date of its day heading
(`planner 2026-01-17`; the profile is `profile_ltm`): both are in the unit's own text, so the
id tells a memory system nothing it does not store anyway.

A question aggregates over a window (its last `window_days` days), so its evidence is every
unit the answer is read from there: the units of each source whose readout for the question
gives a label on the persona's complete sources (`source_atoms`: a source with nothing to
say, a device that never tracked sleep, is no evidence), on the days of the window, and the
profile where its readout gives one. Where a rule settles an edge label for every source at
once (B2's `no_frequency_described`, C2's `no_plans`), every source is evidence. At k=10 a
30-day question's Recall@k is therefore at most 10 of its up to 121 units: it says how much of
the window a retrieval brings back.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence

from pytest_memeval.types import Evidence, Message

from ._common import DAYS, NUM_DAYS
from .questions import Question

_DAY = re.compile(r"^#### (\d{4}-\d{2}-\d{2})", re.M)


def unit_messages(units: Iterable[tuple[str, str]]) -> tuple[tuple[Message, ...], ...]:
    """The units as stored: one session per source in the order first met, one message per unit."""
    sessions: dict[str, list[Message]] = {}
    for source, text in units:
        messages = sessions.setdefault(source, [])
        messages.append(Message(role="user", content=text, id=unit_id(source, text, len(messages))))
    return tuple(tuple(messages) for messages in sessions.values())


def unit_id(source: str, text: str, position: int) -> str:
    """`source date` for a unit with a day heading; the source alone for the profile; the
    unit's position within its source for a day heading without a date (unknown)."""
    if source == "profile_ltm":
        return source
    day = _DAY.search(text)
    return f"{source} {day.group(1)}" if day else f"{source} #{position}"


def question_evidence(
    sessions: Sequence[Sequence[Message]], question: Question, readable: Collection[str]
) -> Evidence | None:
    """The units of the `readable` sources that the question's window covers; None when there
    are none (no source has anything to say on it)."""
    first_date = DAYS[NUM_DAYS - question.window_days][0]
    evidence: list[Message] = []
    for session in sessions:
        source = session[0].id.partition(" ")[0] if session and session[0].id else None
        if source is None or source not in readable:
            continue
        if source == "profile_ltm":
            evidence.extend(session)
            continue
        # ISO dates order as text; a unit without one (`source #3`) is on no day of the window
        evidence.extend(m for m in session if m.id and m.id[len(source) + 1 :] >= first_date)
    return Evidence(tuple(evidence)) if evidence else None
