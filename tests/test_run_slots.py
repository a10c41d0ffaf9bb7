"""The run's budget of calls in flight shared by its processes at run time (llm/run_slots.py):
never more than the budget held across processes, a slot released anywhere taken by a
waiting call, waits bounded by the call's time, the slots of a killed process given back,
and the gateway answering 429 to a call that finds none in time."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import openai
import pytest
from llm_server import LLMServer

from pytest_memeval.config.llm_settings import LLMSettings
from pytest_memeval.config.settings import Settings
from pytest_memeval.llm.gateway import LLMGateway
from pytest_memeval.llm.run_slots import SLOTS_FILE, RunSlots, create_run_slots, remove_run_slots
from pytest_memeval.running import worker_share
from pytest_memeval.running.worker_share import RUN_SLOTS, shared_settings

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="slots are shared through POSIX record locks")


@pytest.fixture
def slots_dir() -> Iterator[Path]:
    directory = create_run_slots(5)
    yield directory
    remove_run_slots(directory)
    assert not directory.exists()


def test_a_process_holds_at_most_the_budget(slots_dir: Path) -> None:
    slots = RunSlots(slots_dir / SLOTS_FILE)
    try:
        assert slots.count == 5
        held = [slots.acquire(1.0) for _ in range(5)]
        assert sorted(s for s in held if s is not None) == [0, 1, 2, 3, 4]
        assert slots.acquire(0.0) is None and slots.held == 5
        slots.release(held[2])  # type: ignore[arg-type]
        assert slots.acquire(0.0) == held[2]
    finally:
        slots.close()


def test_a_call_waits_for_a_slot_within_its_time_and_takes_one_released_meanwhile(slots_dir: Path) -> None:
    slots = RunSlots(slots_dir / SLOTS_FILE)
    try:
        held = [slots.acquire(1.0) for _ in range(5)]
        started = time.monotonic()
        assert slots.acquire(0.2) is None
        assert 0.15 < time.monotonic() - started < 2
        threading.Timer(0.1, lambda: slots.release(held[0])).start()  # type: ignore[arg-type]
        started = time.monotonic()
        assert slots.acquire(5.0) == held[0]
        assert time.monotonic() - started < 2
    finally:
        slots.close()


def _settings(tmp_path: Path, concurrency: int) -> Settings:
    llm = LLMSettings(model="m", cache_mode="off", concurrency=concurrency)
    return Settings(
        memsystems=("context",), suites=("toy",), size="smoke", split=None, seeds=None, ks=(10,),
        responder="openai:m", report=None, data_dir=None, embedder="hashing", cache_dir=tmp_path,
        bootstrap=10, llm=llm, gateway=llm,
    )  # fmt: skip


def test_a_worker_that_reaches_the_slots_keeps_the_whole_budget(tmp_path: Path, slots_dir: Path) -> None:
    settings = _settings(tmp_path, 9)
    worker = shared_settings(settings, {"workercount": 2, "workerid": "gw1", RUN_SLOTS: str(slots_dir)})
    assert worker.llm is not None and worker.gateway is not None
    assert (worker.llm.concurrency, worker.gateway.concurrency) == (9, 9)
    assert worker.gateway.run_slots == slots_dir / SLOTS_FILE


def test_a_worker_that_cannot_reach_the_slots_keeps_its_static_share(tmp_path: Path) -> None:
    """A worker on another machine than the controller's: the directory is not there."""
    settings = _settings(tmp_path, 9)
    worker = shared_settings(settings, {"workercount": 2, "workerid": "gw1", RUN_SLOTS: str(tmp_path / "elsewhere")})
    assert worker.gateway is not None and worker.gateway.run_slots is None
    assert worker.gateway.concurrency == 4


def test_without_record_locks_the_budget_is_split_statically(
    tmp_path: Path, slots_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows declares no shared slots: the controller creates none, a worker keeps its share."""
    monkeypatch.setattr(worker_share, "SHARES_SLOTS", False)
    settings = _settings(tmp_path, 9)
    assert worker_share.run_slots_for(settings) is None
    worker = shared_settings(settings, {"workercount": 2, "workerid": "gw0", RUN_SLOTS: str(slots_dir)})
    assert worker.gateway is not None and worker.gateway.run_slots is None
    assert worker.gateway.concurrency == 5


HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from pytest_memeval.llm.run_slots import RunSlots

    slots = RunSlots(Path(sys.argv[1]))
    held = [slots.acquire(5.0) for _ in range(int(sys.argv[2]))]
    print("held", *held, flush=True)
    time.sleep(120)
    """
)


@pytest.mark.slow
def test_processes_share_the_budget_and_a_killed_holder_gives_its_slots_back(slots_dir: Path) -> None:
    path = slots_dir / SLOTS_FILE
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path), "3"], stdout=subprocess.PIPE, text=True)
    slots = RunSlots(path)
    try:
        assert holder.stdout is not None
        line = holder.stdout.readline().split()
        assert line[0] == "held" and "None" not in line  # the holder took 3 of the 5
        mine = [slots.acquire(1.0) for _ in range(2)]
        assert None not in mine and not set(map(str, mine)) & set(line[1:])
        assert slots.acquire(0.3) is None  # the budget is held across the two processes
        holder.kill()  # dies holding its slots: the kernel drops its locks
        holder.wait(timeout=10)
        freed = [slots.acquire(5.0) for _ in range(3)]
        assert sorted(map(str, freed)) == sorted(line[1:])
        assert slots.acquire(0.0) is None
    finally:
        holder.kill()
        holder.wait(timeout=10)
        slots.close()


@pytest.mark.slow
def test_the_gateway_answers_429_when_no_shared_slot_comes_free_in_time(tmp_path: Path, slots_dir: Path) -> None:
    llm = LLMSettings(model="m", cache_mode="off", timeout_s=0.5, run_slots=slots_dir / SLOTS_FILE)
    with LLMServer(lambda request: "answered") as server, LLMGateway(llm) as gateway:
        assert gateway.run_slots is not None
        held = [gateway.run_slots.acquire(1.0) for _ in range(5)]  # as if other workers held them
        client = openai.OpenAI(base_url=gateway.route("responder", server.base_url), api_key="x", max_retries=0)
        started = time.monotonic()
        with pytest.raises(openai.RateLimitError, match="no in-flight slot came free"):
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])
        assert time.monotonic() - started < 5  # within the call's deadline, not forever
        assert server.count == 0 and gateway.in_flight.held == 0 and gateway.in_flight.decreases == 0
        gateway.run_slots.release(held[0])  # type: ignore[arg-type]
        reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])
        assert reply.choices[0].message.content == "answered" and server.count == 1
        assert gateway.run_slots.held == 4  # the call gave its slot back
