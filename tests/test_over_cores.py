"""-n above the machine's cores is one line of measured advice, and the README starts with -n auto."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_memeval.running.settings_checks import OVER_CORES_MEASURED, available_cores, workers_note

README = Path(__file__).resolve().parents[1] / "README.md"


def test_more_workers_than_cores_is_one_line_of_measured_advice() -> None:
    note = workers_note(8, 2)
    assert note is not None and "\n" not in note
    assert note.startswith("-n 8 starts 8 workers on 2 cores: ")
    assert note.endswith(f"({OVER_CORES_MEASURED}); use -n auto (2 here)")
    assert workers_note(2, 2) is None and workers_note(None, 2) is None and workers_note(0, 1) is None
    assert available_cores() >= 1


def test_the_readmes_first_command_says_n_auto() -> None:
    first = next(
        line.strip() for line in README.read_text(encoding="utf-8").splitlines() if line.startswith("    pytest")
    )
    assert first == "pytest --memsystem=mem0 -n auto"


@pytest.mark.slow
def test_the_run_says_so_in_its_header(toy_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pytest_memeval.plugin.available_cores", lambda: 1)
    result = toy_pytester.runpytest("test_toy.py", "--memsystem=context", "-n", "2", "--collect-only")
    lines = [line for line in result.stdout.lines if "workers on 1 core" in line]
    assert lines == [f"memeval: {workers_note(2, 1)}"], result.stdout.str()
