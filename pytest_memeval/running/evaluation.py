"""One item on one worker: fill its context (or let the suite drive the memory), retrieve,
answer and judge. The plugin's fixture and the offline helpers (`evaluate_items`) both
come through `evaluate_record`, so every way of running an item makes the same record."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from msgspec import structs

from ..config.settings import oracle_base
from ..errors import MemevalError
from ..framework.suite import Suite
from ..llm.repetition import repeat_scope
from ..llm.tally import tallying
from ..protocols import Judge, MemorySystem, ResponseModel
from ..results.records import Record, RecordedMemory, RunKey
from ..types import Context, Item, Memory
from .adapter_guard import AdapterGuard, describe
from .oracle import oracle_context, oracle_namespace
from .prefetch import Fill, Prefetcher, Stage
from .record_collector import record_to_wire
from .runner import (
    ContextFiller,
    Outcome,
    answer_error,
    conclude,
    error_record,
    namespace_for,
    retrieve,
    run_item,
    same_objects,
    stored_texts,
)
from .state import RunState

#: memories kept per record unless --memeval-record-memories says otherwise
DEFAULT_RECORDED_MEMORIES = 10


@dataclass(frozen=True)
class Components:
    """Everything one item needs, whoever built it (the run's state, or an offline helper)."""

    suite: Suite
    suite_ref: str
    filler: ContextFiller
    responder: ResponseModel
    judge: Judge
    prefetcher: Prefetcher
    #: how many retrieved memories each record keeps (0: none)
    record_memories: int = DEFAULT_RECORDED_MEMORIES
    #: keep what the memory system holds for each item (`Outcome.stored`, for its snapshot)
    keep_stored: bool = False
    #: the components of another stage's items, for filling it ahead (`fill_ahead`)
    ahead: Callable[[Stage], Components] | None = None
    #: the system's oracle run (--memeval-oracle): each item on a store of its evidence sessions
    oracle: bool = False

    @classmethod
    def of_state(cls, state: RunState, prefetcher: Prefetcher, suite_ref: str, system_name: str) -> Components:
        suite = state.suite(suite_ref)
        system, oracle = oracle_base(system_name)
        return cls(
            suite,
            suite_ref,
            state.filler(system_name),
            state.responder(suite),
            state.judge(suite),
            prefetcher,
            state.settings.record_memories,
            # the memories a system's own LLM wrote go into the snapshot beside the verdict
            keep_stored=state.settings.snapshot and state.meter(system) is not None,
            ahead=lambda stage: cls.of_state(state, prefetcher, stage.suite_ref, stage.system),
            oracle=oracle,
        )

    @classmethod
    def offline(cls, suite: Suite, system: MemorySystem, system_name: str, responder: ResponseModel) -> Components:
        """An in-process memory system and response model, the suite's own judge."""
        filler = ContextFiller(AdapterGuard(system_name), system)
        return cls(suite, suite.name, filler, responder, suite.judge(), Prefetcher({}))


ComponentsFactory = Callable[[], Components]


def evaluate(parts: Components, item: Item, key: RunKey, repeat: int = 0) -> Outcome:
    """Raises a MemevalError (one line) when anything on the item's way fails.

    Repeats of an item share its filled context; each repeat retrieves, answers and is
    judged again, its model calls keyed by the repeat (see `repetition`).
    """
    suite, filler = parts.suite, parts.filler
    if suite.interactive:
        # The suite writes and probes in its own order; the namespace is the item's alone.
        memory = filler.bind(namespace_for(suite.name, item.id))
        memory.reset()
        started = time.perf_counter()
        try:
            with repeat_scope(repeat):
                answer = suite.interact(item, memory, parts.responder, key.k)
        except Exception as exc:
            raise answer_error(key.responder, item, exc) from exc
        seconds = time.perf_counter() - started - memory.retrieve_seconds
        with repeat_scope(repeat):
            outcome = conclude(key, parts.suite_ref, item, answer, seconds, memory.totals(), memory, parts.judge)
        if parts.keep_stored:
            outcome = replace(outcome, stored=stored_texts(memory))
        memory.reset()
        return outcome
    if parts.oracle:
        return evaluate_oracle(parts, item, key, repeat)
    memory = filler.bind(namespace_for(suite.name, item.context_id))
    stage = Stage(parts.suite_ref, item.context_id, key.memsystem, key.k)
    prefetcher = parts.prefetcher
    filled_ahead = prefetcher.arrived(stage)
    memory.ingest_ms.extend(filled_ahead.ingest_ms)
    memory.searchable_ms.extend(filled_ahead.searchable_ms)
    filler.ensure(memory, lambda: suite.context(item.context_id), f"{suite.name} {item.context_id}", prefetcher.kept())
    prefetcher.start(stage, suite.item, memory, parts.responder)
    fill_ahead(parts, stage)
    with repeat_scope(repeat):
        retrieval = parts.prefetcher.take(key.memsystem, key.k, item.id, repeat) or retrieve(item, memory, key.k)
        outcome = run_item(key, parts.suite_ref, item, retrieval, memory, parts.responder, parts.judge)
    return replace(outcome, stored=stored_texts(memory)) if parts.keep_stored else outcome


def evaluate_oracle(parts: Components, item: Item, key: RunKey, repeat: int = 0) -> Outcome:
    """The item answered from a store of the sessions that hold its gold evidence (oracle.py);
    nothing is prefetched or filled ahead: the next item's store is another."""
    suite, filler = parts.suite, parts.filler
    memory = filler.bind(oracle_namespace(suite.name, item))
    label = f"{suite.name} {item.context_id} (oracle)"

    def evidence_sessions() -> Context:
        return oracle_context(suite.context(item.context_id), item.evidence)

    # the namespaces filled ahead for the system's own stages stay filled (their items are to come)
    filler.ensure(memory, evidence_sessions, label, parts.prefetcher.kept())
    with repeat_scope(repeat):
        retrieval = retrieve(item, memory, key.k)
        outcome = run_item(key, parts.suite_ref, item, retrieval, memory, parts.responder, parts.judge)
    return replace(outcome, stored=stored_texts(memory)) if parts.keep_stored else outcome


def fill_ahead(parts: Components, current: Stage) -> None:
    """Fill and prefetch the stages scheduled next on this process while the endpoint has
    room (prefetch.py); what a fill's LLM calls cost is paid by the stage's first item."""
    if parts.ahead is None:
        return
    for stage in parts.prefetcher.next_stages(current):
        ingest_ms: list[float] = []
        searchable_ms: list[float | None] = []
        with tallying() as tally:
            namespace = _fill_and_start(parts, parts.ahead, stage, ingest_ms, searchable_ms)
        parts.prefetcher.filled_ahead(stage, namespace, Fill(tally.tokens(), tuple(ingest_ms), tuple(searchable_ms)))


def _fill_and_start(
    parts: Components,
    components_of: Callable[[Stage], Components],
    stage: Stage,
    ingest_ms: list[float],
    searchable_ms: list[float | None],
) -> str:
    """The namespace filled ahead for `stage` ('' when none was); each session's
    milliseconds go to `ingest_ms`, its time to searchable to `searchable_ms`. A failure
    here is not the running item's: the stage's own items fill it again and meet the
    failure themselves."""
    namespace = ""
    try:
        ahead = components_of(stage)
        suite = ahead.suite
        if suite.interactive or ahead.oracle:  # an oracle item's store is its own (evaluate_oracle)
            return ""
        memory = ahead.filler.bind(namespace_for(suite.name, stage.context_id))
        memory.ingest_ms, memory.searchable_ms = ingest_ms, searchable_ms
        label = f"{suite.name} {stage.context_id}"
        ahead.filler.ensure(memory, lambda: suite.context(stage.context_id), label, parts.prefetcher.kept())
        namespace = memory.namespace
        parts.prefetcher.start(stage, suite.item, memory, ahead.responder)
    except Exception:
        pass
    return namespace


@dataclass(frozen=True)
class Evaluated:
    """An item's record, its wire form (`record_to_wire`, made once: it is also the check
    that the record can travel), and the outcome when the item was answered."""

    record: Record
    wire: str
    outcome: Outcome | None


def evaluate_record(
    build: ComponentsFactory,
    suite_ref: str,
    item_id: str,
    key: RunKey,
    repeat: int = 0,
) -> tuple[Record, Outcome | None]:
    """The item's record whatever happens: an error record (one line) when any step fails,
    building the memory system or the item included; the outcome when it was answered."""
    evaluated = evaluate_wired(build, suite_ref, item_id, key, repeat)
    return evaluated.record, evaluated.outcome


def evaluate_wired(
    build: ComponentsFactory,
    suite_ref: str,
    item_id: str,
    key: RunKey,
    repeat: int = 0,
) -> Evaluated:
    """`evaluate_record`, with the record's wire form."""
    item: Item | None = None
    with tallying() as tally:
        try:
            parts = build()
            item = parts.suite.item(item_id)
            outcome = evaluate(parts, item, key, repeat)
        except Exception as exc:  # every failure on the item's way is its error, in one line
            failed = error_record(key, suite_ref, item_id, error_message(item_id, exc), item)
            return _wired(structs.replace(failed, repeat=repeat, llm_tokens=tally.tokens()), None)
    record = structs.replace(
        outcome.record,
        repeat=repeat,
        memories=recorded(outcome.memories, parts.record_memories),
        llm_tokens=tally.tokens(),
    )
    try:
        wire = record_to_wire(record)  # what cannot travel as strict JSON ends this item, not the run
    except (TypeError, ValueError) as exc:
        message = f"{item_id}: its record cannot be written as JSON: {describe(exc)}"
        failed = error_record(key, suite_ref, item_id, message, item)
        return _wired(structs.replace(failed, repeat=repeat, llm_tokens=record.llm_tokens), None)
    return Evaluated(record, wire, replace(outcome, record=record))


def _wired(record: Record, outcome: Outcome | None) -> Evaluated:
    return Evaluated(record, record_to_wire(record), outcome)


def recorded(memories: Sequence[Memory], limit: int) -> tuple[RecordedMemory, ...]:
    """The first `limit` memories as a record keeps them (text shortened, id, score).

    A store that ignores the query returns the very same Memory objects to every item of a
    context: their records share one tuple (records and memories are frozen), made once,
    instead of ten new objects per item that the collector keeps to the end of the run."""
    kept = list(memories[:limit])
    last_kept, last_recorded = _last_recorded[0]
    if kept and same_objects(last_kept, kept):
        return last_recorded
    made = tuple(RecordedMemory.of(m.text, m.id, m.score) for m in kept)
    _last_recorded[0] = (tuple(kept), made)
    return made


#: the memories `recorded` kept last, and their record form
_last_recorded: list[tuple[tuple[Memory, ...], tuple[RecordedMemory, ...]]] = [((), ())]


def evaluate_items(parts: Components, item_ids: Iterable[str], key: RunKey) -> Iterator[Record]:
    """Offline: the records of some items, exactly as the plugin would make them (the
    acceptance scripts and the self-test agents run here, without pytest)."""
    for item_id in item_ids:
        yield evaluate_record(lambda: parts, parts.suite_ref, item_id, key)[0]


def error_message(item_id: str, exc: Exception) -> str:
    """The one line an item's error record says: a one-line MemevalError's own words, else
    the item and the exception's type and first line."""
    one_line = isinstance(exc, MemevalError) and "\n" not in str(exc).strip()
    return str(exc) if one_line else f"{item_id}: {describe(exc)}"
