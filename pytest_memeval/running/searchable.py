"""Time to searchable (--memeval-searchable): after a session is stored, how long until the
fact it ended on can be retrieved, polled under a deadline.

The fact probed is the session's last message with text; the query is that message's
content, verbatim, at depth `PROBE_K`. A retrieval holds the fact when a memory names the
message among its sources, or, for a system that keeps the messages' text, when a memory's
text (`verbatim` where the adapter gives it) contains the message's content, whitespace
collapsed. A system that rewrites what it stores (`rewrites_messages`: extracted facts,
notes, a graph) cannot be matched by text: for it the probe asks the same query before
the ingest, and the fact is searchable once a memory appears that was not returned then.

Polls come at intervals of 5% of the time waited so far (at least `MIN_POLL_S`), so the
time found overshoots the true one by at most 5% plus one poll's retrieval, in a number
of polls that grows with the logarithm of the deadline (under 130 for 60 s). A fact not
found by the deadline is a miss (None), which the session report counts as an error.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..types import Memory, Message

#: a poll's interval as a share of the time waited so far
POLL_SHARE = 0.05
#: the shortest interval between two polls
MIN_POLL_S = 0.02
#: the depth of the probe's retrieval
PROBE_K = 10

Retrieve = Callable[[str], Sequence[Memory]]


@dataclass(frozen=True)
class Searchable:
    """Seconds until the fact was found (None: not within the deadline) and the polls made."""

    seconds: float | None
    polls: int


def probed_message(session: Sequence[Message]) -> Message | None:
    """The fact a session is probed for: its last message with text (None: none has)."""
    return next((message for message in reversed(session) if message.content.strip()), None)


@dataclass(frozen=True)
class Fact:
    """What a probe looks for: `message`, and for a system that rewrites what it stores, the
    texts the same query returned before the ingest (None for a system that keeps text)."""

    message: Message
    before: frozenset[str] | None = None

    def held_by(self, memories: Sequence[Memory]) -> bool:
        message = self.message
        if message.id is not None and any(message.id in memory.sources for memory in memories):
            return True
        if self.before is not None:
            return any(memory.text not in self.before for memory in memories)
        wanted = " ".join(message.content.split())
        return any(wanted in " ".join((memory.verbatim or memory.text).split()) for memory in memories)


def time_to_searchable(
    retrieve: Retrieve,
    fact: Fact,
    deadline_s: float,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Searchable:
    """Poll `retrieve(fact.message.content)` from now until a memory holds the fact or
    `deadline_s` passed (each retrieval bounded by the adapter guard's own deadline)."""
    started = clock()
    polls = 0
    while True:
        polls += 1
        found = fact.held_by(retrieve(fact.message.content))
        waited = clock() - started
        if found:
            return Searchable(waited, polls)
        if waited >= deadline_s:
            return Searchable(None, polls)
        sleep(min(max(MIN_POLL_S, waited * POLL_SHARE), deadline_s - waited))


def fact_of(session: Sequence[Message], rewrites: bool, retrieve: Retrieve) -> Fact | None:
    """The fact to probe for once `session` is stored (None: no message has text); for a
    system that rewrites what it stores, asked before the ingest (what it returns then)."""
    message = probed_message(session)
    if message is None:
        return None
    return Fact(message, frozenset(m.text for m in retrieve(message.content)) if rewrites else None)
