"""The conformance checks every memory-system adapter should pass.

    pytest --pyargs pytest_memeval.testing --memsystem=pkg.mod:Class [-n 4]

Two class attributes tell the kit what an adapter does not claim:
- `stores_nothing = True` (the built-in `none` is known without it): a floor. Checks that
  need stored memories are skipped; the kit checks instead that nothing ever comes back.
- `honours_k = False` (the `context` ceiling): retrieve returns everything it holds
  whatever k is. The k check is skipped and no other check holds it to k.

A third, `rewrites_messages = True` (extracted facts, notes, a graph), skips the check of
what the suites' offline readers read of its memories; a fourth, `keeps_sources = True`,
adds the check that each memory names the ids of the messages it was made from.
"""

from __future__ import annotations

import threading
import time
import uuid

import pytest

from ..protocols import MemorySystem, honours_k, keeps_sources, rewrites_messages, stores_nothing
from ..types import Memory, Message
from .fixtures import (  # noqa: F401  (fixtures and the parametrizing hook, found by name)
    MemsystemFactory,
    NamespaceFactory,
    conformance_embedder,
    memsystem,
    memsystem_factory,
    namespace,
    pytest_generate_tests,
)
from .offline_readers import DECLARED_REWRITES, offline_reading
from .samples import ODD_NAMESPACES, UNICODE_SAMPLES, Fact, facts, long_line, long_text, session

N = 12
#: how long the kit waits for a background write that should not come
SETTLE_S = 2.0


def _retrieve(system: MemorySystem, ns: str, query: str, k: int) -> list[Memory]:
    """What every retrieve must return: a list of Memory with text, at most k of them."""
    __tracebackhide__ = True
    result = system.retrieve(ns, query, k)
    assert isinstance(result, list), f"retrieve returned {type(result).__name__}, expected list[Memory]"
    assert all(isinstance(m, Memory) for m in result), f"retrieve returned non-Memory items: {result[:3]!r}"
    assert all(isinstance(m.text, str) for m in result), "Memory.text must be str"
    if honours_k(system):
        assert len(result) <= k, f"retrieve returned {len(result)} memories for k={k}"
    return result


def _dump(system: MemorySystem, ns: str) -> list[Memory] | None:
    __tracebackhide__ = True
    result = system.dump(ns)
    if result is not None:
        assert isinstance(result, list) and all(isinstance(m, Memory) for m in result), (
            f"dump returned {result!r:.200}, expected list[Memory] or None"
        )
    return result


def _codes_in(memories: list[Memory] | None, candidates: tuple[Fact, ...]) -> set[str]:
    text = "\n".join(m.text for m in memories or [])
    return {fact.code for fact in candidates if fact.code in text}


def _everything(system: MemorySystem, ns: str, query: str) -> list[Memory]:
    """The dump when the system can list, else what retrieve gives for `query` with a large k."""
    dumped = _dump(system, ns)
    return dumped if dumped is not None else _retrieve(system, ns, query, 1000)


@pytest.fixture
def stores(memsystem: MemorySystem) -> MemorySystem:
    """The adapter, for checks that only make sense when it keeps what it is given."""
    if stores_nothing(memsystem):
        pytest.skip("stores nothing by design: checked by test_a_floor_returns_nothing")
    return memsystem


def test_satisfies_the_protocol(memsystem: MemorySystem) -> None:
    assert isinstance(memsystem, MemorySystem), "needs reset, ingest, retrieve, dump and close"


def test_an_unknown_namespace_is_empty(memsystem: MemorySystem, namespace: NamespaceFactory) -> None:
    ns = namespace("unknown")
    assert _retrieve(memsystem, ns, "harbour ferry timetable", 5) == []
    assert _dump(memsystem, ns) in ([], None)
    memsystem.reset(ns)
    memsystem.reset(ns)


def test_a_floor_returns_nothing(memsystem: MemorySystem, namespace: NamespaceFactory) -> None:
    if not stores_nothing(memsystem):
        pytest.skip("stores memories: checked by the other tests")
    ns = namespace("floor")
    memsystem.ingest(ns, session(facts("floor")))
    assert _retrieve(memsystem, ns, facts("floor")[0].text, 5) == []
    assert _dump(memsystem, ns) in ([], None)


def test_retrieve_finds_what_was_ingested(stores: MemorySystem, namespace: NamespaceFactory) -> None:
    ns, stored = namespace("found"), facts("found")
    stores.ingest(ns, session(stored))
    hits = _retrieve(stores, ns, stored[4].text, N)
    assert stored[4].code in _codes_in(hits, stored), "a stored fact was not retrieved by its own text"


def test_declared_provenance_names_the_ingested_messages(stores: MemorySystem, namespace: NamespaceFactory) -> None:
    """An adapter that declares `keeps_sources` names, on each memory, the ids of the
    messages it was made from: the retrieval metrics map memories to gold evidence by them."""
    if not keeps_sources(stores):
        pytest.skip("declares no provenance (keeps_sources): memories are mapped by text overlap")
    ns, stored = namespace("sources"), facts("sources")
    ids = {fact.code: f"msg-{fact.code}" for fact in stored}
    stores.ingest(ns, tuple(Message("user", fact.text, id=ids[fact.code]) for fact in stored))
    hits = _retrieve(stores, ns, stored[4].text, N)
    assert hits and all(m.sources for m in hits), "a memory names no source message (Memory.sources)"
    assert all(set(m.sources) <= set(ids.values()) for m in hits), "a memory names a message never ingested"
    holding = [m for m in hits if stored[4].code in m.text]
    assert holding and all(ids[stored[4].code] in m.sources for m in holding), (
        "the memory holding a message does not name that message's id"
    )


def test_namespaces_are_isolated(stores: MemorySystem, namespace: NamespaceFactory) -> None:
    a, b = namespace("iso-a"), namespace("iso-b")
    facts_a, facts_b = facts("isoa"), facts("isob")
    stores.ingest(a, session(facts_a))
    stores.ingest(b, session(facts_b))
    for fact in facts_b[:4]:
        leaked = _codes_in(_retrieve(stores, a, fact.text, N), facts_b)
        assert not leaked, f"namespace {a!r} returned memories of {b!r}: {sorted(leaked)}"
    assert not _codes_in(_dump(stores, a), facts_b), f"dump of {a!r} holds memories of {b!r}"
    assert _codes_in(_retrieve(stores, b, facts_b[0].text, N), facts_b)


def test_reset_empties_its_namespace_only(stores: MemorySystem, namespace: NamespaceFactory) -> None:
    a, b = namespace("reset-a"), namespace("reset-b")
    old, other, new = facts("old"), facts("other"), facts("new", 3)
    stores.ingest(a, session(old))
    stores.ingest(b, session(other))
    stores.reset(a)
    assert _retrieve(stores, a, old[0].text, N) == [], "retrieve after reset is not empty"
    assert _dump(stores, a) in ([], None), "dump after reset is not empty"
    stores.ingest(a, session(new))
    after = _everything(stores, a, new[0].text)
    assert not _codes_in(after, old), "memories from before the reset came back"
    assert _codes_in(after, new) == {fact.code for fact in new}
    assert _codes_in(_everything(stores, b, other[0].text), other) == {fact.code for fact in other}, (
        "reset of one namespace removed memories of another"
    )


def test_identical_facts_in_two_namespaces_stay_apart(stores: MemorySystem, namespace: NamespaceFactory) -> None:
    """A system that merges or deduplicates must not do it across namespaces.

    The same facts go into two namespaces and one is reset: the other keeps its copy, and
    a conflicting value stored in a third namespace does not overwrite either.
    """
    a, b, c = namespace("same-a"), namespace("same-b"), namespace("same-c")
    shared = facts("same", 4)
    stores.ingest(a, session(shared))
    stores.ingest(b, session(shared))
    conflicting = tuple(Fact(f"{fact.code}-X", fact.text.replace(fact.code, f"{fact.code}-X")) for fact in shared)
    stores.ingest(c, session(conflicting))
    stores.reset(a)
    assert not _codes_in(_everything(stores, a, shared[0].text), shared), "reset namespace still holds the facts"
    kept = "\n".join(m.text for m in _everything(stores, b, shared[0].text))
    assert all(fact.code in kept for fact in shared), (
        "resetting one namespace removed facts another namespace stored identically (deduplicated across namespaces?)"
    )
    assert not any(f"{fact.code}-X" in kept for fact in shared), "a conflicting fact of another namespace was merged in"


def test_ingest_is_complete_when_it_returns(stores: MemorySystem, namespace: NamespaceFactory) -> None:
    """Ingestion that runs in the background must be finished (or awaited) before ingest returns.

    Everything is visible at once, with no wait; and a namespace reset right after ingest
    stays empty, so no write lands after the reset.
    """
    ns, stored = namespace("sync"), facts("sync", 6)
    stores.ingest(ns, session(stored))
    seen = _codes_in(_everything(stores, ns, stored[0].text), stored)
    assert seen == {fact.code for fact in stored}, (
        f"right after ingest only {len(seen)} of {len(stored)} facts are there"
    )
    late = namespace("late")
    stores.ingest(late, session(facts("late", 3)))
    stores.reset(late)
    time.sleep(SETTLE_S)
    assert not _codes_in(_everything(stores, late, facts("late")[0].text), facts("late", 3)), (
        "memories came back after reset: ingestion was still running when ingest returned"
    )


@pytest.mark.parametrize("k", [1, 2, 5, N, 3 * N])
def test_retrieve_honours_k(stores: MemorySystem, namespace: NamespaceFactory, k: int) -> None:
    if not honours_k(stores):
        pytest.skip("declares honours_k = False: returns everything it holds whatever k is")
    ns = namespace("k")
    stores.ingest(ns, session(facts("k")))
    hits = _retrieve(stores, ns, facts("k")[3].text, k)
    assert hits, f"nothing retrieved for k={k} from {N} stored memories"


def test_results_are_ranked(stores: MemorySystem, namespace: NamespaceFactory) -> None:
    ns, stored = namespace("rank"), facts("rank")
    stores.ingest(ns, session(stored))
    full = _retrieve(stores, ns, stored[7].text, N)
    scores = [m.score for m in full]
    if all(score is None for score in scores):
        pytest.skip("the system gives no scores")
    known = [score for score in scores if score is not None]
    assert len(known) == len(scores), f"some memories have a score, some not: {scores}"
    assert known == sorted(known, reverse=True), f"scores are not non-increasing: {scores}"
    assert stored[7].code in "\n".join(m.text for m in full[:3]), (
        "a query equal to a stored memory did not rank it in the top 3"
    )
    if not honours_k(stores):
        return
    top = _retrieve(stores, ns, stored[7].text, 3)
    tie_at_cut = len(known) > len(top) and abs(known[len(top) - 1] - known[len(top)]) < 1e-6
    if not tie_at_cut:
        assert [m.text for m in top] == [m.text for m in full[: len(top)]], "top 3 is not a prefix of the top 12"


def test_dump_agrees_with_what_was_stored(stores: MemorySystem, namespace: NamespaceFactory) -> None:
    ns, stored = namespace("dump"), facts("dump")
    stores.ingest(ns, session(stored[:6]))
    stores.ingest(ns, session(stored[6:]))
    dumped = _dump(stores, ns)
    if dumped is None:
        pytest.skip("the system cannot list a namespace (dump returns None)")
    assert _codes_in(dumped, stored) == {fact.code for fact in stored}, "dump misses stored memories"
    texts = {m.text for m in dumped}
    by_id = {m.id: m.text for m in dumped if m.id is not None}
    for hit in _retrieve(stores, ns, stored[2].text, 5):
        assert hit.text in texts, f"retrieved {hit.text!r:.80} which dump does not hold"
        if hit.id is not None and by_id:
            assert by_id.get(hit.id) == hit.text, f"id {hit.id!r} names different texts in retrieve and dump"


def test_unicode_survives(stores: MemorySystem, namespace: NamespaceFactory) -> None:
    ns = namespace("unicode")
    stores.ingest(ns, tuple(Message("user", text) for text, _ in UNICODE_SAMPLES))
    lost = []
    for text, fragment in UNICODE_SAMPLES:
        _retrieve(stores, ns, text, 3)
        if fragment not in "\n".join(m.text for m in _everything(stores, ns, text)):
            lost.append(fragment)
    assert not lost, f"unicode fragments lost in storage: {lost}"


def test_very_long_inputs(stores: MemorySystem, namespace: NamespaceFactory) -> None:
    ns = namespace("long")
    code_a, code_b = f"LONG-{uuid.uuid4().hex[:8]}", f"LINE-{uuid.uuid4().hex[:8]}"
    stores.ingest(ns, (Message("user", long_text(code_a)),))
    stores.ingest(ns, (Message("assistant", long_line(code_b)),))
    _retrieve(stores, ns, long_text("query"), 5)
    kept_a = "\n".join(m.text for m in _everything(stores, ns, f"The final locker code is {code_a}."))
    kept_b = "\n".join(m.text for m in _everything(stores, ns, f"lorem ipsum {code_b}"))
    assert code_a in kept_a and code_b in kept_b, "the end of a very long message was lost"


@pytest.mark.parametrize("query", ["", "   ", "\n\t"], ids=["empty", "spaces", "whitespace"])
def test_empty_queries(memsystem: MemorySystem, namespace: NamespaceFactory, query: str) -> None:
    ns = namespace("emptyq")
    memsystem.ingest(ns, session(facts("emptyq", 4)))
    _retrieve(memsystem, ns, query, 3)


def test_empty_sessions_are_harmless(memsystem: MemorySystem, namespace: NamespaceFactory) -> None:
    ns = namespace("emptys")
    memsystem.ingest(ns, ())
    memsystem.ingest(ns, (Message("user", ""), Message("assistant", "   ")))
    _retrieve(memsystem, ns, "anything", 3)


def test_namespace_names_are_opaque(stores: MemorySystem) -> None:
    run = uuid.uuid4().hex[:8]
    names = [f"{odd}{run}" for odd in ODD_NAMESPACES]
    groups = [facts(f"odd{i}{run}", 2) for i in range(len(names))]
    everyone = tuple(fact for group in groups for fact in group)
    try:
        for ns, group in zip(names, groups):
            stores.ingest(ns, session(group))
        for ns, group in zip(names, groups):
            found, own = _codes_in(_everything(stores, ns, group[0].text), everyone), {f.code for f in group}
            assert found & own, f"namespace {ns[:40]!r} lost its memories"
            assert found <= own, f"namespace {ns[:40]!r} holds memories of others: {sorted(found - own)}"
    finally:
        for ns in names:
            stores.reset(ns)


def test_concurrent_namespaces_from_several_workers(
    memsystem_factory: MemsystemFactory, memsystem: MemorySystem
) -> None:
    """Three adapters, each as a worker of its own, fill their namespaces at the same time."""
    if stores_nothing(memsystem):
        pytest.skip("stores nothing by design")
    workers = [memsystem] + [memsystem_factory(own_embedder=True) for _ in range(2)]
    run = uuid.uuid4().hex[:8]
    stored = [facts(f"w{i}{run}", 6) for i in range(len(workers))]
    names = [f"kit-worker{i}-{run}" for i in range(len(workers))]
    seen: list[set[str] | BaseException] = [set() for _ in workers]
    barrier = threading.Barrier(len(workers), timeout=60)

    def work(i: int) -> None:
        try:
            system, ns = workers[i], names[i]
            barrier.wait()
            system.reset(ns)
            for fact in stored[i]:
                system.ingest(ns, (Message("user", fact.text),))
            everyone = tuple(f for group in stored for f in group)
            found = _codes_in(_retrieve(system, ns, stored[i][0].text, 50), everyone)
            seen[i] = found | _codes_in(_dump(system, ns), everyone)
        except BaseException as exc:  # re-raised in the main thread below
            seen[i] = exc

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(workers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(thread.is_alive() for thread in threads), "a worker did not finish within 300 s"
    try:
        for i, result in enumerate(seen):
            if isinstance(result, BaseException):
                raise result
            own = {fact.code for fact in stored[i]}
            assert result & own, f"worker {i} found none of its own memories"
            assert result <= own, f"worker {i} saw memories of other workers: {sorted(result - own)}"
    finally:
        for system, ns in zip(workers, names):
            system.reset(ns)


def test_close_is_idempotent(memsystem_factory: MemsystemFactory) -> None:
    system = memsystem_factory()
    system.close()
    system.close()


def test_the_offline_readers_read_its_memories(stores: MemorySystem, namespace: NamespaceFactory) -> None:
    """Each suite's offline reader answers from what the adapter returns for messages written
    as that suite writes them; a system that rewrites what it stores is skipped, with why."""
    if rewrites_messages(stores):
        pytest.skip(DECLARED_REWRITES)
    ns, code = namespace("readers"), "kit" + "".join(chr(ord("a") + int(c, 16)) for c in uuid.uuid4().hex[:8])
    reading = offline_reading(stores, ns, code, lambda query: _retrieve(stores, ns, query, N))
    if reading.problem is not None and reading.rewrites:
        pytest.skip(reading.problem)
    if reading.problem is not None:
        pytest.fail(reading.problem, pytrace=False)


def test_malformed_input_raises(stores: MemorySystem, namespace: NamespaceFactory) -> None:
    """An adapter must not swallow what it cannot store: the plugin reports raises as errors."""
    with pytest.raises(Exception):  # noqa: B017  (any exception will do: the plugin records it)
        stores.ingest(namespace("malformed"), (object(),))  # type: ignore[arg-type]
