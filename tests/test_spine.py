"""The plugin end to end on a toy suite: collection, outcomes, errors, records, xdist."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_memeval.results.records import Report

pytestmark = pytest.mark.slow


def test_items_become_parametrized_tests_with_readable_ids(toy_pytester: pytest.Pytester) -> None:
    result = toy_pytester.runpytest("test_toy.py", "--memsystem=context", "--collect-only", "-q")
    result.stdout.fnmatch_lines(
        ["test_toy.py::test_toy[ada-colour]", "test_toy.py::test_toy[dev-pet]", "12 tests collected*"]
    )


def test_several_systems_parametrize_every_item(toy_pytester: pytest.Pytester) -> None:
    result = toy_pytester.runpytest("test_toy.py", "--memsystem=context,none", "--collect-only", "-q")
    result.stdout.fnmatch_lines(
        ["test_toy.py::test_toy[ada-colour-context]", "test_toy.py::test_toy[ada-colour-none]", "24 tests collected*"]
    )


def test_markers_select_items_under_strict_markers(toy_pytester: pytest.Pytester) -> None:
    result = toy_pytester.runpytest("test_toy.py", "--memsystem=context", "--strict-markers", "-m", "toy_pet", "-q")
    result.assert_outcomes(passed=4, deselected=8)


def test_outcomes_and_failure_message(toy_pytester: pytest.Pytester) -> None:
    result = toy_pytester.runpytest("test_toy.py", "--memsystem=none", "-q", "-k", "ada-colour")
    result.assert_outcomes(failed=1, deselected=11)
    result.stdout.fnmatch_lines(
        [
            "*memeval: 1 wrong answer*",
            "WRONG test_toy.py::test_toy[ada-colour] - answered None, expected 'red' (abstained)",
        ]
    )
    assert "question:" not in result.stdout.str()
    verbose = toy_pytester.runpytest("test_toy.py", "--memsystem=none", "-v", "-k", "ada-colour")
    verbose.stdout.fnmatch_lines(
        [
            "WRONG test_toy.py::test_toy[[]ada-colour] - *",
            "    question: What is the colour of ada?",
            "    memories retrieved: 0",
        ]
    )


def test_without_memsystem_a_memeval_test_is_skipped_with_a_reason(toy_pytester: pytest.Pytester) -> None:
    result = toy_pytester.runpytest("test_toy.py", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*pass --memsystem=NAME*"])


@pytest.mark.parametrize(
    "adapter, message",
    [
        (
            "FailingRetrieve",
            "memsystem 'faulty_adapters:FailingRetrieve' failed in retrieve: ConnectionError: store unreachable",
        ),
        ("FailingIngest", "memsystem 'faulty_adapters:FailingIngest' failed in ingest: RuntimeError: disk full"),
        ("WrongType", "returned a str at position 0, expected Memory"),
    ],
)
def test_adapter_failures_are_errors_not_scores(toy_pytester: pytest.Pytester, adapter: str, message: str) -> None:
    report = toy_pytester.path / "report.json"
    result = toy_pytester.runpytest(
        "test_toy.py", f"--memsystem=faulty_adapters:{adapter}", f"--memeval-report={report}", "-k", "ada-colour"
    )
    result.assert_outcomes(errors=1, deselected=11)
    assert message in result.stdout.str()
    assert "second line of detail" not in result.stdout.str()
    data = Report.from_json(json.loads(report.read_text()))
    (run,) = data.runs
    assert (run.n_items, run.n_errors, run.n_scored) == (1, 1, 0)
    assert run.metrics == {}
    (record,) = data.records
    assert record.status == "error" and message in record.reason and record.correct is None


def test_json_report_has_runs_and_records(toy_pytester: pytest.Pytester) -> None:
    report = toy_pytester.path / "report.json"
    toy_pytester.runpytest("test_toy.py", "--memsystem=context,none", f"--memeval-report={report}").assert_outcomes(
        passed=12, failed=12
    )
    raw = json.loads(report.read_text())
    assert raw["schema"] == "memeval-report/2"
    data = Report.from_json(raw)
    assert [(r.key.memsystem, r.n_items, r.metrics["accuracy"].value) for r in data.runs] == [
        ("context", 12, 1.0),
        ("none", 12, 0.0),
    ]
    assert len(data.records) == 24
    assert {r.id for r in data.records if r.key.memsystem == "none"} == {
        r.id for r in data.records if r.key.memsystem == "context"
    }


def _run_report(pytester: pytest.Pytester, *args: str) -> dict:
    report = pytester.path / f"report{len(args)}.json"
    result = pytester.runpytest_subprocess(
        "test_toy.py", "--memsystem=chroma,context", "--memeval-embedder=hashing", f"--memeval-report={report}", *args
    )
    assert result.ret in (0, 1), result.stdout.str()
    return json.loads(report.read_text())


def test_xdist_gives_the_same_records_and_metrics(toy_pytester: pytest.Pytester) -> None:
    serial = _run_report(toy_pytester)
    parallel = _run_report(toy_pytester, "-n", "2")
    strip = lambda records: [{k: v for k, v in r.items() if not k.endswith("_ms")} for r in records]  # noqa: E731
    assert serial["runs"] == parallel["runs"]
    assert strip(serial["records"]) == strip(parallel["records"])


def test_xdist_fills_each_context_once(
    toy_pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "fills.log"
    monkeypatch.setenv("MEMEVAL_FILL_LOG", str(log))
    result = toy_pytester.runpytest_subprocess(
        "test_toy.py", "--memsystem=faulty_adapters:CountingContext", "-n", "2", "-v"
    )
    result.assert_outcomes(passed=12)
    fills = log.read_text().split()
    # one reset per fill: four contexts, each filled once in the whole run
    assert len(fills) == len(set(fills)) == 4


def test_html_report_is_written_with_the_suite_figures(toy_pytester: pytest.Pytester) -> None:
    html = toy_pytester.path / "report.html"
    result = toy_pytester.runpytest("test_toy.py", "--memsystem=context,none", f"--memeval-html={html}")
    result.stdout.fnmatch_lines([f"memeval html: {html}"])
    page = html.read_text()
    assert page.startswith("<!DOCTYPE html>") and "Suite: toy" in page and "paired differences" in page


def test_junit_xml_shows_each_items_verdict(toy_pytester: pytest.Pytester) -> None:
    import xml.etree.ElementTree as ET

    junit = toy_pytester.path / "junit.xml"
    toy_pytester.runpytest("test_toy.py", "--memsystem=none", f"--junitxml={junit}", "-k", "ada-colour")
    (case,) = ET.parse(junit).getroot().iter("testcase")
    properties = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert properties["memeval_status"] == "scored" and properties["memeval_abstained"] == "True"
    assert properties["memeval_correct"] == "False" and properties["memeval_memsystem"] == "none"
    assert case.get("name") == "test_toy[ada-colour]"  # pytest's own id, never rewritten
    assert json.loads(properties["memeval"])["id"] == "ada-colour"


def test_under_xdist_ids_stay_pytests_own_and_lf_reruns_only_the_failures(toy_pytester: pytest.Pytester) -> None:
    import xml.etree.ElementTree as ET

    junit = toy_pytester.path / "junit.xml"
    first = toy_pytester.runpytest_subprocess(
        "test_toy.py", "--memsystem=faulty_adapters:NoneText", "-n", "2", f"--junitxml={junit}", "-rE"
    )
    first.assert_outcomes(passed=8, errors=4)
    assert "@" not in first.stdout.str().replace("@pytest", "")
    names = {case.get("name") for case in ET.parse(junit).getroot().iter("testcase")}
    assert "test_toy[ada-pet]" in names and not any("@" in name for name in names)
    again = toy_pytester.runpytest_subprocess("test_toy.py", "--memsystem=faulty_adapters:NoneText", "-n", "2", "--lf")
    again.assert_outcomes(errors=4)
    pasted = toy_pytester.runpytest_subprocess("test_toy.py::test_toy[ada-pet]", "--memsystem=context", "-n", "2")
    pasted.assert_outcomes(passed=1)
