"""One item's way through the house: fill the context, retrieve, answer, judge, record.

Everything a test needs is computed here, in fixture setup. Whatever fails on the way
(an adapter, the response model, the judge) ends the item as an error record with one
line; an answer outside the schema ends it as an invalid record; only a judged answer is
scored. `evaluation.evaluate` drives these steps for the plugin and for offline helpers.
"""

from __future__ import annotations

import hashlib
import operator
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import AdapterError, MemevalError, ResponseError
from ..llm.caller import ReplayMissError
from ..llm.metering import Meter
from ..llm.tally import count_tokens
from ..memory.tokens import process_counter
from ..protocols import (
    Judge,
    MemorySystem,
    ResponseModel,
    honours_k,
    keeps_sources,
    names_items,
    reports_ingest,
    rewrites_messages,
    stores_nothing,
)
from ..results.records import ANSWER_CHARS, RAW_CHARS, Record, RunKey, kept_text
from ..results.retrieval import RetrievalScore
from ..results.usage import FillCost
from ..types import Answer, Context, Item, Memory, Message, Trace, Verdict
from .adapter_guard import AdapterGuard, describe
from .adapter_values import checked_memories, checked_stats
from .progress_tracking import ProgressTracker
from .retrieval_scoring import score_retrieval
from .searchable import PROBE_K, fact_of, time_to_searchable
from .token_budget import within_budget

if TYPE_CHECKING:
    from .snapshots import VerdictSnapshot

#: how many filled namespaces a worker keeps per memory system before resetting the oldest
FILLED_NAMESPACES_KEPT = 4


def namespace_for(suite: str, context_id: str) -> str:
    """An opaque namespace: context ids carry seeds and difficulty, which must not leak."""
    digest = hashlib.sha256(f"{suite}\0{context_id}".encode()).hexdigest()[:20]
    return f"{suite}-{digest}"


@dataclass(frozen=True)
class Retrieval:
    """What a memory system returned for one item's query, and how long it took.

    For an interactive suite's probes it is a total over several retrievals: `memories`
    is empty and `count`/`tokens` say how many memories (tokens) were returned in all.
    """

    memories: list[Memory]
    seconds: float
    count: int = 0
    tokens: int = 0
    #: a total over an interactive suite's probes (`BoundMemory.totals`), not one ranking
    probes: bool = False


@dataclass(frozen=True)
class _Checked:
    """A namespace's last retrieval as the system returned it, and as it was checked."""

    returned: tuple[Memory, ...]
    limit: int | None
    retrieval: Retrieval


class BoundMemory:
    """A memory system bound to one namespace; every call goes through its guard, and what
    `retrieve` returns is checked (a list of at most k `Memory` with text).

    With a `meter` (the system's LLM goes through the run's gateway) every ingest is a
    metering scope: the system's LLM calls meanwhile count for this namespace, and a replay
    miss among them fails the ingest with the gateway's line, whatever the system made of it.
    With a `token_budget` (--memeval-token-budget) what `retrieve` returns is cut to it.
    With a `searchable_deadline_s` (--memeval-searchable) each session of a fill is followed
    by a probe of how long its last message takes to become retrievable (searchable.py).
    """

    def __init__(
        self,
        guard: AdapterGuard,
        system: MemorySystem,
        namespace: str,
        meter: Meter | None = None,
        checked: dict[str, _Checked] | None = None,
        stored_ms: dict[str, float] | None = None,
        token_budget: int | None = None,
        searchable_deadline_s: float | None = None,
    ) -> None:
        self.guard, self.system, self.namespace, self.meter = guard, system, namespace, meter
        self.token_budget = token_budget
        # a floor that stores nothing by design has nothing to probe for
        probe = searchable_deadline_s is not None and not stores_nothing(system)
        self.searchable_deadline_s = searchable_deadline_s if probe else None
        #: per namespace, the last retrieval checked (shared by the bindings of one filler)
        self._checked = {} if checked is None else checked
        #: per namespace, the milliseconds its sessions took to store since its reset (shared too)
        self._stored_ms = {} if stored_ms is None else stored_ms
        self.retrievals = 0
        self.retrieve_seconds = 0.0
        self.memories_returned = 0
        self.tokens_returned = 0
        #: milliseconds of each session stored through this binding (a fill it made)
        self.ingest_ms: list[float] = []
        #: with the probe on, milliseconds until each session's fact was retrievable (None: not
        #: within the deadline)
        self.searchable_ms: list[float | None] = []

    @property
    def system_name(self) -> str:
        return self.guard.system_name

    @property
    def keeps_sources(self) -> bool:
        """Whether the system names each memory's source messages (`Memory.sources`);
        judges see it on the `Trace`."""
        return keeps_sources(self.system)

    def reset(self) -> None:
        self._checked.pop(self.namespace, None)
        self._stored_ms.pop(self.namespace, None)
        self.guard.call("reset", lambda: self.system.reset(self.namespace))
        if self.meter is not None:
            self.meter.forget(self.namespace)

    def ingest(self, session: Sequence[Message]) -> None:
        self._checked.pop(self.namespace, None)
        started = time.perf_counter()
        if self.meter is None:
            self.guard.call("ingest", lambda: self.system.ingest(self.namespace, session))
        else:
            with self.meter.scope(self.namespace) as scope:
                try:
                    self.guard.call("ingest", lambda: self.system.ingest(self.namespace, session))
                except AdapterError:
                    scope.raise_miss()  # the cause, where the adapter's own words would hide it
                    raise
                finally:  # the item filling the context pays its fill, a failed session's calls too
                    for model, tokens in scope.tokens.items():
                        count_tokens("ingest", model, tokens)
            scope.raise_miss()  # also when the system swallowed the failed call
        milliseconds = (time.perf_counter() - started) * 1000
        self.ingest_ms.append(milliseconds)
        self._stored_ms[self.namespace] = self._stored_ms.get(self.namespace, 0.0) + milliseconds

    def ingest_probed(self, session: Sequence[Message]) -> None:
        """`ingest` a session of a context's fill; with --memeval-searchable, then wait until
        its fact is retrievable or the deadline passed, and keep how long that took. (A
        suite that writes while it runs an item, an interactive one, calls `ingest`.)"""
        deadline = self.searchable_deadline_s
        if deadline is None:
            self.ingest(session)
            return
        fact = fact_of(session, rewrites_messages(self.system), self._probe_retrieve)
        self.ingest(session)
        if fact is not None:
            found = time_to_searchable(self._probe_retrieve, fact, deadline)
            self.searchable_ms.append(None if found.seconds is None else found.seconds * 1000)

    def _probe_retrieve(self, query: str) -> list[Memory]:
        """A retrieval of the time-to-searchable probe: checked, counted nowhere else."""
        returned = self.guard.call("retrieve", lambda: self.system.retrieve(self.namespace, query, PROBE_K))
        return checked_memories(self.system_name, returned, PROBE_K if honours_k(self.system) else None)

    def fill_cost(self) -> FillCost | None:
        """What filling this namespace cost the system's own LLM since its reset; None for
        a system whose calls the gateway does not meter."""
        if self.meter is None:
            return None
        usage = self.meter.usage(self.namespace)
        return FillCost(self.meter.tokens(self.namespace), usage.seconds, self._stored_ms.get(self.namespace, 0.0))

    def retrieve(self, query: str, k: int) -> list[Memory]:
        return self.retrieve_counted(query, k).memories

    def retrieve_counted(self, query: str, k: int) -> Retrieval:
        started = time.perf_counter()
        returned = self.guard.call("retrieve", lambda: self.system.retrieve(self.namespace, query, k))
        seconds = time.perf_counter() - started
        # a system that declares `honours_k = False` (the `context` ceiling) returns what it holds
        limit = k if honours_k(self.system) else None
        last = self._checked.get(self.namespace)
        if last is not None and last.limit == limit and same_objects(last.returned, returned):
            # the very memories checked before (a store that ignores the query): checked once
            memories, tokens = list(last.retrieval.memories), last.retrieval.tokens
        else:
            memories = checked_memories(self.system_name, returned, limit)
            # counted once per process: the `context` store counted these texts at ingest
            if self.token_budget is None:
                tokens = sum(process_counter(memory.text) for memory in memories)
            else:
                memories, tokens = within_budget(memories, self.token_budget, process_counter)
            self._checked[self.namespace] = _Checked(tuple(returned), limit, Retrieval(memories, 0.0, 0, tokens))
        self.retrieve_seconds += seconds
        self.retrievals += 1
        self.memories_returned += len(memories)
        self.tokens_returned += tokens
        return Retrieval(memories, seconds, len(memories), tokens)

    def totals(self) -> Retrieval:
        """Everything this namespace returned so far, as one retrieval (for interactive suites)."""
        return Retrieval([], self.retrieve_seconds, self.memories_returned, self.tokens_returned, probes=True)

    def ingest_stats(self) -> dict[str, Any] | None:
        """What ingestion did to this namespace, from adapters that say (mem0: memories extracted)."""
        system = self.system
        if not reports_ingest(system):
            return None
        return checked_stats(
            self.system_name, self.guard.call("ingest_stats", lambda: system.ingest_stats(self.namespace))
        )

    def dump(self) -> list[Memory] | None:
        dumped = self.guard.call("dump", lambda: self.system.dump(self.namespace))
        return None if dumped is None else checked_memories(self.system_name, dumped, None)


def same_objects(before: tuple[Memory, ...], returned: object) -> bool:
    """Whether `returned` is a list of exactly the objects returned before, in order."""
    return isinstance(returned, list) and len(returned) == len(before) and all(map(operator.is_, returned, before))


@dataclass
class ContextFiller:
    """Fills each namespace once per worker and keeps the most recent few filled."""

    guard: AdapterGuard
    system: MemorySystem
    filled: OrderedDict[str, None] = field(default_factory=OrderedDict)
    ingest_seconds: float = 0.0
    #: told about each fill, session by session (the terminal's progress line)
    progress: ProgressTracker | None = None
    #: the system's LLM usage, when its calls go through the run's gateway
    meter: Meter | None = None
    #: per namespace, its last retrieval as checked (`BoundMemory.retrieve_counted`)
    checked: dict[str, _Checked] = field(default_factory=dict)
    #: per namespace, the milliseconds its sessions took to store (`BoundMemory.fill_cost`)
    stored_ms: dict[str, float] = field(default_factory=dict)
    #: --memeval-token-budget: the tokens of retrieved memories the responder may see
    token_budget: int | None = None
    #: --memeval-searchable: each ingest probed for its time to searchable, under this deadline
    searchable_deadline_s: float | None = None

    def bind(self, namespace: str) -> BoundMemory:
        return BoundMemory(
            self.guard,
            self.system,
            namespace,
            self.meter,
            self.checked,
            self.stored_ms,
            self.token_budget,
            self.searchable_deadline_s,
        )

    def ensure(
        self, memory: BoundMemory, build_context: Callable[[], Context], label: str = "", keep: Set[str] = frozenset()
    ) -> bool:
        """Fill the memory's namespace unless it is filled; True when it was filled now.
        `label` names the context in progress lines; the namespaces in `keep` (filled
        ahead, their items still to come) are not reset to make room."""
        namespace = memory.namespace
        if namespace in self.filled:
            self.filled.move_to_end(namespace)
            return False
        # building a context can cost LLM calls (memfail's storage turns): not for a retired system
        self.guard.raise_if_retired()
        context = build_context()
        started = time.perf_counter()
        if self.progress is not None:
            self.progress.fill_started(label or context.id, len(context.sessions))
        memory.reset()
        for session in context.sessions:
            try:
                memory.ingest_probed(session)
            except ReplayMissError as exc:
                raise ReplayMissError(f"{exc} (filling {label or context.id})") from None
            if self.progress is not None:
                self.progress.session_ingested(sum(len(message.content) for message in session))
        if self.progress is not None:
            self.progress.fill_finished()
        self.ingest_seconds += time.perf_counter() - started
        self.filled[namespace] = None
        while len(self.filled) > FILLED_NAMESPACES_KEPT:
            oldest = next((name for name in self.filled if name not in keep and name != namespace), None)
            if oldest is None:
                break
            del self.filled[oldest]
            self.bind(oldest).reset()
        return True


@dataclass(frozen=True)
class Outcome:
    """What one test asserts on, plus the record shipped to the controller."""

    item: Item
    memories: tuple[Memory, ...]
    answer: Answer
    verdict: Verdict
    record: Record
    #: the item's verdict snapshot when --memeval-snapshot is on
    snapshot: VerdictSnapshot | None = None
    #: the texts the memory system held for the item (sorted), kept for the snapshot of a
    #: system whose memories its own LLM writes; None otherwise
    stored: tuple[str, ...] | None = None


def stored_texts(memory: BoundMemory) -> tuple[str, ...] | None:
    """What the namespace holds, as sorted texts (None when the system cannot list it)."""
    dumped = memory.dump()
    return None if dumped is None else tuple(sorted(m.text for m in dumped))


def retrieve(item: Item, memory: BoundMemory, k: int) -> Retrieval:
    """The item's question against its namespace; items whose view says `retrieve=False` (a
    condition that hands the model its context directly) get no memories."""
    if not item.view.retrieve:
        return Retrieval([], 0.0)
    return memory.retrieve_counted(item.view.question, k)


def run_item(
    key: RunKey,
    suite_ref: str,
    item: Item,
    retrieval: Retrieval,
    memory: BoundMemory,
    responder: ResponseModel,
    judge: Judge,
) -> Outcome:
    """Answer from the retrieved memories, then judge."""
    started = time.perf_counter()
    try:
        answer = _answer(responder, item, retrieval.memories)
    except Exception as exc:
        raise answer_error(key.responder, item, exc) from exc
    return conclude(key, suite_ref, item, answer, time.perf_counter() - started, retrieval, memory, judge)


def conclude(
    key: RunKey,
    suite_ref: str,
    item: Item,
    answer: Answer,
    answer_seconds: float,
    retrieval: Retrieval,
    memory: BoundMemory,
    judge: Judge,
) -> Outcome:
    """Judge a valid answer (an invalid one is never scored), whole, and build the item's
    record, which keeps the first ANSWER_CHARS characters of the answer and of the judge's
    reason (and their length), as it keeps those of an invalid answer's text."""
    judge_ms = None
    if answer.valid:
        trace = Trace(tuple(retrieval.memories), memory.dump, keeps_sources=memory.keeps_sources)
        verdict, judge_ms = judged(judge, item, answer, trace)
    else:
        verdict = Verdict(correct=None, reason="invalid answer: not scored")
    record = Record(
        id=item.id,
        key=key,
        suite_ref=suite_ref,
        context=item.context_id,
        cluster=item.cluster,
        task=item.view.task,
        status="scored" if answer.valid else "invalid",
        strata=dict(item.strata),
        reason="" if answer.valid else f"invalid answer from {key.responder!r}",
        answer=None if answer.label is None else kept_text(answer.label, ANSWER_CHARS),
        abstained=answer.abstained,
        correct=verdict.correct if answer.valid else None,
        score=verdict.score if answer.valid else None,
        gold=item.gold,
        n_memories=retrieval.count,
        retrieved_tokens=retrieval.tokens,
        retrieve_ms=retrieval.seconds * 1000,
        answer_ms=answer_seconds * 1000,
        detail=dict(verdict.detail),
        answer_detail=dict(answer.detail),
        stage=verdict.stage if answer.valid else "",
        memory_unreadable=answer.memory_unreadable,
        raw="" if answer.valid else kept_text(answer.raw, RAW_CHARS),
        question=item.view.question,
        judge_reason=kept_text(verdict.reason, ANSWER_CHARS) if answer.valid else "",
        ingest=memory.ingest_stats() or {},
        ingest_ms=tuple(memory.ingest_ms),
        searchable_ms=tuple(memory.searchable_ms),
        judge_ms=judge_ms,
        context_fill=memory.fill_cost(),
        retrieval=scored_retrieval(item, retrieval, memory, key.k),
    )
    return Outcome(item, tuple(retrieval.memories), answer, verdict, record)


def judged(judge: Judge, item: Item, answer: Answer, trace: Trace) -> tuple[Verdict, float]:
    """The judge's verdict on a valid answer, and the milliseconds it took; whatever fails
    in the judge is a one-line MemevalError."""
    started = time.perf_counter()
    try:
        verdict = judge.score(item, answer, trace)
    except MemevalError:
        raise
    except Exception as exc:
        raise ResponseError(f"judge failed on {item.id}: {describe(exc)}") from exc
    return verdict, (time.perf_counter() - started) * 1000


def scored_retrieval(item: Item, retrieval: Retrieval, memory: BoundMemory, k: int) -> RetrievalScore | None:
    """The item's retrieval against its gold evidence, where the suite declares it and the
    item was answered from a retrieval (not an interactive suite's probes, nor a condition
    that retrieves nothing)."""
    if item.evidence is None or not item.view.retrieve or retrieval.probes:
        return None
    return score_retrieval(item.evidence, retrieval.memories, k, memory.keeps_sources)


def error_record(key: RunKey, suite_ref: str, item_id: str, message: str, item: Item | None = None) -> Record:
    """An item that ended in an error; `item` is None when even building it failed."""
    return Record(
        id=item_id,
        key=key,
        suite_ref=suite_ref,
        context=item.context_id if item is not None else "",
        cluster=item.cluster if item is not None else item_id,
        task=item.view.task if item is not None else "",
        status="error",
        strata=dict(item.strata) if item is not None else {},
        reason=message,
        gold=item.gold if item is not None else None,
        question=item.view.question if item is not None else "",
    )


def answer_error(responder_name: str, item: Item, exc: Exception) -> MemevalError:
    """Adapter errors raised while a suite drives the memory keep their own message."""
    if isinstance(exc, MemevalError):
        return exc
    return ResponseError(f"responder {responder_name!r} failed on {item.id}: {describe(exc)}")


def _answer(responder: ResponseModel, item: Item, memories: list[Memory]) -> Answer:
    """Responders that are told the item (`NamesItems`: the LLM path) name it in their errors."""
    if names_items(responder):
        return responder.answer_item(item.id, item.view, memories)
    return responder.answer(item.view, memories)


def failure_message(outcome: Outcome) -> str:
    """Why an item failed, readable in a terminal without the report (the answer and the
    judge's reason as the record keeps them)."""
    view, answer, record = outcome.item.view, outcome.answer, outcome.record
    lines = [
        f"{outcome.item.id}: answered {record.answer!r}, expected {outcome.item.gold!r}"
        + (" (abstained)" if answer.abstained else ""),
        f"question: {view.question}",
        f"memories retrieved: {record.n_memories}"
        + (
            " (the offline reader recognised nothing in them; use an LLM responder)" if answer.memory_unreadable else ""
        ),
    ]
    if outcome.verdict.reason:
        lines.append(f"judge: {kept_text(outcome.verdict.reason, ANSWER_CHARS)}")
    return "\n".join(lines)
