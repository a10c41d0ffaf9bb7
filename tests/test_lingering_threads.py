"""A hung adapter call, or a thread an adapter started and never stopped, does not keep
pytest from exiting: the run ends with its own exit status and names what it left behind.

The audit's case: `--memeval-adapter-timeout=2` with an adapter that never returns; the
items errored and the summary printed, and the process never exited (the guard's executor
thread was joined at exit). Each run here is bounded: a hang fails the test.
"""

from __future__ import annotations

import json
import threading
import time

import pytest

from pytest_memeval.errors import AdapterError
from pytest_memeval.running.adapter_guard import AdapterGuard

#: far above what the runs take when they exit, far below "for ever"
TIMEOUT_S = 240


def _run(pytester: pytest.Pytester, adapter: str, *args: str) -> tuple[pytest.RunResult, dict]:
    """The toy suite on one of tests/faulty_adapters.py's adapters, bounded by TIMEOUT_S."""
    report = pytester.path / "report.json"
    result = pytester.runpytest_subprocess(
        "test_toy.py", f"--memsystem=faulty_adapters:{adapter}", f"--memeval-report={report}", *args, timeout=TIMEOUT_S
    )
    return result, json.loads(report.read_text())


@pytest.mark.slow
@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["n0", "n2"])
def test_a_call_that_never_returns_does_not_keep_the_run_alive(
    toy_pytester: pytest.Pytester, workers: list[str]
) -> None:
    started = time.monotonic()
    result, data = _run(toy_pytester, "HangsForever", "--memeval-adapter-timeout=2", "-k", "ada", *workers)
    assert time.monotonic() - started < 120
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert [run["n_errors"] for run in data["runs"]] == [3]
    if not workers:  # under xdist the worker's terminal is not shown
        result.stdout.fnmatch_lines(
            [
                "*memeval: left behind 1 adapter call that never returned: memsystem 'faulty_adapters:HangsForever' in "
                "retrieve (on daemon threads, which end with the process)*"
            ]
        )


@pytest.mark.slow
@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["n0", "n2"])
def test_a_thread_the_adapter_never_stops_does_not_keep_the_run_alive(
    toy_pytester: pytest.Pytester, workers: list[str]
) -> None:
    result, data = _run(toy_pytester, "LeavesAThread", "--memeval-gate=toy.accuracy>=0.5", *workers)
    assert result.ret == pytest.ExitCode.OK  # the run's own status: every item scored, the gate passed
    assert data["runs"][0]["n_scored"] == 12
    if not workers:
        result.stderr.fnmatch_lines(
            [
                "memeval: exiting with status 0 without waiting for 1 thread the memory systems left running: 'sdk-poller'"
            ]
        )


def test_a_timed_out_call_leaves_no_thread_that_blocks_exit() -> None:
    from pytest_memeval.running.exit_watch import started_since, thread_idents

    before = thread_idents()
    guard = AdapterGuard("hangs", timeout_s=0.05)
    release = threading.Event()
    with pytest.raises(AdapterError, match="timed out in retrieve"):
        guard.call("retrieve", release.wait)
    assert guard.lingering() == "retrieve"
    assert started_since(before) == []  # the hung call's thread is a daemon
    guard.shutdown()
    release.set()
    deadline = time.monotonic() + 5
    while guard.lingering() is not None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert guard.lingering() is None


def test_a_guard_runs_calls_in_order_on_one_thread_and_again_after_shutdown() -> None:
    guard = AdapterGuard("ordered", timeout_s=5)
    names = [guard.call("name", lambda: threading.current_thread().name) for _ in range(3)]
    assert names == ["memsystem-ordered"] * 3
    guard.shutdown()
    assert guard.call("after", lambda: 42) == 42
    guard.shutdown()
