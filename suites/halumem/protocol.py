"""A user's run under HaluMem's protocol (eval/eval_memzero.py and its siblings), in its order.

The memory system starts empty for the user and gets the user's sessions one at a time. After
each session, before the next:
1. the memories the session added are its extraction: what `dump()` holds after the session
   and did not hold before it (by id and text; the official scripts take what the add call
   returned); a system whose `dump()` returns None has no extraction to score;
2. every memory point that is an update (`is_update` not "False", with original memories) is
   probed: a retrieval of 10 with the gold updated memory as the query, as the official
   scripts do;
3. each of the session's questions is asked: a retrieval of k (the official scripts use 20:
   `--memeval-k 20`) with the question as the query, answered by the run's responder.
A generated filler session of the Long file is stored and nothing else.

The plugin runs one test per memory point, session and question; the first of a user's items
to run on a worker runs the user's whole protocol (up to the last session the run selects) in
its own namespace and keeps the results, which the user's other items take (`UserRuns`: a few
users, keyed by memory system, responder, depth and repeat). The context scheduler keeps a
user's items on one worker; elsewhere a user would be run again, at the same cost.
"""

from __future__ import annotations

import hashlib
from collections import Counter, OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from pytest_memeval.errors import MemevalError
from pytest_memeval.framework.suite import ItemMemory
from pytest_memeval.protocols import ResponseModel
from pytest_memeval.types import Answer, ItemView, Memory, Message

from .released import Question, Session

#: the update probe's depth (eval_memzero.py: top_k=10)
PROBE_K = 10
#: users whose results a worker keeps
USERS_KEPT = 4
TIME_FORMAT = "%b %d, %Y, %H:%M:%S"


@dataclass(frozen=True)
class SessionResult:
    #: the session's extraction; None where the memory system cannot list what it holds
    extracted: tuple[str, ...] | None
    #: memory point position -> the texts the update probe retrieved
    probes: dict[int, tuple[str, ...]] = field(default_factory=dict)
    #: question position -> its answer, or the one line saying why it has none
    answers: dict[int, Answer | str] = field(default_factory=dict)


@dataclass
class UserRun:
    sessions: dict[int, SessionResult] = field(default_factory=dict)
    #: why the run stopped before the last session (an adapter's failure), "" when it did not
    stopped: str = ""

    def session(self, position: int) -> SessionResult:
        result = self.sessions.get(position)
        if result is None:
            raise MemevalError(self.stopped or f"session {position} was not run")
        return result


def iso_time(stamp: str) -> str | None:
    try:
        return datetime.strptime(stamp, TIME_FORMAT).isoformat()
    except ValueError:
        return None


def messages(uuid: str, position: int, session: Session) -> tuple[Message, ...]:
    """The session as the memory system stores it: each turn with its time; ids are opaque."""
    key = hashlib.sha256(f"{uuid}\0{position}".encode()).hexdigest()[:16]
    return tuple(
        Message(turn.role, turn.content, iso_time(turn.timestamp), f"{key}:{number}")
        for number, turn in enumerate(session.dialogue, 1)
    )


def added(before: Sequence[Memory], after: Sequence[Memory]) -> tuple[str, ...]:
    """The texts of what `after` holds and `before` did not (an edited memory is new)."""
    held = Counter((m.id, m.text) for m in before)
    out = []
    for memory in after:
        key = (memory.id, memory.text)
        if held[key]:
            held[key] -= 1
        else:
            out.append(memory.text)
    return tuple(out)


def run_user(
    uuid: str,
    sessions: Sequence[Session],
    memory: ItemMemory,
    responder: ResponseModel,
    k: int,
    view_of: Callable[[Question], ItemView],
) -> UserRun:
    """The protocol over `sessions` (those the run selects, in order)."""
    run = UserRun()
    last: list[Memory] | None = None
    known = False  # whether `last` is what the store holds now
    for position, session in enumerate(sessions):
        try:
            if session.generated:
                memory.ingest(messages(uuid, position, session))
                known = False
                continue
            before = last if known else memory.dump()
            memory.ingest(messages(uuid, position, session))
            after = memory.dump() if before is not None else None
            last, known = after, True
            extracted = None if before is None or after is None else added(before, after)
            probes = {
                j: tuple(m.text for m in memory.retrieve(point.content, PROBE_K))
                for j, point in enumerate(session.points)
                if point.probed
            }
        except Exception as exc:
            run.stopped = f"the user's run stopped at session {position}: {exc}"
            return run
        answers: dict[int, Answer | str] = {}
        for j, question in enumerate(session.questions or ()):
            view = view_of(question)
            try:
                retrieved = memory.retrieve(question.question, k)
            except Exception as exc:
                run.sessions[position] = SessionResult(extracted, probes, answers)
                run.stopped = f"the user's run stopped at session {position}, question {j}: {exc}"
                return run
            try:
                answers[j] = responder.answer(view, retrieved)
            except Exception as exc:  # this question's error, the run goes on
                answers[j] = f"answering failed: {exc}"
        run.sessions[position] = SessionResult(extracted, probes, answers)
    return run


class UserRuns:
    """The users run on this worker, the most recent few kept."""

    def __init__(self) -> None:
        self._runs: OrderedDict[tuple[object, ...], UserRun] = OrderedDict()

    def get(self, key: tuple[object, ...], run: Callable[[], UserRun]) -> UserRun:
        found = self._runs.get(key)
        if found is None:
            found = run()
            self._runs[key] = found
            while len(self._runs) > USERS_KEPT:
                self._runs.popitem(last=False)
        else:
            self._runs.move_to_end(key)
        return found
