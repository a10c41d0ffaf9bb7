"""The last screen of a run (issue 41, items 3 and 4; issue 35, item 2): the verdict in
words and why the exit status is what it is, within the last lines; every count of the
closing text matching what was printed, or saying where the rest is; the reports written
without asking, named in the last lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import make_record

from pytest_memeval.analysis.gates import evaluate
from pytest_memeval.config.gate_syntax import parse_gate
from pytest_memeval.config.report_files import report_paths
from pytest_memeval.rendering.terminal import overview_lines, wrong_answers_text
from pytest_memeval.results.records import Metric, Report, RunKey, RunSummary, SuiteSummary

KEY = RunKey("memfail", "chroma")
FILES = [("memeval report", "run.json"), ("memeval html", "run.html")]


def test_a_failing_ci_gate_says_in_words_which_bound_misses_the_threshold() -> None:
    """`CI bound 0.4112 >= 0.6 (value 0.5600)` read like a passing assertion."""
    run = RunSummary(KEY, 50, 50, 0, 0, SuiteSummary({"success": Metric(0.56, (0.4112, 0.69), 50)}))
    (failed,) = evaluate(parse_gate("ci:memfail.success>=0.6"), [run], [])
    assert (
        not failed.passed
        and failed.detail == "chroma | reader | k=10: lower CI bound 0.4112 is below 0.6 (value 0.5600)"
    )
    (passed,) = evaluate(parse_gate("ci:memfail.success<=0.7"), [run], [])
    assert (
        passed.passed and passed.detail == "chroma | reader | k=10: upper CI bound 0.6900 is at most 0.7 (value 0.5600)"
    )
    (point,) = evaluate(parse_gate("memfail.success>0.6"), [run], [])
    assert point.detail == "chroma | reader | k=10: value 0.5600 is not above 0.6"


def test_a_ci_gate_on_an_interval_that_is_not_estimable_says_why() -> None:
    run = RunSummary(
        KEY, 50, 50, 0, 0, SuiteSummary({"success": Metric(1.0, no_interval="no variation in 8 clusters")})
    )
    (gate,) = evaluate(parse_gate("ci:memfail.success>=0.6"), [run], [])
    assert (
        not gate.passed
        and gate.detail == "chroma | reader | k=10: no confidence interval for success: no variation in 8 clusters"
    )


def report_with_wrong(n_wrong: int) -> Report:
    records = tuple(make_record(f"i{n}", suite="memfail", memsystem="chroma", correct=False) for n in range(n_wrong))
    return Report({}, (RunSummary(KEY, n_wrong, n_wrong, 0, 0),), records)


def test_the_wrong_answers_are_where_the_closing_text_says() -> None:
    """`merge` ended "each is a WRONG line above" and printed none; a resumed run said 466
    wrong answers and printed 336 WRONG lines."""
    every = wrong_answers_text(466, None, FILES)
    assert every.endswith("each is a WRONG line above, and a failed test to pytest.")
    merged = wrong_answers_text(466, 0, FILES)
    assert "WRONG line" not in merged and merged.endswith(
        "each is in the reports (their records, the HTML item explorer)."
    )
    resumed = wrong_answers_text(466, 336, FILES)
    assert "336 are WRONG lines above (this session's); the other 130 were resumed from the journal" in resumed
    assert wrong_answers_text(3, 0, []).endswith("each is in the records of a report (--memeval-report).")
    _, lines = overview_lines(report_with_wrong(2), {}, FILES, wrong_printed=0)
    assert not any("WRONG line" in line for line in lines)


@pytest.mark.parametrize(
    ("report", "html", "collect_only", "written"),
    [
        (None, None, False, ("{root}/memeval-report.json", "{root}/memeval-report.html")),
        ("run.json", None, False, ("run.json", "run.html")),
        (None, "page.html", False, ("{root}/memeval-report.json", "page.html")),
        ("none", None, False, (None, None)),
        ("None", "page.html", False, (None, "page.html")),
        ("run.json", "none", False, ("run.json", None)),
        (None, None, True, (None, None)),
        ("run.json", None, True, ("run.json", None)),
    ],
)
def test_a_run_writes_both_reports_unless_told_not_to(
    report: str | None, html: str | None, collect_only: bool, written: tuple[str | None, str | None]
) -> None:
    root = Path("/project")
    expected = tuple(None if w is None else w.format(root=root) for w in written)
    assert report_paths(report, html, root, collect_only) == expected


# --- as a run shows them -----------------------------------------------------------------------


@pytest.mark.slow
def test_a_failing_gate_is_named_in_the_last_lines_with_the_exit_status(toy_pytester: pytest.Pytester) -> None:
    result = toy_pytester.runpytest("test_toy.py", "--memsystem=none", "--memeval-gate=toy.accuracy>=0.6")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert result.outlines[-1].startswith(
        "memeval: exit status 1: gate toy.accuracy>=0.6 failed: none | reader | k=10: value 0.0000 is below 0.6"
    )
    passing = toy_pytester.runpytest("test_toy.py", "--memsystem=none", "--memeval-gate=toy.accuracy<=0.6")
    assert passing.ret == pytest.ExitCode.OK
    assert passing.outlines[-1] == (
        "memeval: exit status 0: the gate passed (with gates, wrong answers are findings, not failures)"
    )


@pytest.mark.slow
def test_a_run_without_report_options_leaves_both_reports_and_names_them_last(
    toy_pytester: pytest.Pytester, default_reports: None
) -> None:
    result = toy_pytester.runpytest("test_toy.py", "--memsystem=context")
    json_report, page = toy_pytester.path / "memeval-report.json", toy_pytester.path / "memeval-report.html"
    assert json_report.is_file() and page.is_file()
    assert result.outlines[-4:-2] == [f"memeval report: {json_report}", f"memeval html: {page}"]
    assert not (toy_pytester.path / "memeval-report.journal.jsonl").exists()  # a complete run removes its journal
    json_report.unlink()
    page.unlink()
    toy_pytester.runpytest("test_toy.py", "--memsystem=context", "--memeval-report=none")
    toy_pytester.runpytest("test_toy.py", "--memsystem=context", "--collect-only")
    assert sorted(p.name for p in toy_pytester.path.iterdir() if p.name.startswith("memeval")) == []
