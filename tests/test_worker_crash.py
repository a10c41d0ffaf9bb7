"""An xdist worker that dies under an item never makes the item vanish.

The audit's case: an adapter calling `os._exit(7)` in retrieve under `-n 2` with a gate
that passes. xdist prints "node down" and runs the item again on a fresh worker; the report
used to show every item scored, no error and exit status 0. Now the crash is a session
error (the run fails under --memeval-max-errors=0), the item keeps the record of its
re-run, an item that never ran again has an error record, and a run whose workers all die
keeps the records of what ran and fails.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

GATE = "--memeval-gate=toy.accuracy>=0"
TIMEOUT_S = 300


def _run(pytester: pytest.Pytester, tmp_path: Path, adapter: str, *args: str) -> tuple[pytest.RunResult, dict]:
    pytester._monkeypatch.setenv("MEMEVAL_CRASH_MARK", str(tmp_path / "crashed"))  # type: ignore[attr-defined]
    report = pytester.path / "report.json"
    result = pytester.runpytest_subprocess(
        "test_toy.py",
        f"--memsystem=faulty_adapters:{adapter}",
        f"--memeval-report={report}",
        GATE,
        "-n",
        "2",
        *args,
        timeout=TIMEOUT_S,
    )
    return result, json.loads(report.read_text()) if report.exists() else {}


def _statuses(data: dict) -> dict[str, str]:
    return {record["id"]: record["status"] for record in data["records"]}


def test_a_crash_whose_item_ran_again_keeps_the_rerun_and_fails_the_run(
    toy_pytester: pytest.Pytester, tmp_path: Path
) -> None:
    result, data = _run(toy_pytester, tmp_path, "CrashesOnce")
    crashed = (tmp_path / "crashed").read_text()  # the query of the item that killed its worker
    assert "node down" in result.stdout.str() or "replacing crashed worker" in result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the gate passes; the crash fails the run
    statuses = _statuses(data)
    assert len(statuses) == 12 and set(statuses.values()) == {"scored"}  # the re-run's record, once
    [error] = data["session_errors"]
    assert "crashed while running test_toy.py::test_toy[" in error and "ran again on another worker" in error
    assert crashed.split(" of ")[1].rstrip("?") in error  # the session error names the item that crashed
    result.stdout.fnmatch_lines(["*memeval: session error: xdist worker gw* crashed while running*"])


def test_a_crashed_item_that_never_ran_again_is_an_error_record(toy_pytester: pytest.Pytester, tmp_path: Path) -> None:
    """worksteal (xdist's own scheduler) does not re-run the item its dead worker held."""
    result, data = _run(toy_pytester, tmp_path, "CrashesOnce", "--dist=worksteal")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    statuses = _statuses(data)
    assert len(statuses) == 12
    [crashed] = [item for item, status in statuses.items() if status == "error"]
    record = next(r for r in data["records"] if r["id"] == crashed)
    assert record["reason"] == f"{crashed}: its xdist worker crashed while running it"
    assert record["key"]["memsystem"] == "faulty_adapters:CrashesOnce" and record["key"]["suite"] == "toy"
    [error] = data["session_errors"]
    assert crashed in error and "the item has an error record" in error
    [run] = data["runs"]
    assert (run["n_items"], run["n_scored"], run["n_errors"]) == (12, 11, 1)


def test_when_every_worker_dies_what_ran_is_kept_and_the_run_fails(
    toy_pytester: pytest.Pytester, tmp_path: Path
) -> None:
    result, data = _run(toy_pytester, tmp_path, "CrashesOnEveryCity", "--max-worker-restart=1")
    assert result.ret not in (pytest.ExitCode.OK, pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.INTERNAL_ERROR)
    assert "maximum crashed workers reached" in result.stdout.str()
    assert data["session_errors"], "the crashes are session errors"
    assert all("crashed while running" in e and "[" in e for e in data["session_errors"])
    statuses = _statuses(data)
    # each worker filled its context and scored items before the city question killed it
    assert "scored" in statuses.values()
    city_errors = {item for item, status in statuses.items() if status == "error"}
    assert city_errors and all(item.endswith("-city") for item in city_errors)
