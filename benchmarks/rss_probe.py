"""A pytest plugin for the memory benchmarks: each process's resident memory at the session's phases.

    PYTHONPATH=benchmarks MEMEVAL_RSS_DIR=out/ pytest -p rss_probe ...

Every process that loads it (the controller, and under xdist each worker, which gets the
same `-p`) writes `<dir>/<controller|gwN>.json` when it exits (a worker: when its session
finishes, and again when pytest unconfigures it): its peak resident set
(VmHWM, the kernel's high-water mark, in MiB) and, at each phase, its resident set then
(VmRSS) and the peak so far. Phases: configured, collected, every 2,000th report,
session finishing (before the controller aggregates), terminal summary start and end
(between them: pytest's and the plugins' summaries; before them: the reports written),
and exit. Linux only (it reads /proc/self/status).
"""

from __future__ import annotations

import atexit
import json
import os
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

_phases: list[dict[str, Any]] = []
_reports = 0
_name = "controller"


def _status_mib(field: str) -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def _mark(phase: str) -> None:
    _phases.append({"phase": phase, "rss_mib": _status_mib("VmRSS"), "peak_mib": _status_mib("VmHWM")})


def _write(phase: str = "exit") -> None:
    target = os.environ.get("MEMEVAL_RSS_DIR")
    if not target:
        return
    _mark(phase)
    out = {"process": _name, "peak_mib": _status_mib("VmHWM"), "reports": _reports, "phases": _phases}
    (Path(target) / f"{_name}.json").write_text(json.dumps(out, indent=1), encoding="utf-8")


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    global _name
    workerinput = getattr(config, "workerinput", None)
    _name = str(workerinput["workerid"]) if workerinput else "controller"
    _mark("configured")
    if not workerinput:
        atexit.register(_write)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    if _name != "controller":
        _write("unconfigured")


def pytest_collection_finish(session: pytest.Session) -> None:
    _mark("collected")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    global _reports
    _reports += 1
    if _reports % 2000 == 0:
        _mark(f"report {_reports}")


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_sessionfinish() -> Generator[None, Any, Any]:
    _mark("session finishing")
    if _name != "controller":
        # a worker writes now, and again when it is unconfigured: xdist's controller kills
        # a worker that has not exited 10 s after it was told to (at 34,560 items, one that
        # was still in its last hooks), before anything at its exit would have run
        _write("session finishing, written")
    try:
        return (yield)
    finally:
        _mark("session finished")


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary() -> Generator[None, Any, Any]:
    _mark("terminal summary start")
    try:
        return (yield)
    finally:
        _mark("terminal summary end")
