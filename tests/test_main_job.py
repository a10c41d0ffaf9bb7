"""What `make main` shows a newcomer: a header naming what runs, each wrong answer as one
line (behavior's too), and last, before pytest's own count, the summary of every suite
with its headline metric and interval, and where the reports are."""

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


def test_the_last_lines_hold_the_summary_and_the_report_paths(suite_pytester: pytest.Pytester) -> None:
    args = main_args()
    assert "--memsystem=chroma" in args and "--memeval-report=memeval-report.json" in args
    # the main job's command on two of its suites, embedded without the model (quicker)
    result = suite_pytester.runpytest_subprocess(
        *args, "--memeval-suite=behavior,memfail", "--memeval-embedder=hashing", "-p", "no:cacheprovider", timeout=900
    )
    lines = result.outlines
    assert result.ret == pytest.ExitCode.TESTS_FAILED, "\n".join(lines[-40:])
    final = re.fullmatch(r"=+ (\d+) failed, (\d+) passed in .* =+", lines[-1])
    assert final, lines[-1]
    # every wrong answer is one line, behavior's too; no pytest failure section or list
    wrong = [line for line in lines if line.startswith("WRONG ")]
    assert len(wrong) == int(final.group(1)) and any("test_behavior.py::" in line for line in wrong)
    assert not [line for line in lines if "FAILURES" in line or line.startswith("FAILED ")]
    # last: the overview, after the tables
    start = next(
        i for i, line in enumerate(lines) if re.match(r"=+ memeval: 338 items, 2 suites, memory system chroma =+", line)
    )
    assert start > next(i for i, line in enumerate(lines) if re.match(r"=+ memeval summary =+", line))
    overview = lines[start + 1 : -1]
    assert overview[0].split() == ["suite", "run", "items", "wrong", "errors", "headline", "metric", "[95%", "CI]"]
    assert re.fullmatch(r"behavior +chroma +288 +\d+ +0 +C1 \d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]", overview[1]), overview
    assert re.fullmatch(r"memfail +chroma +50 +\d+ +0 +success \d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]", overview[2]), (
        overview
    )
    assert "wrong answers are the benchmark's findings" in overview[3]
    assert overview[-2:] == [
        f"memeval report: {suite_pytester.path / 'memeval-report.json'}",
        f"memeval html: {suite_pytester.path / 'memeval-report.html'}",
    ]


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
