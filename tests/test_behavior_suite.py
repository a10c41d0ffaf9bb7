"""The behavior suite through pytest: ids, markers, runs with real memory systems, xdist,
the LLM path (responder, judge panel, LLM-built specifications) and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from harness import TEST_API_KEY as SECRET
from llm_server import LLMServer, Request
from pytest_memeval.suites.behavior.catalog import COHORT
from pytest_memeval.suites.behavior.conditions import CONDITIONS
from pytest_memeval.suites.behavior.episodes import heldout_half
from pytest_memeval.suites.behavior.spec_llm import main as build_llm_specs
from pytest_memeval.suites.behavior.suite import BehaviorSuite

from pytest_memeval.framework.suite import SuiteOptions

pytestmark = pytest.mark.slow

BASE = ("--memeval-suite=behavior", "-p", "no:cacheprovider")


def test_smoke_collects_one_test_per_subject_question_and_condition(suite_pytester: pytest.Pytester) -> None:
    result = suite_pytester.runpytest("--memsystem=none", *BASE, "--collect-only", "-q", "--strict-markers")
    result.stdout.fnmatch_lines(
        [
            "*test_behavior.py::test_behavior[[]s2026-p01-q01-C5[]]",
            "*test_behavior[[]s2026-p06-q04-C3_native[]]",
            "288 tests collected*",
        ]
    )  # 6 subjects x 4 questions x 12 conditions


def test_markers_select_conditions_under_strict_markers(suite_pytester: pytest.Pytester, tmp_path: Path) -> None:
    entries = BehaviorSuite(SuiteOptions("smoke", None, None, 10, None, tmp_path)).index()
    marked = lambda *marks: sum(all(m in e.marks for m in marks) for e in entries)  # noqa: E731
    questions = [q for i in range(6) for q in heldout_half(2026, i)[:4]]
    assert marked("behavior_C4a") == 24 and marked("behavior_direct") == 8 * 24 and marked("behavior_native") == 48
    assert marked("behavior_wrong_spec") == 48 and marked("behavior_with_spec") == 5 * 24
    assert marked("behavior_two_principles", "behavior_C5") == sum(
        q.situation.complication is not None for q in questions
    )
    assert marked("behavior_exception", "behavior_C2a") == sum(q.exception for q in questions)
    assert marked("behavior_risk", "behavior_C5") == sum(q.category == "risk" for q in questions)
    result = suite_pytester.runpytest(
        "--memsystem=none",
        *BASE,
        "--collect-only",
        "-q",
        "--strict-markers",
        "-m",
        "(behavior_C1 or behavior_C3) and behavior_risk",
    )
    result.stdout.fnmatch_lines([f"{2 * marked('behavior_risk', 'behavior_C5')}/288 tests collected*"])


def test_markers_are_documented(suite_pytester: pytest.Pytester) -> None:
    result = suite_pytester.runpytest("--markers")
    for marker in (
        "behavior:",
        "behavior_C2c_v1:",
        "behavior_controlled:",
        "behavior_change_over_time:",
        "behavior_exception:",
    ):
        result.stdout.fnmatch_lines([f"@pytest.mark.{marker}*"])


def _report(pytester: pytest.Pytester, *args: str) -> dict:
    report = pytester.path / f"report-{len(args)}.json"
    result = pytester.runpytest_subprocess(
        "--memsystem=none,context,chroma", "--memeval-embedder=hashing", f"--memeval-report={report}", *BASE, *args
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()[-3000:]
    return json.loads(report.read_text())


def test_smoke_with_three_systems_and_two_workers_gives_the_same_metrics(suite_pytester: pytest.Pytester) -> None:
    html = suite_pytester.path / "behavior.html"
    serial, parallel = _report(suite_pytester), _report(suite_pytester, "-n", "2", f"--memeval-html={html}")
    assert serial["runs"] == parallel["runs"] and serial["comparisons"] == parallel["comparisons"]

    def strip(report: dict) -> list:
        return sorted(
            ({k: v for k, v in r.items() if not k.endswith("_ms")} for r in report["records"]),
            key=lambda r: (r["id"], r["key"]["memsystem"]),
        )

    assert strip(serial) == strip(parallel)
    runs = {run["key"]["memsystem"]: run for run in serial["runs"]}
    assert set(runs) == {"none", "context", "chroma"}
    for run in runs.values():
        assert run["n_items"] == 288 and run["n_errors"] == 0 and set(run["metrics"]) >= set(CONDITIONS)
        assert run["metrics"]["C2a"]["value"] > run["metrics"]["C5"]["value"] and run["extra"]["judge"]["approximate"]
        assert (
            "condition (approximate judge)" in run["breakdown"] and run["extra"]["tests"]["C2a-C5"]["n_subjects"] == 6
        )
        assert "approximate" in run["note"]
    # none retrieves nothing; the context system hands over everything it holds (all facts)
    assert runs["none"]["metrics"]["C1"] == runs["none"]["metrics"]["C5"]
    assert runs["context"]["metrics"]["C1"] == runs["context"]["metrics"]["C4"]
    assert runs["chroma"]["metrics"]["C1"]["value"] > runs["none"]["metrics"]["C1"]["value"]
    pair = next(c for c in serial["comparisons"] if {c["a"]["memsystem"], c["b"]["memsystem"]} == {"context", "chroma"})
    assert set(pair["metrics"]) == {"C1", "C3", "C1_native", "C3_native", "delta_C3_C1", "delta_C3_native_C1_native"}
    assert 0 < pair["metrics"]["C1"]["extra"]["topk_jaccard"] < 1
    page = html.read_text()
    assert "per-subject score by condition" in page and "overlap of the systems" in page


def _script(request: Request) -> str:
    """Judges answer with a digit (judge-b in words on C5 items); the responder predicts caution."""
    text = request.messages[-1]["content"]
    if text.startswith("You are evaluating"):
        if request.model == "judge-b" and "Most people would wait." in text:
            return "Hard to say."
        return {"judge-a": "4", "judge-b": "Rating: 2"}[request.model]
    if request.messages[0]["content"].startswith(("You write one layer", "You compose the brief")):
        return "A1. SCRIPTED LAYER."
    return "I would play it safe." if "Behavioral specification:" in text else "Most people would wait."


def test_the_llm_path_with_a_judge_panel(suite_pytester: pytest.Pytester) -> None:
    report = suite_pytester.path / "llm.json"
    with LLMServer(_script) as server:
        result = suite_pytester.runpytest_subprocess(
            "--memsystem=none",
            *BASE,
            "-k",
            "p01-q01 or p02-q01",
            "--memeval-responder=openai:responder",
            "--memeval-judge=openai:judge-a,openai:judge-b",
            f"--memeval-base-url={server.base_url}",
            f"--memeval-report={report}",
        )
        responses = [r for r in server.requests if not r.messages[-1]["content"].startswith("You are evaluating")]
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stdout.str()[-2000:]
    data = json.loads(report.read_text())
    (run,) = data["runs"]
    assert run["n_items"] == 24 and run["n_errors"] == 0
    # judge-b cannot score "Most people would wait." (C5, C4, C8, C1, C1_native: no specification served)
    assert run["extra"]["judge"] == {
        "kind": ["llm panel"],
        "approximate": False,
        "judges": ["judge-a", "judge-b"],
        "parse_failures": 10,
    }
    assert "condition" in run["breakdown"] and run["extra"]["agreement"]["judges"] == ["judge-a", "judge-b"]
    assert run["note"].startswith("scores from the LLM judge panel (judge-a, judge-b)")
    c5 = [r for r in data["records"] if r["strata"]["condition"] == "C5"]
    assert all(r["detail"]["scores"] == {"judge-a": 4.0, "judge-b": None} and r["score"] == 4.0 for r in c5)
    c2a = next(r for r in data["records"] if r["strata"]["condition"] == "C2a")
    assert c2a["detail"]["scores"] == {"judge-a": 4.0, "judge-b": 2.0} and c2a["answer"] == "I would play it safe."
    # the locked aggregation: judge-a 4 everywhere, judge-b 2 where it parsed
    assert run["metrics"]["C2a"]["value"] == 3.0 and run["metrics"]["C5"]["value"] == 4.0
    users = [r.messages[-1]["content"] for r in responses]
    assert any(u.startswith("Question: Faced with") for u in users)  # C5: nothing but the question
    assert any("Known facts:" in u and "Behavioral specification:" in u for u in users)  # C4a
    assert SECRET not in report.read_text()


def test_llm_built_specifications_are_served_from_memeval_data(suite_pytester: pytest.Pytester, tmp_path: Path) -> None:
    data = tmp_path / "data"
    with LLMServer(_script) as server:
        assert build_llm_specs(["--model", "author", "--out", str(data), "--base-url", server.base_url]) == 0
        specs = sorted((data / "behavior" / "specs").glob("*.md"))
        assert len(specs) == COHORT and server.count == COHORT * 4  # three layers and a brief each
        result = suite_pytester.runpytest_subprocess(
            "--memsystem=none",
            *BASE,
            "-k",
            "p01-q01-C2a",
            f"--memeval-data={data}",
            "--memeval-responder=openai:responder",
            f"--memeval-base-url={server.base_url}",
        )
        served = [r.messages[-1]["content"] for r in server.requests if r.model == "responder"]
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stdout.str()[-2000:]
    assert served and "Behavioral specification:\nBEHAVIORAL SPECIFICATION\n\nANCHORS\nA1. SCRIPTED LAYER." in served[0]
    specs[3].write_text("  \n")
    broken = suite_pytester.runpytest_subprocess("--memsystem=none", *BASE, f"--memeval-data={data}", "--collect-only")
    assert broken.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in broken.errlines if line.strip()]
    assert len(errors) == 1 and specs[3].name in errors[0] and "is empty" in errors[0], errors


@pytest.mark.parametrize(
    "option, message",
    [
        ("--memeval-split=train", "suite 'behavior' has no 'train' split (splits: test, all)"),
        ("--memeval-seed=x", "not an integer"),
    ],
)
def test_bad_options_are_one_line_usage_errors(suite_pytester: pytest.Pytester, option: str, message: str) -> None:
    result = suite_pytester.runpytest_subprocess("--memsystem=none", *BASE, option, "--collect-only")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.errlines if line.strip()]
    assert len(errors) == 1 and message in errors[0], errors


def test_a_failure_names_its_condition(suite_pytester: pytest.Pytester) -> None:
    result = suite_pytester.runpytest("--memsystem=none", *BASE, "-k", "p01-q01-C5", "-v")
    result.stdout.fnmatch_lines(
        ["WRONG *[[]s2026-p01-q01-C5] - answered*", "    [[]C5: nothing (baseline)[]]", "    question: Faced with *"]
    ) if result.ret else result.assert_outcomes(passed=1)
