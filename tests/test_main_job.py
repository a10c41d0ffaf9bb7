"""What `make main` shows a newcomer: a header naming what runs, each wrong answer as one
line (behavior's too), then the summary of every suite with its headline metric and
interval, labelled (a generated sample), and where the reports are (written without a
report option); last, after pytest's own count, the exit status and why."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]


def main_args() -> list[str]:
    """The pytest arguments of the Makefile's `main` target."""
    makefile = REPO / "Makefile"
    recipe = makefile.read_text(encoding="utf-8").split("\nmain: ", 1)[1].split("\n\n", 1)[0]
    command = recipe.replace("\\\n", " ").split("/pytest ", 1)[1].split("||", 1)[0]
    return shlex.split(command)


def test_the_last_lines_hold_the_summary_the_report_paths_and_the_verdict(
    suite_pytester: pytest.Pytester, default_reports: None
) -> None:
    args = main_args()
    assert args == ["--memsystem=chroma", "-n", "2"]  # no report option: the reports are written anyway
    # the main job's command on two of its suites, embedded without the model (quicker)
    result = suite_pytester.runpytest_subprocess(
        *args, "--memeval-suite=behavior,memfail", "--memeval-embedder=hashing", "-p", "no:cacheprovider", timeout=900
    )
    lines = result.outlines
    assert result.ret == pytest.ExitCode.TESTS_FAILED, "\n".join(lines[-40:])
    final = re.fullmatch(r"=+ (\d+) failed, (\d+) passed in .* =+", lines[-2])
    assert final, lines[-2]
    assert lines[-1] == (
        f"memeval: exit status 1: {final.group(1)} wrong answers: without --memeval-gate a wrong answer fails "
        "the run, as a failed test"
    )
    # every wrong answer is one line, behavior's too; no pytest failure section or list
    wrong = [line for line in lines if line.startswith("WRONG ")]
    assert len(wrong) == int(final.group(1)) and any("test_behavior.py::" in line for line in wrong)
    assert not [line for line in lines if "FAILURES" in line or line.startswith("FAILED ")]
    # last: the overview, after the tables
    start = next(
        i for i, line in enumerate(lines) if re.match(r"=+ memeval: 338 items, 2 suites, memory system chroma =+", line)
    )
    assert start > next(i for i, line in enumerate(lines) if re.match(r"=+ memeval summary =+", line))
    overview = lines[start + 1 : -2]
    head = ["suite", "run", "items", "wrong", "errors", "labels", "headline", "metric", "[95%", "CI]"]
    assert overview[0].split() == head
    number = r"\d\.\d{3}"
    interval = rf"(\[{number}, {number}\]|\[n/a: [^]]+\])"
    assert re.fullmatch(rf"behavior +chroma +288 +\d+ +0 +sample +C1 {number} {interval}", overview[1]), overview
    assert re.fullmatch(rf"memfail +chroma +50 +\d+ +0 +sample +success {number} {interval}", overview[2]), overview
    assert overview[3].startswith("sample: generated data, not the benchmark's release")
    assert any("wrong answers are the benchmark's findings" in line for line in overview)
    reports = [suite_pytester.path / "memeval-report.json", suite_pytester.path / "memeval-report.html"]
    assert overview[-2:] == [f"memeval report: {reports[0]}", f"memeval html: {reports[1]}"]
    assert all(path.is_file() for path in reports)


def test_a_run_of_the_bundled_suites_in_the_checkout_names_them_not_testpaths() -> None:
    """The checkout's pyproject sets testpaths = tests: a run of the bundled suites neither
    says so in its header nor loads tests/conftest.py (the main job's install lacks the
    test dependencies)."""
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--memsystem=none", "--memeval-suite=memfail", "--co", "-q", "--trace-config"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "testpaths:" not in run.stdout
    assert str(REPO / "tests" / "conftest.py") not in run.stdout
    assert "suites/test_memfail.py::test_memfail[s42-cond_easy-000]" in run.stdout
