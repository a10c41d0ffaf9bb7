"""The module paths from before the layout by concern (issue 26) still import.

Each old path is the very module at its new path (so isinstance checks and monkeypatching
through either name see one module), with one DeprecationWarning naming the new path;
names that never existed still fail; and every module of the package before the move
is either at its old path still or in the table.
"""

from __future__ import annotations

import importlib
import importlib.util
import runpy
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_memeval._moved import MOVED, MOVED_PACKAGES, new_path

BEFORE = [
    line
    for line in (Path(__file__).parent / "data" / "modules_before_layout.txt").read_text().splitlines()
    if line and not line.startswith("#")
]
#: every old path that moved, below pytest_memeval
OLD = sorted(
    short for name in BEFORE if new_path(short := name.removeprefix("pytest_memeval.")) and name != "pytest_memeval"
)


@pytest.fixture
def forget_old_names() -> Iterator[None]:
    """Drops the old names this test registered, so that each test imports them afresh."""

    def forget() -> None:
        for old in OLD:
            module = sys.modules.pop(f"pytest_memeval.{old}", None)
            parent_name, _, child = f"pytest_memeval.{old}".rpartition(".")
            parent = sys.modules.get(parent_name)
            if module is not None and parent is not None and getattr(parent, child, None) is module:
                if module.__name__ != f"{parent.__name__}.{child}":
                    delattr(parent, child)

    forget()
    yield
    forget()


def moved_warnings(caught: list[warnings.WarningMessage], old: str) -> list[str]:
    return [
        str(w.message)
        for w in caught
        if issubclass(w.category, DeprecationWarning) and str(w.message).startswith(f"{old} has moved to ")
    ]


@pytest.mark.parametrize("old", OLD)
def test_an_old_path_is_the_module_at_its_new_path_and_warns_once(old: str, forget_old_names: None) -> None:
    old_name, new_name = f"pytest_memeval.{old}", f"pytest_memeval.{new_path(old)}"
    new_module = importlib.import_module(new_name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(old_name)
        again = importlib.import_module(old_name)
    assert module is new_module is again
    assert module.__name__ == module.__spec__.name == new_name
    assert moved_warnings(caught, old_name) == [f"{old_name} has moved to {new_name}; import it from there"]


def test_the_warning_points_at_the_importing_line(forget_old_names: None) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        from pytest_memeval.records import Record  # the line the warning names
    from pytest_memeval.results.records import Record as new_record

    assert Record is new_record
    (warning,) = [w for w in caught if str(w.message).startswith("pytest_memeval.records has moved")]
    assert warning.filename == __file__


@pytest.mark.parametrize(
    "name", ["pytest_memeval.nothing", "pytest_memeval.models.nothing", "pytest_memeval.report.nothing"]
)
def test_a_name_that_never_existed_still_fails(name: str, forget_old_names: None) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the old parent package warns
        with pytest.raises(ModuleNotFoundError, match=name.replace(".", r"\.")):
            importlib.import_module(name)


def test_every_module_before_the_layout_is_still_there_or_moved() -> None:
    missing = []
    for name in BEFORE:
        short = name.removeprefix("pytest_memeval.")
        if short in OLD:
            continue
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            missing.append(name)
    assert missing == []
    assert {f"pytest_memeval.{old}" for old in [*MOVED, *MOVED_PACKAGES]} <= set(BEFORE), (
        "the tables name only modules that existed"
    )


def test_python_dash_m_of_an_old_path_runs_the_module_at_its_new_path(
    forget_old_names: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`python -m pytest_memeval.local_model` (a documented command; the module imports
    relatively) still runs."""
    monkeypatch.setattr(sys, "argv", ["local_model", "--help"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(SystemExit) as exit_info:
            runpy.run_module("pytest_memeval.local_model", run_name="__main__", alter_sys=True)
    assert exit_info.value.code == 0
    assert "usage: python -m pytest_memeval.llm.local_model" in capsys.readouterr().out
