"""--memeval-snapshot: one JSON snapshot per item's verdict, safe under -n, changes fail the run.

Snapshots live in a folder per memory system and k and are named by the item alone, so an
item of a system has the same file whether it ran alone or beside other systems.
"""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.slow


def _snapshot_files(pytester: pytest.Pytester, run: str = "context-k10") -> dict[str, dict]:
    folder = pytester.path / "snapshots" / "test_toy" / run
    return {p.name: json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))}


def test_record_under_xdist_then_compare(toy_pytester: pytest.Pytester) -> None:
    recorded = toy_pytester.runpytest_subprocess(
        "test_toy.py", "--memsystem=context", "--memeval-snapshot", "--snapshot-update", "-n", "2"
    )
    recorded.assert_outcomes(passed=12)
    files = _snapshot_files(toy_pytester)  # every file complete JSON: nothing truncated or lost
    assert len(files) == 12
    assert files["test_toy[ada-colour].json"] == {
        "abstained": False,
        "answer": "red",
        "correct": True,
        "judge": {},
        "score": None,
        "valid": True,
    }
    compared = toy_pytester.runpytest_subprocess("test_toy.py", "--memsystem=context", "--memeval-snapshot", "-n", "2")
    compared.assert_outcomes(passed=12)
    assert compared.ret == pytest.ExitCode.OK


def test_a_changed_verdict_fails_with_a_diff_even_when_gates_pass(toy_pytester: pytest.Pytester) -> None:
    toy_pytester.runpytest_subprocess("test_toy.py", "--memsystem=context", "--memeval-snapshot", "--snapshot-update")
    # an earlier verdict of this system on ada's items, as a reviewer would find it in git
    for path in (toy_pytester.path / "snapshots" / "test_toy" / "context-k10").glob("test_toy[[]ada-*.json"):
        verdict = json.loads(path.read_text())
        path.write_text(json.dumps(dict(verdict, answer="stale", correct=False), indent=2, sort_keys=True) + "\n")
    result = toy_pytester.runpytest_subprocess(
        "test_toy.py",
        "--memsystem=context",
        "--memeval-snapshot",
        "--memeval-gate=toy.accuracy>=0",
        "-k",
        "ada",
        "--snapshot-no-colors",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*ada-colour: the verdict differs from its snapshot*",
            "*memeval: 3 verdicts differ from their snapshots (review the diffs; record with --snapshot-update): the run fails*",
        ]
    )
    assert '-   "answer": "stale",' in result.stdout.str() and '+   "answer": "red",' in result.stdout.str()
    assert len(_snapshot_files(toy_pytester)) == 12  # comparing never rewrites snapshots


def test_another_system_is_never_compared_with_these_snapshots(toy_pytester: pytest.Pytester) -> None:
    toy_pytester.runpytest_subprocess("test_toy.py", "--memsystem=context", "--memeval-snapshot", "--snapshot-update")
    result = toy_pytester.runpytest_subprocess("test_toy.py", "--memsystem=none", "--memeval-snapshot", "-k", "ada")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "does not exist" in result.stdout.str() and '"answer": "red"' not in result.stdout.str()


def test_the_same_files_whether_one_system_runs_or_several(toy_pytester: pytest.Pytester) -> None:
    for system in ("context", "none"):
        toy_pytester.runpytest_subprocess(
            f"--memsystem={system}", "test_toy.py", "--memeval-snapshot", "--snapshot-update"
        )
    both = toy_pytester.runpytest_subprocess(
        "test_toy.py", "--memsystem=context,none", "--memeval-snapshot", "--memeval-gate=toy[context].accuracy>=1"
    )
    assert both.ret == pytest.ExitCode.OK, both.stdout.str()
    assert "unused" not in both.stdout.str() and "differ" not in both.stdout.str()
    assert len(_snapshot_files(toy_pytester, "none-k10")) == 12
