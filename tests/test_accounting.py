"""Every item that runs ends as a scored, invalid or error record, and is counted.

Adapters fail in every way the break-it audit found; each affected item must be an error
record with one line, the run must fail under --memeval-max-errors=0 whether or not its
gates pass, and nothing may print a traceback.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

GATE = "--memeval-gate=toy.accuracy>=0"


def _run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict]:
    report = pytester.path / "report.json"
    result = pytester.runpytest_subprocess("test_toy.py", f"--memeval-report={report}", *args)
    data = json.loads(report.read_text()) if report.exists() else {}
    return result, data


def _counts(data: dict) -> list[tuple[str, int, int, int, int]]:
    return [
        (run["key"]["memsystem"], run["n_items"], run["n_scored"], run["n_invalid"], run["n_errors"])
        for run in data["runs"]
    ]


@pytest.mark.slow
@pytest.mark.parametrize(
    "adapter, n_errors, message",
    [
        ("NoneText", 4, "returned a Memory whose text is NoneType at position 0"),
        ("ConstructorRaises", 12, "failed in construction: ConnectionError: cannot reach the store at 127.0.0.1:1"),
        ("ExitsInRetrieve", 12, "failed in retrieve: SystemExit: 3"),
        ("TooMany", 12, "returned 60 memories for k=10"),
    ],
)
def test_failing_adapters_end_as_counted_error_records(
    toy_pytester: pytest.Pytester, adapter: str, n_errors: int, message: str
) -> None:
    result, data = _run(toy_pytester, f"--memsystem=faulty_adapters:{adapter}", GATE, "--memeval-max-errors=0")
    output = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in output
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the gate passes; the errors fail the run
    assert _counts(data) == [(f"faulty_adapters:{adapter}", 12, 12 - n_errors, 0, n_errors)]
    errors = [r for r in data["records"] if r["status"] == "error"]
    assert len(errors) == n_errors and all(message in r["reason"] for r in errors)
    assert output.count(message) >= n_errors  # one line per error
    assert f"memeval: {n_errors} items ended in an error or an invalid answer" in output


@pytest.mark.slow
def test_a_function_is_not_an_adapter_and_every_item_says_so(toy_pytester: pytest.Pytester) -> None:
    result, data = _run(toy_pytester, "--memsystem=json:loads", "--memsystem=json:loads")
    assert "Traceback" not in result.stdout.str()
    assert _counts(data) == [("json:loads", 12, 0, 0, 12)]
    assert all("failed in construction: TypeError" in r["reason"] for r in data["records"])


@pytest.mark.slow
def test_errors_of_one_system_fail_the_run_although_the_other_passes_its_gate(toy_pytester: pytest.Pytester) -> None:
    result, data = _run(
        toy_pytester, "--memsystem=context,faulty_adapters:ConstructorRaises", "--memeval-gate=toy[context].accuracy>=1"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert sorted(_counts(data)) == [("context", 12, 12, 0, 0), ("faulty_adapters:ConstructorRaises", 12, 0, 0, 12)]
    assert "PASS  toy[context].accuracy>=1" in result.stdout.str()


@pytest.mark.slow
def test_errors_within_the_allowance_leave_the_gates_to_decide(toy_pytester: pytest.Pytester) -> None:
    result, data = _run(toy_pytester, "--memsystem=faulty_adapters:NoneText", GATE, "--memeval-max-errors=4")
    assert result.ret == pytest.ExitCode.OK
    assert _counts(data) == [("faulty_adapters:NoneText", 12, 8, 0, 4)]


@pytest.mark.slow
def test_close_failing_is_a_session_error_not_a_traceback_on_the_last_item(toy_pytester: pytest.Pytester) -> None:
    result, data = _run(toy_pytester, "--memsystem=faulty_adapters:CloseRaises", GATE)
    output = result.stdout.str()
    # pytest counts no error on the last item's teardown; the verdict after its count says why the run fails
    assert "Traceback" not in output and re.search(r"^=+ 12 passed in [\d.]+s =+$", output, re.M), output
    assert output.splitlines()[-1] == "memeval: exit status 1: 1 session error, more than --memeval-max-errors=0"
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert data["session_errors"] == [
        "memsystem 'faulty_adapters:CloseRaises' failed in close: OSError: socket already closed"
    ]
    assert _counts(data) == [("faulty_adapters:CloseRaises", 12, 12, 0, 0)]
    result.stdout.fnmatch_lines(["*memeval: session error: memsystem*failed in close: OSError: socket already closed"])


@pytest.mark.slow
def test_close_failing_under_xdist_reaches_the_controller(toy_pytester: pytest.Pytester) -> None:
    result, data = _run(toy_pytester, "--memsystem=faulty_adapters:CloseRaises", GATE, "-n", "2")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert len(data["session_errors"]) == 2  # each worker closed its own adapter


@pytest.mark.slow
def test_a_hung_call_times_out_and_retires_the_system(toy_pytester: pytest.Pytester) -> None:
    result, data = _run(
        toy_pytester, "--memsystem=faulty_adapters:Sleepy", "--memeval-adapter-timeout=1", "-k", "ada or ben"
    )
    assert "Traceback" not in result.stdout.str()
    reasons = [r["reason"] for r in data["records"] if r["status"] == "error"]
    assert "memsystem 'faulty_adapters:Sleepy' timed out in retrieve after 1 s (--memeval-adapter-timeout)" in reasons
    assert any("is retired: retrieve did not return within 1 s" in r for r in reasons)
    assert _counts(data)[0][1] == 6


@pytest.mark.slow
def test_calls_come_from_one_thread_so_thread_bound_resources_work(toy_pytester: pytest.Pytester) -> None:
    result, data = _run(toy_pytester, "--memsystem=faulty_adapters:ThreadBound")
    assert _counts(data) == [("faulty_adapters:ThreadBound", 12, 12, 0, 0)]


@pytest.mark.slow
def test_an_adapter_gets_a_private_empty_workdir_and_no_cache_dir(
    toy_pytester: pytest.Pytester, tmp_path: Path
) -> None:
    log = tmp_path / "peek.json"
    toy_pytester._monkeypatch.setenv("MEMEVAL_PEEK_LOG", str(log))  # type: ignore[attr-defined]
    _run(toy_pytester, "--memsystem=faulty_adapters:PeeksAtResources", "-k", "ada-colour")
    seen = json.loads(log.read_text())
    assert seen["attributes"] == ["embedder_name", "workdir"]
    assert seen["workdir_files"] == []
    assert "pytest-memeval" not in seen["workdir"] and "memeval-cache" not in seen["workdir"]


@pytest.mark.slow
def test_a_failure_outside_the_plugin_still_ends_as_an_error_record(suite_pytester: pytest.Pytester) -> None:
    suite_pytester.makepyfile(
        test_toy="""
        import pytest
        from pytest_memeval import check

        @pytest.fixture
        def broken():
            raise RuntimeError("a fixture of the user's own")

        @pytest.mark.memeval("toysuite:ToySuite")
        def test_toy(broken, memeval_result):
            check(memeval_result)
        """
    )
    result, data = _run(suite_pytester, "--memsystem=context", "-k", "ada")
    assert _counts(data) == [("context", 3, 0, 0, 3)]
    assert all("RuntimeError: a fixture of the user's own" in r["reason"] for r in data["records"])


@pytest.mark.slow
def test_the_json_report_round_trips_through_the_typed_values(toy_pytester: pytest.Pytester) -> None:
    from pytest_memeval.results.records import Report

    _, data = _run(toy_pytester, "--memsystem=context,none", "--memeval-k=1,10")
    assert data["schema"] == "memeval-report/2"
    assert Report.from_json(data).to_json() == data
    assert {run["label"] for run in data["runs"]} == {
        "context | reader | k=1",
        "context | reader | k=10",
        "none | reader | k=1",
        "none | reader | k=10",
    }


@pytest.mark.slow
def test_a_two_depth_run_labels_every_table_series_and_figure_with_k(suite_pytester: pytest.Pytester) -> None:
    html = suite_pytester.path / "report.html"
    result, data = _run_suites(
        suite_pytester,
        "--memsystem=chroma",
        "--memeval-embedder=hashing",
        "--memeval-suite=multisource",
        "--memeval-k=10,60",
        "-k",
        "stable_121 or stable_122",
        f"--memeval-html={html}",
    )
    output = result.stdout.str()
    # each column named by what differs between the runs, the depth: side by side, or (where the
    # n/a reasons of the intervals are too wide for 80 columns) one table after the other
    assert re.search(r"^ +chroma \| k=10( +chroma \| k=60)?$", output, re.M), output
    assert re.search(r"^ +(chroma \| k=10 +)?chroma \| k=60$", output, re.M), output
    assert "multisource: chroma | k=10  minus  chroma | k=60" in output
    assert {run["label"] for run in data["runs"]} == {"chroma | reader | k=10", "chroma | reader | k=60"}
    page = html.read_text()
    # figure series and table rows name each depth: never two series called just "chroma"
    assert "chroma | k=10</text>" in page and "chroma | k=60</text>" in page  # figure legends
    assert "<th>chroma | k=10</th>" in page and "<th>chroma | k=60</th>" in page  # table rows
    assert ">chroma</text>" not in page


def _run_suites(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict]:
    report = pytester.path / "report.json"
    result = pytester.runpytest_subprocess(f"--memeval-report={report}", "-p", "no:cacheprovider", *args)
    return result, json.loads(report.read_text())


def test_a_retired_system_fails_before_its_next_context_is_built() -> None:
    """Building a context can cost LLM calls (memfail's storage turns); a system retired by a
    hung call must fail its next items at once, without building their contexts."""
    from pytest_memeval.errors import AdapterError
    from pytest_memeval.memory.context import ContextMemory
    from pytest_memeval.running.adapter_guard import AdapterGuard
    from pytest_memeval.running.runner import ContextFiller
    from pytest_memeval.types import Context

    guard = AdapterGuard("slow", timeout_s=0.05)
    with pytest.raises(AdapterError, match="timed out in ingest"):
        guard.call("ingest", lambda: time.sleep(0.5))
    filler = ContextFiller(guard, ContextMemory())
    built: list[str] = []

    def build() -> Context:
        built.append("ctx")
        return Context("ctx", ())

    with pytest.raises(AdapterError, match="is retired: ingest did not return within 0.05 s"):
        filler.ensure(filler.bind("ctx"), build)
    assert built == []


def test_a_session_that_fails_still_counts_the_llm_calls_it_made() -> None:
    """MemOS or graphiti on a small model: the system's LLM answered, the system could not read
    the answer and the session failed; the error record still counts what the calls spent."""
    from pytest_memeval.errors import AdapterError
    from pytest_memeval.llm.metering import LLMUsage, Meter
    from pytest_memeval.llm.tally import tallying
    from pytest_memeval.memory.context import ContextMemory
    from pytest_memeval.running.adapter_guard import AdapterGuard
    from pytest_memeval.running.runner import BoundMemory
    from pytest_memeval.types import Message

    meter = Meter("memsystem 'unreadable'")

    class Unreadable(ContextMemory):
        def ingest(self, namespace: str, session: Sequence[Message]) -> None:
            meter.add(LLMUsage(1, 120, 30, 0.5, 0), "small-model")  # the gateway metered the call
            raise AdapterError("unreadable: could not read its extractor's answer")

    memory = BoundMemory(AdapterGuard("unreadable", timeout_s=30), Unreadable(), "ns", meter=meter)
    with tallying() as tally:
        with pytest.raises(AdapterError, match="could not read"):
            memory.ingest([Message("user", "The ferry code is ZX-1.")])
    spent = tally.tokens()["ingest"]["small-model"]
    assert (spent.calls, spent.prompt_tokens, spent.completion_tokens) == (1, 120, 30)
