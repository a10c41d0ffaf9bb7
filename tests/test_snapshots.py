"""--memeval-snapshot: one JSON snapshot per item's verdict, safe under -n, changes fail the run."""

from __future__ import annotations

import json

import pytest


def _snapshot_files(pytester: pytest.Pytester) -> dict[str, dict]:
    folder = pytester.path / "snapshots" / "test_toy"
    return {p.name: json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))}


def test_record_under_xdist_then_compare(toy_pytester: pytest.Pytester) -> None:
    recorded = toy_pytester.runpytest_subprocess("test_toy.py", "--memsystem=context", "--memeval-snapshot", "--snapshot-update", "-n", "2")
    recorded.assert_outcomes(passed=12)
    files = _snapshot_files(toy_pytester)  # every file complete JSON: nothing truncated or lost
    assert len(files) == 12
    assert files["test_toy[ada-colour].json"] == {
        "abstained": False, "answer": "red", "correct": True, "judge": {}, "score": None, "valid": True,
    }
    compared = toy_pytester.runpytest_subprocess("test_toy.py", "--memsystem=context", "--memeval-snapshot", "-n", "2")
    compared.assert_outcomes(passed=12)
    assert compared.ret == pytest.ExitCode.OK


def test_a_changed_verdict_fails_with_a_diff_even_when_gates_pass(toy_pytester: pytest.Pytester) -> None:
    toy_pytester.runpytest_subprocess("test_toy.py", "--memsystem=context", "--memeval-snapshot", "--snapshot-update")
    result = toy_pytester.runpytest_subprocess(
        "test_toy.py", "--memsystem=none", "--memeval-snapshot", "--memeval-gate=toy.accuracy>=0", "-k", "ada", "--snapshot-no-colors"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*ada-colour: the verdict differs from its snapshot*",
            "*memeval: 3 verdicts differ from their snapshots (review the diffs; record with --snapshot-update): the run fails*",
        ]
    )
    assert '-   "answer": "red",' in result.stdout.str() and '+   "answer": null,' in result.stdout.str()
    assert len(_snapshot_files(toy_pytester)) == 12  # comparing never rewrites snapshots
