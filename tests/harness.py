"""Constants and builders shared by the plugin's tests."""

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_memeval.config.settings import Settings
from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.results.records import Record, RunKey

#: the API key every pytester run gets; tests that look for leaks grep their outputs for it
TEST_API_KEY = "sk-test-NEVER-WRITE-ME-0123456789abcdef"


def key_pieces(key: str, length: int = 8) -> list[str]:
    """Every piece of `key` of `length` characters: none may be written anywhere (issue 22:
    a server may echo the key minus a character, or split over log-prob tokens)."""
    return [key[i : i + length] for i in range(len(key) - length + 1)]


def make_record(
    id: str = "item", *, suite: str = "s", memsystem: str = "m", responder: str = "reader", k: int = 10, **fields: Any
) -> Record:
    """A scored record with defaults for what a test does not care about."""
    values: dict[str, Any] = {"suite_ref": suite, "context": "c", "cluster": "c", "task": "t", "status": "scored"}
    values.update(fields)
    return Record(id=id, key=RunKey(suite, memsystem, responder, k=k), **values)


def make_settings(*systems: str, **changes: Any) -> Settings:
    """A run's settings with defaults for what a test does not care about."""
    values: dict[str, Any] = dict(
        memsystems=systems,
        suites=("multisource",),
        size="smoke",
        split=None,
        seeds=None,
        ks=(10,),
        responder="reader",
        report=None,
        data_dir=None,
        embedder="minilm",
        cache_dir=Path("."),
        bootstrap=10,
    )
    values.update(changes)
    return Settings(**values)


def bounded(seconds: float, function: Callable[[], Any]) -> Any:
    """function()'s result, or the exception it raised, from a daemon thread; the test fails
    (rather than hangs) when it is still running after `seconds`."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(function())
        except Exception as exc:  # returned for the test to inspect
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert outcome, f"still running after {seconds}s"
    return outcome[0]


class CommandLine:
    """Option values as pytest would parse `--name=value` arguments, over the defaults (a
    `config.options.OptionSource`, for the plugin's preparation of a run in this process)."""

    def __init__(self, defaults: dict[str, Any], args: list[str]) -> None:
        self.values = {name: list(value) if isinstance(value, list) else value for name, value in defaults.items()}
        for arg in args:
            name, equals, value = arg.partition("=")
            dest = name.removeprefix("--").replace("-", "_")
            assert dest in self.values, f"not a memeval option: {arg}"
            if isinstance(self.values[dest], list):  # a repeatable option
                self.values[dest].append(value)
            else:
                self.values[dest] = value if equals else True

    def getoption(self, name: str) -> Any:
        return self.values[name]


def suite_options(cache_dir: Path, bootstrap: int = 10, data_dir: Path | None = None) -> SuiteOptions:
    """A suite's options at smoke size, for building a suite in a test."""
    return SuiteOptions(
        size="smoke", split=None, seeds=None, k=10, data_dir=data_dir, cache_dir=cache_dir, bootstrap=bootstrap
    )


def option_defaults(config: pytest.Config) -> dict[str, Any]:
    """Every memeval option's default, as this test run (which passes none) parsed it."""
    options = vars(config.option)
    assert options["memsystem"] is None, "run the plugin's tests without memeval options"
    return {name: value for name, value in options.items() if name.startswith(("memeval_", "memsystem"))}
