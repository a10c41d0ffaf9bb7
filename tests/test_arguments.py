"""What a run collects: the bundled suites by default, and bundled modules named the way
pytest printed their ids (the paste-back from a user's repository runs in
tests/test_packaging.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_memeval.config.arguments import BundledSelection, Collection, resolve


@pytest.fixture
def bundled(tmp_path: Path) -> Path:
    directory = tmp_path / "site" / "pytest_memeval" / "suites"
    directory.mkdir(parents=True)
    for suite in ("memfail", "behavior"):
        (directory / f"test_{suite}.py").write_text("")
    return directory


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    directory = tmp_path / "their-repo"
    directory.mkdir()
    return directory


def test_without_paths_a_run_collects_the_bundled_suites(repo: Path, bundled: Path) -> None:
    assert resolve([], "chroma", repo, bundled) == Collection((str(bundled),), bundled_default=True)
    assert resolve([], "chroma", repo, bundled).bundled_only


def test_without_a_memory_system_nothing_changes(repo: Path, bundled: Path) -> None:
    assert resolve([], None, repo, bundled) == Collection(())
    assert resolve(["test_memfail.py::test_memfail[s42-x-000]"], None, repo, bundled).args == (
        "test_memfail.py::test_memfail[s42-x-000]",
    )


def test_a_pasted_id_of_a_bundled_module_selects_its_item_there(repo: Path, bundled: Path) -> None:
    pasted = ["test_memfail.py::test_memfail[s42-coexisting-000]", "test_behavior.py", "tests/test_mine.py"]
    resolved = resolve(pasted, "chroma", repo, bundled)
    assert resolved.args == ("tests/test_mine.py", str(bundled))
    assert resolved.selections == (
        BundledSelection("test_memfail.py", "test_memfail[s42-coexisting-000]"),
        BundledSelection("test_behavior.py"),
    )
    assert not resolved.bundled_only  # the user's own test file runs beside them
    assert resolved.selects("test_memfail.py", "test_memfail[s42-coexisting-000]")
    assert not resolved.selects("test_memfail.py", "test_memfail[s42-coexisting-001]")
    assert resolved.selects("test_behavior.py", "test_behavior[s2026-p01-q01-C5]")


def test_a_file_of_that_name_where_pytest_runs_is_the_users_own(repo: Path, bundled: Path) -> None:
    (repo / "test_memfail.py").write_text("")
    assert resolve(["test_memfail.py::test_x"], "chroma", repo, bundled).args == ("test_memfail.py::test_x",)


@pytest.mark.parametrize(
    "within, selected",
    [
        ("test_memfail", ["test_memfail[a]", "test_memfail[b]"]),
        ("test_memfail[a]", ["test_memfail[a]"]),
        ("TestKit", ["TestKit::test_one"]),
        ("", ["test_memfail[a]", "test_memfail[b]", "test_memfail_other", "TestKit::test_one"]),
    ],
)
def test_a_selection_matches_what_pytest_would_for_that_id(within: str, selected: list[str]) -> None:
    ids = ["test_memfail[a]", "test_memfail[b]", "test_memfail_other", "TestKit::test_one"]
    selection = BundledSelection("test_memfail.py", within)
    assert [i for i in ids if selection.matches("test_memfail.py", i)] == selected
    assert not selection.matches("test_behavior.py", "test_memfail[a]")
