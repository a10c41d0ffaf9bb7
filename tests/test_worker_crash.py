"""An xdist worker that dies under an item never makes the item vanish.

The audit's case: an adapter calling `os._exit(7)` in retrieve under `-n 2` with a gate
that passes. xdist prints "node down" and runs the item again on a fresh worker; the report
used to show every item scored, no error and exit status 0. Now the crash is a session
error (the run fails under --memeval-max-errors=0), the item keeps the record of its
re-run, an item that never ran again has an error record, and a run whose workers all die
keeps the records of what ran and fails.

The third audit's case: an adapter that kills its worker on every attempt at one item of 30
stopped the run at 26/30 for ever (a fresh worker was sent that item alone and waited for a
next one; `test_crash_scheduling` has the cause, in this process). Now the item runs on two
workers, then is an error record, and the rest of its context runs; items that never ran
because the workers were all spent are error records too, never missing.
"""

from __future__ import annotations

import json
import re
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
    output = result.stdout.str()
    crashed = (tmp_path / "crashed").read_text()  # the query of the item that killed its worker
    assert "node down" in output or "replacing crashed worker" in output, output[-6000:]
    assert result.ret == pytest.ExitCode.TESTS_FAILED, output[-6000:]  # the gate passes; the crash fails the run
    statuses = _statuses(data)
    assert len(statuses) == 12 and set(statuses.values()) == {"scored"}  # the re-run's record, once
    [error] = data["session_errors"]
    assert "crashed while running test_toy.py::test_toy[" in error and "ran again on another worker" in error
    assert crashed.split(" of ")[1].rstrip("?") in error  # the session error names the item that crashed
    result.stdout.fnmatch_lines(["*memeval: session error: xdist worker gw* crashed while running*"])


def test_a_crashed_item_that_never_ran_again_is_an_error_record(toy_pytester: pytest.Pytester, tmp_path: Path) -> None:
    """worksteal (xdist's own scheduler) does not re-run the item its dead worker held."""
    result, data = _run(toy_pytester, tmp_path, "CrashesOnce", "--dist=worksteal")
    output = result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED, output[-6000:]
    statuses = _statuses(data)
    assert len(statuses) == 12, output[-6000:]
    errors = [item for item, status in statuses.items() if status == "error"]
    assert len(errors) == 1, (statuses, output[-6000:])  # once failed here (session 8), not reproduced
    [crashed] = errors
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
    assert len(statuses) == 12, "an item that never ran is an error record, not missing"
    reasons = {r["id"]: r["reason"] for r in data["records"] if r["status"] == "error"}
    crashed = {item for item, reason in reasons.items() if "crashed while running it" in reason}
    assert crashed and all(item.endswith("-city") for item in crashed)
    never_ran = set(reasons) - crashed
    assert never_ran and all(
        re.search(r"never ran: the run ended after \d xdist workers crashed", reasons[i]) for i in never_ran
    )


def test_an_item_that_kills_every_worker_is_an_error_record_and_the_rest_runs(
    suite_pytester: pytest.Pytester,
) -> None:
    suite_pytester.makepyfile(
        test_wide="""
        import pytest
        from pytest_memeval import check

        @pytest.mark.memeval("campaign_suite:WideToySuite")
        def test_wide(memeval_result):
            check(memeval_result)
        """
    )
    report = suite_pytester.path / "report.json"
    result = suite_pytester.runpytest_subprocess(
        "test_wide.py",
        "--memsystem=faulty_adapters:CrashesOnOnePet",
        f"--memeval-report={report}",
        "-n",
        "2",
        "-p",
        "no:cacheprovider",
        timeout=TIMEOUT_S,  # the run used to wait for ever at 26/30
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    data = json.loads(report.read_text())
    statuses = _statuses(data)
    assert len(statuses) == 30
    assert [item for item, status in statuses.items() if status == "error"] == ["p3-pet"]
    [record] = [r for r in data["records"] if r["id"] == "p3-pet"]
    assert record["reason"] == "p3-pet: it crashed 2 xdist workers and was not run again"
    assert len(data["session_errors"]) == 2


def test_the_item_table_reads_back_as_identities_and_a_damaged_one_as_empty(tmp_path: Path) -> None:
    from pytest_memeval.running.crashes import ItemIdentity, read_items

    table = tmp_path / "items.json"
    table.write_text(json.dumps({"test_x.py::test[a]": ["toy", "a", "mem0", 5, 1]}))
    assert read_items(str(tmp_path)) == {"test_x.py::test[a]": ItemIdentity("toy", "a", "mem0", 5, 1)}
    for damaged in ('{"test_x.py::test[a]": ["toy", "a", "mem0", "five", 1]}', '{"cut', "[]"):
        table.write_text(damaged)
        assert read_items(str(tmp_path)) == {}
    table.unlink()
    assert read_items(str(tmp_path)) == {}
