"""The endpoint kept busy: items of several contexts in flight at once (bounded), the
in-flight limit that halves on a 429 and recovers, and --memeval-concurrency as a budget
per run that xdist workers split."""

from __future__ import annotations

import json
import os
import re
import signal
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from llm_server import LLMServer, Request
from toysuite import NAMES, THINGS, ToyReader, ToySuite

from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.llm import LLMResponder, LLMSettings, MultisourcePrompt
from pytest_memeval.llm.adaptive import THROTTLED, AdaptiveLimit
from pytest_memeval.llm.caller import ModelCaller
from pytest_memeval.llm.calls import ChatRequest, Completion
from pytest_memeval.llm.client import ChatClient
from pytest_memeval.llm.gateway import LLMGateway
from pytest_memeval.memory.context import ContextMemory
from pytest_memeval.protocols import ResponseModel
from pytest_memeval.results.records import RunKey
from pytest_memeval.running.evaluation import Components, evaluate_record
from pytest_memeval.running.prefetch import STAGES_AHEAD, Prefetcher, Stage, upcoming_in_order
from pytest_memeval.running.runner import FILLED_NAMESPACES_KEPT
from pytest_memeval.running.worker_share import shared_settings, worker_share
from pytest_memeval.types import ItemView, Memory


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 0.001
        return self.now


def test_a_429_halves_the_limit_once_per_round_and_successes_raise_it_back() -> None:
    limit = AdaptiveLimit(8, clock=Clock())
    slots = [limit.acquire(1.0) for _ in range(8)]
    assert all(slots) and limit.acquire(0.0) is None  # the budget is held
    for slot in slots[:4]:  # four 429s of calls sent before the decrease: one halving
        assert slot is not None
        limit.release(slot, THROTTLED)
    assert limit.limit == 4 and limit.decreases == 1
    late = limit.acquire(0.0)  # none free: 4 still held at a limit of 4
    assert late is None
    for slot in slots[4:]:
        assert slot is not None
        limit.release(slot, 200)
    again = limit.acquire(1.0)
    assert again is not None
    limit.release(again, THROTTLED)  # sent after the decrease: halves again
    assert limit.limit == 2 and limit.lowest == 2
    for _ in range(100):
        slot = limit.acquire(1.0)
        assert slot is not None
        limit.release(slot, 200)
    assert limit.limit == 8  # raised by one per round of successes, never above the budget


def test_a_call_waits_for_a_slot_within_its_deadline() -> None:
    limit = AdaptiveLimit(1)
    held = limit.acquire(1.0)
    assert held is not None
    started = time.monotonic()
    assert limit.acquire(0.2) is None
    assert 0.15 < time.monotonic() - started < 2
    threading.Timer(0.1, lambda: limit.release(held, 200)).start()
    assert limit.acquire(5.0) is not None  # woken when the slot comes back


@pytest.mark.parametrize(("budget", "workers"), [(16, 1), (16, 2), (17, 4), (3, 8), (32, 16)])
def test_workers_split_the_concurrency_budget(budget: int, workers: int) -> None:
    shares = [worker_share(budget, workers, i) for i in range(workers)]
    assert all(share >= 1 for share in shares)
    assert sum(shares) == max(budget, workers)
    assert max(shares) - min(shares) <= 1


def test_a_worker_uses_its_share_for_its_calls_and_its_gateway(tmp_path: Path) -> None:
    from pytest_memeval.config.settings import Settings

    llm = LLMSettings(model="m", cache_mode="off", concurrency=9)
    settings = Settings(
        memsystems=("context",), suites=("toy",), size="smoke", split=None, seeds=None, ks=(10,),
        responder="openai:m", report=None, data_dir=None, embedder="hashing", cache_dir=tmp_path,
        bootstrap=10, llm=llm, gateway=llm,
    )  # fmt: skip
    assert shared_settings(settings, None) is settings
    second = shared_settings(settings, {"workercount": 2, "workerid": "gw1"})
    assert second.llm is not None and second.gateway is not None
    assert (second.llm.concurrency, second.gateway.concurrency) == (4, 4)
    first = shared_settings(settings, {"workercount": 2, "workerid": "gw0"})
    assert first.llm is not None and first.llm.concurrency == 5


class PrefetchingReader(ToyReader):
    """The toy reader with a `prefetch` that records which items were asked for, in batches."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def prefetch(self, requests: Iterable[tuple[str, ItemView, Sequence[Memory]]]) -> int:
        self.batches.append([label for label, _, _ in requests])
        return len(self.batches[-1])


class CountingMemory(ContextMemory):
    """The `context` store, counting how many namespaces hold something."""

    def __init__(self) -> None:
        super().__init__()
        self.most_held = 0

    def ingest(self, namespace: str, session: Sequence[object]) -> None:
        super().ingest(namespace, session)  # type: ignore[arg-type]
        self.most_held = max(self.most_held, len(self._store))


def toy_run(
    tmp_path: Path, budget: int, memory: ContextMemory | None = None, responder: ResponseModel | None = None
) -> tuple[Components, PrefetchingReader, ContextMemory, list[str]]:
    """A run of the toy suite in this process, filling ahead within `budget` (the `context`
    store counting its namespaces, and a reader recording its prefetches, by default)."""
    suite = ToySuite(SuiteOptions("smoke", None, None, 10, None, tmp_path))
    reader, memory = PrefetchingReader(), memory or CountingMemory()
    items = [f"{name}-{thing}" for name in NAMES for thing in THINGS]
    contexts = {("toy", name): [(f"{name}-{thing}", 0) for thing in THINGS] for name in NAMES}
    stages = [Stage("toy", name, "context", 10) for name in NAMES]
    prefetcher = Prefetcher(contexts, budget, upcoming_in_order(stages))
    offline = Components.offline(suite, memory, "context", responder or reader)
    parts = replace(offline, suite_ref="toy", prefetcher=prefetcher)
    parts = replace(parts, ahead=lambda stage: parts)
    return parts, reader, memory, items


def test_the_next_contexts_are_prefetched_while_one_runs(tmp_path: Path) -> None:
    parts, reader, _, items = toy_run(tmp_path, budget=2)
    key = RunKey("toy", "context")
    record, _ = evaluate_record(lambda: parts, "toy", items[0], key)
    assert record.status == "scored"
    # one context has 3 items: the next is filled and asked for while fewer than 2 x 2 wait
    assert reader.batches == [["ada-colour", "ada-city", "ada-pet"], ["ben-colour", "ben-city", "ben-pet"]]


def test_filling_ahead_stays_bounded_and_every_item_is_recorded(tmp_path: Path) -> None:
    parts, reader, memory, items = toy_run(tmp_path, budget=50)
    assert isinstance(memory, CountingMemory)
    key = RunKey("toy", "context")
    records = [evaluate_record(lambda: parts, "toy", item_id, key)[0] for item_id in items]
    assert [r.status for r in records] == ["scored"] * len(items)
    assert all(r.correct for r in records)  # each answer read the memories of its own context
    # a large budget: every context ahead that the bound allows, each asked for once
    assert len(reader.batches) == len(NAMES)
    assert memory.most_held <= STAGES_AHEAD + 1 <= FILLED_NAMESPACES_KEPT
    # a context filled ahead is paid by its first item, as if that item had filled it
    assert [len(r.ingest_ms) for r in records] == [1, 0, 0] * len(NAMES)


class ScriptedClient:
    """A network client that answers at once and notes when each call reached it."""

    attempts = retries = 0

    def __init__(self) -> None:
        self.reached: list[float] = []

    def complete(self, request: ChatRequest, *, label: str | None = None) -> Completion:
        self.reached.append(time.monotonic())
        return Completion(json.dumps({"answer": "few", "would_skip": False}), "stop")

    def close(self) -> None:
        pass


class SlowToBuild(ModelCaller):
    """A caller whose network client takes a while to build, as openai's import does."""

    def __init__(self, settings: LLMSettings, scripted: ScriptedClient) -> None:
        super().__init__(settings)
        self.scripted, self.built = scripted, False

    @property
    def client(self) -> ChatClient:
        if not self.built:
            time.sleep(0.05)
            self.built = True
        return self.scripted  # type: ignore[return-value]


class TimedMemory(ContextMemory):
    """The `context` store, noting when each namespace was first filled."""

    def __init__(self) -> None:
        super().__init__()
        self.filled: dict[str, float] = {}

    def ingest(self, namespace: str, session: Sequence[object]) -> None:
        self.filled.setdefault(namespace, time.monotonic())
        super().ingest(namespace, session)  # type: ignore[arg-type]


def test_the_first_call_leaves_before_the_next_context_is_filled(tmp_path: Path) -> None:
    """The endpoint works from the first context on: the next contexts are filled ahead
    only once the first call has reached the network client, which is built first."""
    settings = LLMSettings(model="m", cache_mode="off", concurrency=4)
    scripted, memory = ScriptedClient(), TimedMemory()
    responder = LLMResponder(MultisourcePrompt(), settings, caller=SlowToBuild(settings, scripted))
    parts, _, _, items = toy_run(tmp_path, budget=4, memory=memory, responder=responder)
    try:
        evaluate_record(lambda: parts, "toy", items[0], RunKey("toy", "context", responder="openai:m"))
    finally:
        responder.close()
    first_context, *later = sorted(memory.filled.values())
    assert later and scripted.reached  # contexts were filled ahead, and calls made
    assert first_context < min(scripted.reached) < min(later)


LABEL_LINE = re.compile(r"^- (\w+)", re.M)


def first_label(request: Request) -> str:
    question = request.text.split("# Survey Question", 1)[-1]
    found = LABEL_LINE.search(question)
    return json.dumps({"answer": found.group(1) if found else "none", "would_skip": False})


@pytest.mark.slow
def test_the_gateway_lowers_its_limit_on_429_and_raises_it_again(tmp_path: Path) -> None:
    view = ItemView("multisource", "A1", "How many nights?", ("few", "many"))
    with LLMServer(first_label, latency_s=0.2, capacity=2) as server:
        llm = LLMSettings(model="m", cache_mode="off", concurrency=8, backoff_s=0.05, timeout_s=10)
        with LLMGateway(llm) as gateway:
            routed = replace(llm, base_url=gateway.route("responder", server.base_url, record=False))
            responder = LLMResponder(MultisourcePrompt(), routed)
            try:
                requests = [(f"q{i}", replace(view, question=f"question {i}?"), []) for i in range(16)]
                responder.prefetch(requests)
                answers = [responder.answer(v, m, label=label) for label, v, m in requests]
                assert all(a.valid for a in answers)  # every call answered in the end
                assert gateway.in_flight.decreases >= 1 and gateway.in_flight.lowest <= 4
                assert server.over_capacity >= 1
                server.capacity = None  # the endpoint takes more again
                for i in range(40):
                    responder.answer(replace(view, question=f"again {i}?"), [], label=f"a{i}")
                assert gateway.in_flight.limit == 8
            finally:
                responder.close()


def _run(pytester: pytest.Pytester, server: LLMServer, *args: str) -> dict:
    report = pytester.path / "report.json"
    result = pytester.runpytest_subprocess(
        "--memsystem=context",
        "--memeval-suite=multisource",
        "--memeval-responder=openai:scripted-model",
        f"--memeval-base-url={server.base_url}",
        "--memeval-llm-cache=off",
        f"--memeval-report={report}",
        "-p",
        "no:cacheprovider",
        *args,
        timeout=600,
    )
    assert report.exists(), result.stdout.str()[-3000:]
    return json.loads(report.read_text())


@pytest.mark.slow
def test_items_of_several_contexts_are_in_flight_at_once(suite_pytester: pytest.Pytester) -> None:
    with LLMServer(first_label, latency_s=0.3) as server:
        report = _run(suite_pytester, server, "-p", "no:xdist", "--memeval-concurrency=24")
    records = report["records"]
    assert {r["status"] for r in records} == {"scored"}
    per_context = max(sum(r["context"] == c for r in records) for c in {r["context"] for r in records})
    assert per_context < server.max_in_flight <= 24  # more than one context's items; within the budget
    assert server.count == len(records)


@pytest.mark.slow
def test_xdist_workers_split_the_budget(suite_pytester: pytest.Pytester) -> None:
    with LLMServer(first_label, latency_s=0.3) as server:
        report = _run(suite_pytester, server, "-n", "2", "--memeval-concurrency=24")
    assert {r["status"] for r in report["records"]} == {"scored"}
    # each worker keeps its 12 in flight (more than one context's 18 items are queued on each)
    assert 12 < server.max_in_flight <= 24


@pytest.mark.slow
def test_the_one_worker_with_work_uses_the_whole_budget(
    suite_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """One context selected under -n 2: only one worker has items. A static split would keep
    it at 4 of the 8 calls; the run's shared slots let it take all 8, and no more."""
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))  # where the controller creates the run's slots
    with LLMServer(first_label, latency_s=0.3) as server:
        report = _run(suite_pytester, server, "-n", "2", "-k", "stable_121", "--memeval-concurrency=8")
    records = report["records"]
    assert len(records) == 18 and {r["status"] for r in records} == {"scored"}
    assert {r["context"] for r in records} == {"gen20260321-stable_121"}
    assert 4 < server.max_in_flight <= 8
    assert not list(temp.glob("memeval-slots-*"))  # the controller removed them at the end


@pytest.mark.slow
def test_a_worker_killed_while_holding_slots_gives_them_back_and_every_item_is_recorded(
    suite_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """One context under -n 2: its worker is killed while the endpoint holds 8 of its calls,
    each holding one of the run's 8 slots. Were the slots not given back, no call of the
    worker that runs the context again could be sent (each answered 429 until its retries
    ran out: error records). The kernel drops the dead worker's locks: every item scored."""
    victim = tmp_path / "victim.pid"
    monkeypatch.setenv("MEMEVAL_VICTIM_PID", str(victim))
    arrived, killed = [0], threading.Event()
    lock = threading.Lock()

    def kill_the_caller_at_its_eighth_call(request: Request) -> str:
        with lock:
            arrived[0] += 1
            if arrived[0] == 8 and victim.exists():
                os.kill(int(victim.read_text()), signal.SIGKILL)
                killed.set()
        return first_label(request)

    with LLMServer(kill_the_caller_at_its_eighth_call, latency_s=1.0) as server:
        report = _run(
            suite_pytester,
            server,
            "-n",
            "2",
            "-k",
            "stable_121",
            "--memsystem=faulty_adapters:NamesItsProcess",
            "--memeval-concurrency=8",
            "--memeval-timeout=5",  # without the slots back, the retries would end within a minute
        )
    assert killed.is_set()
    records = report["records"]
    assert len({r["id"] for r in records}) == len(records) == 18
    assert {r["status"] for r in records} == {"scored"}  # no call was refused for want of a slot
    assert server.count > 18  # the calls the dead worker had upstream were asked again
    assert server.max_in_flight <= 8
    assert any("crashed" in error for error in report["session_errors"])
