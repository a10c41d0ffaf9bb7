"""Subset honesty: a selection that leaves part of a suite out (-k, -m, --deselect) says so
in the summary, the report and the gates, and --memeval-gate-subset=refuse fails the
gates; and what each record keeps for a reviewer (question, memories, capped)."""

from __future__ import annotations

import json

import pytest

from pytest_memeval.results.records import Report

pytestmark = pytest.mark.slow


def run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, Report]:
    path = pytester.path / "report.json"
    result = pytester.runpytest("test_toy.py", f"--memeval-report={path}", *args)
    return result, Report.from_json(json.loads(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize(
    ("selection", "n"),
    [(["-k", "ada"], 3), (["-m", "toy_pet"], 4), (["--deselect", "test_toy.py::test_toy[ada-city]"], 11)],
)
def test_a_selection_of_part_of_a_suite_is_a_subset(
    toy_pytester: pytest.Pytester, selection: list[str], n: int
) -> None:
    result, report = run(toy_pytester, "--memsystem=context", "--memeval-gate=toy.accuracy>=0.5", *selection)
    assert result.ret == pytest.ExitCode.OK  # the gate passes, and says on what
    (summary,) = report.runs
    assert summary.subset is not None and (summary.subset.n, summary.subset.of) == (n, 12)
    (gate,) = report.gates
    assert gate.passed and gate.detail.endswith(f"[subset: {n} of 12 items]")
    result.stdout.fnmatch_lines([f"toy  (subset {n} of 12)", f"*[[]subset: {n} of 12 items[]]*"])


def test_the_whole_suite_is_no_subset(toy_pytester: pytest.Pytester) -> None:
    _, report = run(toy_pytester, "--memsystem=context")
    assert report.runs[0].subset is None and "subset" not in json.dumps(report.runs[0].to_json()["subset"] or "")


def test_gates_may_refuse_a_subset(toy_pytester: pytest.Pytester) -> None:
    result, report = run(
        toy_pytester,
        "--memsystem=context",
        "--memeval-gate=toy.accuracy>=0.5",
        "--memeval-gate-subset=refuse",
        "-k",
        "ada",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    (gate,) = report.gates
    assert not gate.passed and "refused, the run covers a subset: 3 of 12 items" in gate.detail
    result = toy_pytester.runpytest("test_toy.py", "--memsystem=context", "--memeval-gate-subset=maybe")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --memeval-gate-subset: 'maybe' is not one of allow, refuse"])


def test_records_keep_the_question_and_the_memories_up_to_the_setting(toy_pytester: pytest.Pytester) -> None:
    _, report = run(toy_pytester, "--memsystem=context", "-k", "ada-city")
    (record,) = report.records
    assert record.question == "What is the city of ada?"
    assert [m.text for m in record.memories] == [
        "The colour of ada is red.",
        "The city of ada is lima.",
        "The pet of ada is owl.",
    ]
    assert record.memories[1].id == "1" and record.memories[1].length == len("The city of ada is lima.")
    _, capped = run(toy_pytester, "--memsystem=context", "-k", "ada-city", "--memeval-record-memories=1")
    assert len(capped.records[0].memories) == 1 and capped.records[0].n_memories == 3
    _, none = run(toy_pytester, "--memsystem=context", "-k", "ada-city", "--memeval-record-memories=0")
    assert none.records[0].memories == () and none.records[0].n_memories == 3
    assert "gold" in record.to_json() and "private" not in record.to_json()
