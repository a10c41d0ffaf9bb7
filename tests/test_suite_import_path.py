"""--memeval-suite names a suite by its import path (pkg.module:Class), as --memsystem names
an adapter: the suite is imported, checked and indexed before the run, and a test module
that names it runs its items. The suite here is a class of this very test module."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from harness import CommandLine, option_defaults

from pytest_memeval import Answer, Context, IndexEntry, Item, ItemView, Memory, Message, Suite
from pytest_memeval.errors import ConfigError
from pytest_memeval.running.run_setup import prepare_run

OWN = f"{__name__}:OwnSuite"
WORDS = {"a": "apple", "b": "banana", "c": "cherry"}


class WordReader:
    def answer(self, view: ItemView, memories: Sequence[Memory]) -> Answer:
        key = view.question.removeprefix("word for ")
        found = [m.text.partition("=")[2] for m in memories if m.text.startswith(f"{key}=")]
        return Answer(found[0] if found else None, abstained=not found)


class OwnSuite(Suite):
    name = "own"
    markers = {"own_fruit": "a fruit"}

    def index(self) -> list[IndexEntry]:
        return [IndexEntry(key, "words", ("own_fruit",)) for key in WORDS]

    def context(self, context_id: str) -> Context:
        return Context(context_id, (tuple(Message("user", f"{key}={word}") for key, word in WORDS.items()),))

    def item(self, item_id: str) -> Item:
        return Item(item_id, "words", item_id, ItemView(self.name, "word", f"word for {item_id}"), gold=WORDS[item_id])

    def reader(self) -> WordReader:
        return WordReader()


class NotASuite:
    pass


def test_a_suite_named_by_its_import_path_is_selected_imported_and_indexed(pytestconfig: pytest.Config) -> None:
    options = CommandLine(option_defaults(pytestconfig), ["--memsystem=context", f"--memeval-suite={OWN}"])
    prepared = prepare_run(options, bundled_only=False)
    assert prepared.state.settings.suites == (OWN,)
    assert isinstance(prepared.state.suite(OWN), OwnSuite)
    assert [entry.id for entry in prepared.state.index(OWN)] == ["a", "b", "c"]
    assert OWN not in prepared.suites  # the suites the installation offers, whose markers a run registers


@pytest.mark.parametrize(
    ("suite", "bundled_only", "expected"),
    [
        ("not a path:X", False, "--memeval-suite: 'not a path:X' is not of the form pkg.module:Class"),
        ("nosuchmodule_xyz:Own", False, "cannot import 'nosuchmodule_xyz'"),
        (f"{__name__}:Missing", False, f"{__name__!r} has no attribute 'Missing'"),
        (f"{__name__}:NotASuite", False, f"--memeval-suite: '{__name__}:NotASuite' is not a subclass of"),
        (OWN, True, f'--memeval-suite: {OWN} runs from a test module that names it (@pytest.mark.memeval("{OWN}"))'),
        ("nosuch", False, "--memeval-suite: unknown suite 'nosuch' (available: "),
    ],
)
def test_a_suite_that_cannot_be_named_so_is_one_line(
    pytestconfig: pytest.Config, suite: str, bundled_only: bool, expected: str
) -> None:
    options = CommandLine(option_defaults(pytestconfig), ["--memsystem=context", f"--memeval-suite={suite}"])
    with pytest.raises(ConfigError) as raised:
        prepare_run(options, bundled_only=bundled_only)
    assert expected in str(raised.value) and "\n" not in str(raised.value)


@pytest.mark.slow
def test_a_test_module_runs_the_suite_it_defines_and_names_by_import_path(suite_pytester: pytest.Pytester) -> None:
    suite_pytester.syspathinsert()  # PYTHONPATH=. (the suite is imported before collection)
    source = Path(__file__).read_text(encoding="utf-8")
    suite = source[source.index("class WordReader:") : source.index("class NotASuite:")]
    suite_pytester.makepyfile(
        test_own=f"""
import pytest
from collections.abc import Sequence
from pytest_memeval import Answer, Context, IndexEntry, Item, ItemView, Memory, Message, Suite, check

WORDS = {WORDS!r}

{suite}

@pytest.mark.memeval("test_own:OwnSuite")
def test_own(memeval_result):
    check(memeval_result)
"""
    )
    result = suite_pytester.runpytest(
        "test_own.py", "--memsystem=context", "--memeval-suite=test_own:OwnSuite", "--memeval-report=report.json"
    )
    result.assert_outcomes(passed=3)
    report = json.loads((suite_pytester.path / "report.json").read_text(encoding="utf-8"))
    assert report["settings"]["suites"] == ["test_own:OwnSuite"]
    assert [(run["key"]["suite"], run["n_scored"]) for run in report["runs"]] == [("own", 3)]
