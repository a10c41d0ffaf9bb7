"""A pytest plugin for the scale benchmarks: how long the session's phases took.

    PYTHONPATH=benchmarks MEMEVAL_TIMING=out.json pytest -p summary_timing ...

Writes wall and CPU seconds (of this process: the controller under xdist) from session
start to the first and the last test report, to the terminal summary, inside the terminal summary (pytest's
FAILURES and short summary sections and every plugin's summary), and to the end.
With MEMEVAL_FIT_LOG set, every process appends its pid to that file each time it fits a
multisource reader (counting fits on a cold cache).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Generator
from typing import Any

import pytest

_marks: dict[str, tuple[float, float]] = {}


def _log_fits(path: str) -> None:
    from pytest_memeval.suites.multisource import reader

    fit = reader.fit_nbf

    def logged(*args: Any, **kwargs: Any) -> Any:
        with open(path, "a", encoding="utf-8") as log:
            log.write(f"{os.getpid()}\n")
        return fit(*args, **kwargs)

    reader.fit_nbf = logged


if os.environ.get("MEMEVAL_FIT_LOG"):
    _log_fits(os.environ["MEMEVAL_FIT_LOG"])


def _mark(name: str) -> None:
    _marks.setdefault(name, (time.perf_counter(), time.process_time()))


def pytest_sessionstart(session: pytest.Session) -> None:
    _mark("start")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _mark("first_report")
    _marks["last_report"] = (time.perf_counter(), time.process_time())


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary() -> Generator[None, Any, Any]:
    _mark("summary_start")
    try:
        return (yield)
    finally:
        _mark("summary_end")


def pytest_unconfigure(config: pytest.Config) -> None:
    _mark("end")
    target = os.environ.get("MEMEVAL_TIMING")
    if not target or "start" not in _marks:
        return
    wall0, cpu0 = _marks["start"]
    out = {name: {"wall_s": wall - wall0, "cpu_s": cpu - cpu0} for name, (wall, cpu) in _marks.items()}
    with open(target, "w", encoding="utf-8") as handle:
        json.dump(out, handle, indent=1)
