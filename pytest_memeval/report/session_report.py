"""The controller's view of a finished session: one summary per (suite, system, responder)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import pytest

from ..options import Settings
from ..state import RunState
from .collector import RecordCollector, RunKey
from .terminal import write_summary

SCHEMA = "memeval-report/1"


@dataclass
class SessionReport:
    settings: Settings
    runs: list[dict[str, Any]]
    records: list[dict[str, Any]]

    @classmethod
    def for_config(cls, config: pytest.Config, state: RunState, collector: RecordCollector) -> "SessionReport":
        cached = config.stash.get(_REPORT_KEY, None)
        if cached is not None:
            return cached
        runs, records = [], []
        for key, group in collector.by_run().items():
            runs.append(summarize_run(state, key, group))
            records.extend(group)
        report = cls(state.settings, runs, records)
        config.stash[_REPORT_KEY] = report
        return report

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "plugin_version": _plugin_version(),
            "settings": _settings_json(self.settings),
            "runs": self.runs,
            "records": self.records,
        }

    def write_files(self) -> None:
        if self.settings.report is not None:
            text = json.dumps(self.to_json(), indent=1, sort_keys=True)
            self.settings.report.write_text(text + "\n", encoding="utf-8")

    def write_terminal(self, terminal: pytest.TerminalReporter) -> None:
        write_summary(terminal, self.runs)
        if self.settings.report is not None:
            terminal.write_line(f"memeval report: {self.settings.report}")


_REPORT_KEY = pytest.StashKey[SessionReport]()


def summarize_run(state: RunState, key: RunKey, records: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts plus the suite's own metrics, computed on the items that produced a valid answer."""
    errors = [r for r in records if r.get("error")]
    invalid = [r for r in records if not r.get("error") and not r.get("valid", True)]
    scored = [r for r in records if not r.get("error") and r.get("valid", True)]
    run: dict[str, Any] = {
        "suite": key.suite,
        "memsystem": key.memsystem,
        "responder": key.responder,
        "n_items": len(records),
        "n_scored": len(scored),
        "n_errors": len(errors),
        "n_invalid": len(invalid),
    }
    run.update(state.suite(key.suite_ref).summarize(scored) if scored else {"metrics": {}, "breakdown": {}})
    return run


def _settings_json(settings: Settings) -> dict[str, Any]:
    return {
        "memsystems": list(settings.memsystems),
        "suites": list(settings.suites),
        "size": settings.size,
        "split": settings.split,
        "seeds": list(settings.seeds) if settings.seeds else None,
        "k": settings.k,
        "responder": settings.responder,
        "embedder": settings.embedder,
        "bootstrap": settings.bootstrap,
        "data_dir": str(settings.data_dir) if settings.data_dir else None,
    }


def _plugin_version() -> str:
    try:
        return version("pytest-memeval")
    except PackageNotFoundError:
        return "unknown"
