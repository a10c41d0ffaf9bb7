"""What the plugin's cheaper way through an item must keep: every adapter call bounded in
time, one record per item shipped once, and the garbage collector's view of the run given
back (docs/performance.md, "The cost per item"). The speed itself is measured by
benchmarks/bench_overhead.py, not here."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_memeval.errors import AdapterError
from pytest_memeval.memory.context import ContextMemory
from pytest_memeval.memory.none import NoMemory
from pytest_memeval.results.records import Record, RunKey
from pytest_memeval.results.schema import SchemaError
from pytest_memeval.running import frozen_heap, record_collector
from pytest_memeval.running.adapter_guard import AdapterGuard
from pytest_memeval.running.fixtures import attach, teardown_properties
from pytest_memeval.running.record_collector import RECORD_PROPERTY, RecordCollector, record_from_wire, record_to_wire
from pytest_memeval.running.wrong_answers import WrongAnswer, trim_wrong_answer


class _CallingThread:
    """Notes the thread of each call."""

    def __init__(self) -> None:
        self.threads: list[threading.Thread] = []

    def note(self) -> None:
        self.threads.append(threading.current_thread())


class _SlowContext(ContextMemory):
    """A subclass of `context` that waits (as one doing I/O would): it declares nothing."""

    def retrieve(self, namespace: str, query: str, k: int) -> list:
        time.sleep(0.2)
        return super().retrieve(namespace, query, k)


class _Declares(ContextMemory):
    """Declares that it returns at once, and lies: it sleeps in retrieve."""

    returns_at_once = True

    def retrieve(self, namespace: str, query: str, k: int) -> list:
        time.sleep(0.2)
        return super().retrieve(namespace, query, k)


@pytest.mark.parametrize("system", [ContextMemory, NoMemory])
def test_the_in_process_stores_are_called_on_the_callers_thread(system: type) -> None:
    guard = AdapterGuard(system.__name__)
    built = guard.construct(system)
    calls = _CallingThread()
    guard.call("retrieve", lambda: (calls.note(), built.retrieve("ns", "q", 3)))
    assert calls.threads == [threading.current_thread()]
    guard.shutdown()


def test_a_subclass_of_context_does_not_inherit_the_inline_calls() -> None:
    guard = AdapterGuard("slow", timeout_s=0.05)
    built = guard.construct(_SlowContext)
    calls = _CallingThread()
    with pytest.raises(AdapterError, match="timed out in retrieve after 0.05 s"):
        guard.call("retrieve", lambda: (calls.note(), built.retrieve("ns", "q", 3)))
    # abandoned on its own thread at the deadline, not waited for
    assert guard.lingering() == "retrieve"


def test_an_inline_call_past_the_deadline_fails_and_retires_the_system() -> None:
    guard = AdapterGuard("declares", timeout_s=0.05)
    built = guard.construct(_Declares)
    with pytest.raises(AdapterError, match="'declares' timed out in retrieve after 0.05 s"):
        guard.call("retrieve", lambda: built.retrieve("ns", "q", 3))
    with pytest.raises(AdapterError, match="is retired: retrieve did not return within 0.05 s"):
        guard.call("reset", lambda: built.reset("ns"))


def test_an_inline_call_that_raises_anything_fails_in_one_line() -> None:
    guard = AdapterGuard("context")
    guard.construct(ContextMemory)

    def exits() -> None:
        raise SystemExit("bye\nsecond line")

    with pytest.raises(AdapterError, match=r"^memsystem 'context' failed in ingest: SystemExit: bye$"):
        guard.call("ingest", exits)
    assert guard.retired is None  # a failed call fails its item, the system stays


def _record() -> Record:
    return Record("q1", RunKey("toy", "context"), "toy", "ctx", "q1", "qa", "scored", correct=True, score=1.0)


def test_the_record_travels_once_and_the_item_lets_go_of_it() -> None:
    item = SimpleNamespace(stash=pytest.Stash(), user_properties=[("own", 1)], config=SimpleNamespace(option=None))
    record = _record()
    attach(item, record)  # type: ignore[arg-type]
    properties = teardown_properties(item)  # type: ignore[arg-type]
    assert properties is not None and properties[0] == ("own", 1)
    name, wire = properties[1]
    assert name == RECORD_PROPERTY and wire == record_to_wire(record) and record_from_wire(str(wire)) == record
    assert teardown_properties(item) is None  # type: ignore[arg-type]


def _teardown_report(properties: list[tuple[str, object]]) -> pytest.TestReport:
    return pytest.TestReport("t.py::q1", ("t.py", 0, "q1"), {}, "passed", None, "teardown", user_properties=properties)


def test_a_record_made_in_the_controllers_process_is_handed_over_not_parsed_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    collector = RecordCollector()
    item = SimpleNamespace(stash=pytest.Stash(), user_properties=[], config=SimpleNamespace(option=None))
    record = _record()
    attach(item, record)  # type: ignore[arg-type]
    properties = teardown_properties(item, collector)  # type: ignore[arg-type]
    assert properties is not None
    parsed: list[str] = []

    def parse(text: str) -> Record:
        parsed.append(text)
        return record_from_wire(text)

    monkeypatch.setattr(record_collector, "record_from_wire", parse)
    collector.pytest_runtest_logreport(_teardown_report(properties))
    assert parsed == [] and list(collector.full_records(collector.records)) == [record]
    # a report from a worker (nothing handed over) is still read back, field by field
    collector.pytest_runtest_logreport(_teardown_report(properties))
    assert len(parsed) == 1 and collector.records[1] == collector.records[0]
    bad = [(RECORD_PROPERTY, str(properties[0][1]).replace('"correct":true', '"correct":"true"'))]
    with pytest.raises(SchemaError):
        collector.pytest_runtest_logreport(_teardown_report(bad))


def test_the_heap_frozen_for_the_loop_is_given_back_once() -> None:
    config = SimpleNamespace(stash=pytest.Stash())
    assert gc.get_freeze_count() == 0
    try:
        frozen_heap.freeze(config)  # type: ignore[arg-type]
        frozen = gc.get_freeze_count()
        assert frozen > 0
        made_since = [[] for _ in range(10_000)]  # would be frozen by a second gc.freeze
        frozen_heap.freeze(config)  # type: ignore[arg-type]
        # not frozen twice: the lists made since stay out (frozen objects may die meanwhile)
        assert gc.get_freeze_count() <= frozen
        del made_since
    finally:
        frozen_heap.thaw(config)  # type: ignore[arg-type]
    assert gc.get_freeze_count() == 0
    frozen_heap.thaw(config)  # type: ignore[arg-type]
    assert gc.get_freeze_count() == 0


EXIT_SCRIPT = """
import atexit, gc, sys
atexit.register(lambda: print("frozen at the end:", gc.get_freeze_count() > 0, flush=True))
from pytest_memeval.running import frozen_heap, record_collector

class Finalized:
    def __del__(self):
        print("finalized", flush=True)

before = atexit._ncallbacks()
frozen_heap._register_exit_freeze()
frozen_heap._register_exit_freeze()
print("handlers added:", atexit._ncallbacks() - before, flush=True)
gc.disable()
garbage = Finalized()
garbage.itself = garbage
del garbage
"""


@pytest.mark.slow
def test_at_exit_the_cyclic_garbage_is_finalized_and_then_the_heap_frozen(tmp_path: Path) -> None:
    """The exit handler, registered once, collects (a finalizer in a cycle runs, as the
    interpreter's own collection would run it) before it freezes the heap."""
    done = subprocess.run(
        [sys.executable, "-c", EXIT_SCRIPT], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["handlers added: 1", "finalized", "frozen at the end: True"]


@pytest.mark.slow
def test_a_run_in_process_leaves_nothing_frozen(toy_pytester: pytest.Pytester) -> None:
    """The run freezes what is alive when its loop starts; pytest's cleanup gives it back."""
    seen: list[int] = []

    class Watch:
        def pytest_runtest_call(self) -> None:
            seen.append(gc.get_freeze_count())

    before = gc.get_freeze_count()
    result = toy_pytester.runpytest_inprocess("test_toy.py", "--memsystem=context", "-p", "no:xdist", plugins=[Watch()])
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
    assert seen and all(count > before for count in seen)  # frozen while the items ran
    assert gc.get_freeze_count() == before


def _call_raising(exc: BaseException) -> pytest.CallInfo[None]:
    def nested() -> None:
        raise exc

    def outer() -> None:
        nested()

    return pytest.CallInfo.from_call(outer, "call")


def test_a_wrong_answer_keeps_only_the_frame_that_raised_it_and_other_failures_keep_theirs() -> None:
    wrong = _call_raising(WrongAnswer("q1: answered 'a', expected 'b'", "q1 a != b"))
    other = _call_raising(ValueError("a bug"))
    assert wrong.excinfo is not None and other.excinfo is not None
    assert len(wrong.excinfo.traceback) > 1
    trim_wrong_answer(wrong)
    trim_wrong_answer(other)
    assert [entry.name for entry in wrong.excinfo.traceback] == ["nested"]
    assert [entry.name for entry in other.excinfo.traceback][-2:] == ["outer", "nested"]
    assert str(wrong.excinfo.value) == "q1: answered 'a', expected 'b'"


def test_the_context_stores_texts_are_counted_once_for_ingest_and_retrieval(monkeypatch: pytest.MonkeyPatch) -> None:
    """The `context` store counts each message's tokens at ingest; the runner counts what a
    retrieval returns. They are the same texts: each is counted once, with the same count."""
    import uuid

    from pytest_memeval.memory import context, tokens
    from pytest_memeval.running.runner import ContextFiller
    from pytest_memeval.types import Message

    counted: list[str] = []
    real = tokens.count_tokens
    counting = lambda text: counted.append(text) or real(text)  # noqa: E731
    monkeypatch.setattr(tokens, "count_tokens", counting)
    monkeypatch.setattr(context, "count_tokens", counting, raising=False)  # wherever the store counts
    texts = [f"{uuid.uuid4()} day {n}: slept 7 hours, worked 8." for n in range(5)]
    guard = AdapterGuard("context")
    filler = ContextFiller(guard, guard.construct(ContextMemory))
    memory = filler.bind("ns")
    memory.ingest([Message(role="user", content=text) for text in texts])
    retrieval = memory.retrieve_counted("q", 3)
    assert [m.text for m in retrieval.memories] == texts
    assert retrieval.tokens == sum(real(text) for text in texts)
    assert sorted(counted) == sorted(texts)
    guard.shutdown()


def test_the_items_of_a_context_share_the_memories_their_records_keep() -> None:
    """A store that ignores the query returns the same Memory objects to every item of a
    context: the records keep one tuple of them, not ten new objects per item; other
    memories (even equal ones) are recorded anew."""
    from pytest_memeval.running.evaluation import recorded
    from pytest_memeval.types import Memory

    stored = [Memory(text=f"day {n}: slept {n} hours", id=str(n)) for n in range(12)]
    first, second = recorded(list(stored), 10), recorded(list(stored), 10)
    assert first is second and len(first) == 10 and first[3].text == "day 3: slept 3 hours"
    copies = [Memory(text=m.text, id=m.id) for m in stored]
    assert recorded(copies, 10) == first and recorded(copies, 10) is not first
    assert recorded(stored, 4) == first[:4]
    assert recorded([], 10) == ()


@pytest.mark.slow
def test_a_run_of_one_system_leaves_the_names_it_does_not_parametrize_out_of_every_closure(
    toy_pytester: pytest.Pytester,
) -> None:
    """pytest resolves every name of an item's fixture closure for every item: the names a
    comparison parametrizes are there only in a comparison, and each item still gets its own;
    `memeval_state` (a session fixture taking `request`) is asked for once, not by every item."""
    seen: dict[str, tuple[list[str], dict[str, object]]] = {}

    class Closures:
        def pytest_runtest_teardown(self, item: pytest.Item) -> None:
            seen[item.nodeid] = (list(item.fixturenames), dict(item.callspec.params))  # type: ignore[attr-defined]

    axes = {"memeval_memsystem", "memeval_k", "memeval_repeat"}
    one = toy_pytester.runpytest_inprocess("test_toy.py", "--memsystem=context", "-p", "no:xdist", plugins=[Closures()])
    assert one.ret in (0, 1) and seen
    assert all(axes.isdisjoint(names) and "memeval_result" in names for names, _ in seen.values())
    assert all("memeval_state" not in names for names, _ in seen.values())
    seen.clear()
    several = toy_pytester.runpytest_inprocess(
        "test_toy.py", "--memsystem=context,none", "--memeval-k=1,3", "-p", "no:xdist", plugins=[Closures()]
    )
    assert several.ret in (0, 1) and seen
    assert all(axes <= set(names) for names, _ in seen.values())
    runs = {(params["memeval_memsystem"], params["memeval_k"]) for _, params in seen.values()}
    assert runs == {("context", 1), ("context", 3), ("none", 1), ("none", 3)}
    report = toy_pytester.runpytest_inprocess(
        "test_toy.py", "--memsystem=context,none", "-p", "no:xdist", "--memeval-report=report.json"
    )
    assert report.ret in (0, 1)
    data = json.loads((toy_pytester.path / "report.json").read_text())
    assert {record["key"]["memsystem"] for record in data["records"]} == {"context", "none"}
