"""One item's way through the house: fill the context, retrieve, answer, judge, record.

Everything a test needs is computed here, in fixture setup, so that a failing adapter or
response model shows as a test *error* (never a score) and the test body only asserts.
"""

from __future__ import annotations

import hashlib
import inspect
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence, TypeVar

from .errors import AdapterError, MemevalError, ResponseError
from .memory.tokens import count_tokens
from .protocols import Judge, MemorySystem, ResponseModel
from .types import Answer, Context, Item, Memory, Message, Trace, Verdict

T = TypeVar("T")

#: how many filled namespaces a worker keeps per memory system before resetting the oldest
FILLED_NAMESPACES_KEPT = 4


def namespace_for(suite: str, context_id: str) -> str:
    """An opaque namespace: context ids carry seeds and difficulty, which must not leak."""
    digest = hashlib.sha256(f"{suite}\0{context_id}".encode()).hexdigest()[:20]
    return f"{suite}-{digest}"


def call_adapter(system_name: str, method: str, call: Callable[[], T]) -> T:
    try:
        return call()
    except Exception as exc:  # adapters may raise anything; we report it in one line
        raise AdapterError(f"memsystem {system_name!r} failed in {method}: {_describe(exc)}") from exc


@dataclass
class ContextFiller:
    """Fills each namespace once per worker and keeps the most recent few filled."""

    system_name: str
    system: MemorySystem
    filled: "OrderedDict[str, None]" = field(default_factory=OrderedDict)
    ingest_seconds: float = 0.0

    def ensure(self, namespace: str, build_context: Callable[[], Context]) -> bool:
        """Fill `namespace` unless it is filled; True when it was filled now."""
        if namespace in self.filled:
            self.filled.move_to_end(namespace)
            return False
        context = build_context()
        started = time.perf_counter()
        call_adapter(self.system_name, "reset", lambda: self.system.reset(namespace))
        for session in context.sessions:
            call_adapter(self.system_name, "ingest", lambda s=session: self.system.ingest(namespace, s))
        self.ingest_seconds += time.perf_counter() - started
        self.filled[namespace] = None
        while len(self.filled) > FILLED_NAMESPACES_KEPT:
            oldest, _ = self.filled.popitem(last=False)
            call_adapter(self.system_name, "reset", lambda: self.system.reset(oldest))
        return True


@dataclass(frozen=True)
class Outcome:
    """What one test asserts on, plus the plain-JSON record shipped to the controller."""

    item: Item
    memories: tuple[Memory, ...]
    answer: Answer
    verdict: Verdict
    record: dict[str, Any]
    #: a syrupy SnapshotAssertion when --memeval-snapshot is on
    snapshot: Any = None


@dataclass(frozen=True)
class Retrieval:
    """What a memory system returned for one item's query, and how long it took."""

    memories: list[Memory]
    seconds: float
    #: totals over several retrievals (an interactive suite's probes); None: from `memories`
    count: int | None = None
    tokens: int | None = None


def retrieve(item: Item, memory: "BoundMemory", k: int) -> Retrieval:
    """The item's query against its namespace; items whose view says `retrieve: False` (a
    condition that hands the model its context directly) get no memories."""
    if item.view.extra.get("retrieve", True) is False:
        return Retrieval([], 0.0)
    before = memory.retrieve_seconds
    memories = memory.retrieve(str(item.view.extra.get("query", item.view.question)), k)
    return Retrieval(memories, memory.retrieve_seconds - before)


class BoundMemory:
    """A memory system bound to one namespace, for suites that drive it themselves
    (a bayes episode writes each observation and probes between writes)."""

    def __init__(self, system_name: str, system: MemorySystem, namespace: str) -> None:
        self.system_name, self.system, self.namespace = system_name, system, namespace
        self.retrievals = 0
        self.retrieve_seconds = 0.0
        self.memories_returned = 0
        self.tokens_returned = 0

    def reset(self) -> None:
        call_adapter(self.system_name, "reset", lambda: self.system.reset(self.namespace))

    def ingest(self, session: Sequence[Message]) -> None:
        call_adapter(self.system_name, "ingest", lambda: self.system.ingest(self.namespace, session))

    def retrieve(self, query: str, k: int) -> list[Memory]:
        started = time.perf_counter()
        memories = call_adapter(self.system_name, "retrieve", lambda: self.system.retrieve(self.namespace, query, k))
        self.retrieve_seconds += time.perf_counter() - started
        self.retrievals += 1
        if not isinstance(memories, list) or not all(isinstance(m, Memory) for m in memories):
            raise AdapterError(f"memsystem {self.system_name!r} retrieve returned {type(memories).__name__}, expected list[Memory]")
        self.memories_returned += len(memories)
        self.tokens_returned += sum(count_tokens(m.text) for m in memories)
        return memories

    def totals(self) -> Retrieval:
        """Everything this namespace returned so far, as one retrieval (for interactive suites)."""
        return Retrieval([], self.retrieve_seconds, self.memories_returned, self.tokens_returned)

    def dump(self) -> list[Memory] | None:
        return call_adapter(self.system_name, "dump", lambda: self.system.dump(self.namespace))

    def ingest_stats(self) -> dict[str, Any] | None:
        """What ingestion did to this namespace, from adapters that say (mem0: memories extracted)."""
        stats = getattr(self.system, "ingest_stats", None)
        return None if stats is None else call_adapter(self.system_name, "ingest_stats", lambda: stats(self.namespace))


def run_item(
    suite_ref: str,
    item: Item,
    retrieval: Retrieval,
    memory: BoundMemory,
    responder_name: str,
    responder: ResponseModel,
    judge: Judge,
) -> Outcome:
    """Answer from the retrieved memories, then judge."""
    started = time.perf_counter()
    try:
        answer = _answer(responder, item, retrieval.memories)
    except Exception as exc:
        raise answer_error(responder_name, item, exc) from exc
    return conclude(suite_ref, item, answer, time.perf_counter() - started, retrieval, memory, responder_name, judge)


def conclude(
    suite_ref: str,
    item: Item,
    answer: Answer,
    answer_seconds: float,
    retrieval: Retrieval,
    memory: BoundMemory,
    responder_name: str,
    judge: Judge,
) -> Outcome:
    """Judge a valid answer (an invalid one is never scored) and build the item's record."""
    memories = retrieval.memories
    if answer.valid:
        trace = Trace(tuple(memories), memory.dump)
        try:
            verdict = judge.score(item, answer, trace)
        except MemevalError:
            raise
        except Exception as exc:
            raise ResponseError(f"judge failed on {item.id}: {_describe(exc)}") from exc
    else:
        verdict = Verdict(correct=None, reason="invalid answer: not scored")
    record = base_record(suite_ref, item, memory.system_name, responder_name)
    record.update(
        answer=answer.label,
        abstained=answer.abstained,
        valid=answer.valid,
        correct=verdict.correct,
        score=verdict.score,
        n_memories=len(memories) if retrieval.count is None else retrieval.count,
        retrieved_tokens=sum(count_tokens(m.text) for m in memories) if retrieval.tokens is None else retrieval.tokens,
        retrieve_ms=round(retrieval.seconds * 1000, 3),
        answer_ms=round(answer_seconds * 1000, 3),
        detail=dict(verdict.detail),
        answer_detail=dict(answer.detail),
    )
    if not answer.valid:
        record["raw"] = answer.raw
    ingest = memory.ingest_stats()
    if ingest is not None:
        record["ingest"] = ingest
    return Outcome(item, tuple(memories), answer, verdict, record)


def answer_error(responder_name: str, item: Item, exc: Exception) -> MemevalError:
    """Adapter errors raised while a suite drives the memory keep their own message."""
    if isinstance(exc, MemevalError):
        return exc
    return ResponseError(f"responder {responder_name!r} failed on {item.id}: {_describe(exc)}")


def _answer(responder: ResponseModel, item: Item, memories: list[Memory]) -> Answer:
    """Responders that take a `label` (the LLM path) name the item in their errors."""
    if "label" in inspect.signature(responder.answer).parameters:
        return responder.answer(item.view, memories, label=item.id)  # type: ignore[call-arg]
    return responder.answer(item.view, memories)


def base_record(suite_ref: str, item: Item, system_name: str, responder_name: str) -> dict[str, Any]:
    """`suite_ref` is how the test named the suite (a name or pkg.module:Class), to find it again."""
    return {
        "id": item.id,
        "suite": item.view.suite,
        "suite_ref": suite_ref,
        "memsystem": system_name,
        "responder": responder_name,
        "context": item.context_id,
        "cluster": item.cluster,
        "task": item.view.task,
        "strata": dict(item.strata),
        "gold": item.gold,
        "error": None,
    }


def error_record(
    suite_ref: str, item: Item, system_name: str, responder_name: str, message: str
) -> dict[str, Any]:
    record = base_record(suite_ref, item, system_name, responder_name)
    record.update(error=message, correct=None, answer=None, abstained=False, valid=False)
    return record


def failure_message(outcome: Outcome) -> str:
    """Why an item failed, readable in a terminal without the report."""
    view, answer = outcome.item.view, outcome.answer
    lines = [
        f"{outcome.item.id}: answered {answer.label!r}, expected {outcome.item.gold!r}"
        + (" (abstained)" if answer.abstained else ""),
        f"question: {view.question}",
        f"memories retrieved: {outcome.record.get('n_memories', len(outcome.memories))}",
    ]
    if outcome.verdict.reason:
        lines.append(f"judge: {outcome.verdict.reason}")
    return "\n".join(lines)


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__

