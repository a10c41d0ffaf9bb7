"""The controller's view of a finished session: summaries, comparisons, gates, files.

Built once, in pytest_sessionfinish, from the records the workers shipped; the terminal
summary, the JSON report and the exit status all read this one object.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import pytest

from ..options import Settings
from ..state import RunState
from .baseline import baseline_for
from .collector import RecordCollector, RunKey
from .comparisons import apply_holm, compare_runs, pairs_within_session
from .gates import evaluate
from .html import write_html
from .terminal import write_summary

SCHEMA = "memeval-report/1"


@dataclass
class SessionReport:
    settings: Settings
    runs: list[dict[str, Any]]
    records: list[dict[str, Any]]
    comparisons: list[dict[str, Any]] = field(default_factory=list)
    gates: list[dict[str, Any]] = field(default_factory=list)
    snapshot_changes: list[str] = field(default_factory=list)

    @classmethod
    def build(cls, state: RunState, collector: RecordCollector) -> "SessionReport":
        grouped = collector.by_run()
        runs = [summarize_run(state, key, records) for key, records in grouped.items()]
        records = [r for group in grouped.values() for r in group]
        report = cls(state.settings, runs, records, snapshot_changes=sorted(collector.snapshot_changes))
        report.comparisons = _comparisons(state, grouped)
        report.gates = [v for gate in state.settings.gates for v in evaluate(gate, runs, report.comparisons)]
        return report

    @property
    def n_errors(self) -> int:
        """Items that ended without a score: adapter or response errors and invalid answers."""
        return sum(run["n_errors"] + run["n_invalid"] for run in self.runs)

    def exit_status(self, pytest_status: int) -> int:
        """With gates, the gates decide (item failures are expected in a benchmark); errors
        beyond --memeval-max-errors and verdicts that differ from their snapshots fail the
        run whatever the gates say."""
        if pytest_status not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
            return pytest_status
        if self.n_errors > self.settings.max_errors or self.snapshot_changes:
            return pytest.ExitCode.TESTS_FAILED
        if self.settings.gates:
            passed = self.gates and all(g["passed"] for g in self.gates)
            return pytest.ExitCode.OK if passed else pytest.ExitCode.TESTS_FAILED
        return pytest_status

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "plugin_version": _plugin_version(),
            "settings": _settings_json(self.settings),
            "runs": self.runs,
            "comparisons": self.comparisons,
            "gates": self.gates,
            "records": self.records,
        }

    def write_files(self, state: RunState) -> None:
        data = self.to_json()
        if self.settings.report is not None:
            self.settings.report.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        if self.settings.html is not None:
            suites = {r["suite"]: r["suite_ref"] for r in self.records}
            figures = {name: state.suite(ref).figures(data) for name, ref in sorted(suites.items())}
            write_html(self.settings.html, data, figures)

    def write_terminal(self, terminal: pytest.TerminalReporter) -> None:
        write_summary(terminal, self.runs, self.comparisons, self.gates)
        if self.n_errors > self.settings.max_errors:
            terminal.write_line(
                f"memeval: {self.n_errors} items ended in an error or an invalid answer "
                f"(--memeval-max-errors={self.settings.max_errors}): the run fails",
                red=True,
            )
        if self.snapshot_changes:
            terminal.write_line(
                f"memeval: {len(self.snapshot_changes)} verdicts differ from their snapshots "
                "(review the diffs; record with --snapshot-update): the run fails",
                red=True,
            )
        if self.settings.report is not None:
            terminal.write_line(f"memeval report: {self.settings.report}")
        if self.settings.html is not None:
            terminal.write_line(f"memeval html: {self.settings.html}")


def summarize_run(state: RunState, key: RunKey, records: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts plus the suite's own metrics, computed on the items that produced a valid answer."""
    errors = [r for r in records if r.get("error")]
    invalid = [r for r in records if not r.get("error") and not r.get("valid", True)]
    scored = [r for r in records if not r.get("error") and r.get("valid", True)]
    run: dict[str, Any] = {
        "suite": key.suite,
        "memsystem": key.memsystem,
        "responder": key.responder,
        "k": key.k,
        "n_items": len(records),
        "n_scored": len(scored),
        "n_errors": len(errors),
        "n_invalid": len(invalid),
    }
    run.update(state.suite(key.suite_ref).summarize(scored) if scored else {"metrics": {}, "breakdown": {}})
    return run


def _comparisons(state: RunState, grouped: dict[RunKey, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    baseline = state.baseline
    by_suite: dict[str, list[tuple[RunKey, list[dict[str, Any]]]]] = {}
    for key, records in grouped.items():
        by_suite.setdefault(key.suite_ref, []).append((key, records))
    order = {name: i for i, name in enumerate(state.settings.memsystems)}
    comparisons = []
    for suite_ref, runs in by_suite.items():
        suite = state.suite(suite_ref)
        runs.sort(key=lambda run: (order.get(run[0].memsystem, len(order)), run[0].k))
        several_k = len(state.settings.ks) > 1
        labelled = [(_label(key, several_k), records) for key, records in runs]
        comparisons.extend(pairs_within_session(labelled, suite.name, suite.compare, suite.lower_is_better))
        for label, records in labelled if baseline is not None else ():
            match = baseline_for(baseline, suite.name, label["memsystem"], label["responder"], label["k"])
            if match is not None:
                comparisons.append(
                    compare_runs(suite.name, (label, records), match, suite.compare, "baseline", suite.lower_is_better)
                )
    apply_holm(comparisons)
    return comparisons


def _label(key: RunKey, with_k: bool) -> dict[str, Any]:
    label = f"{key.memsystem} | {key.responder}" + (f" | k={key.k}" if with_k else "")
    return {"memsystem": key.memsystem, "responder": key.responder, "k": key.k, "label": label}


def _settings_json(settings: Settings) -> dict[str, Any]:
    return {
        "memsystems": list(settings.memsystems),
        "suites": list(settings.suites),
        "size": settings.size,
        "split": settings.split,
        "seeds": list(settings.seeds) if settings.seeds else None,
        "k": list(settings.ks),
        "responder": settings.responder,
        "embedder": settings.embedder,
        "bootstrap": settings.bootstrap,
        "data_dir": str(settings.data_dir) if settings.data_dir else None,
        "baseline": str(settings.baseline) if settings.baseline else None,
        "gates": [gate.expression for gate in settings.gates],
        "max_errors": settings.max_errors,
        "html": str(settings.html) if settings.html else None,
    }


def _plugin_version() -> str:
    try:
        return version("pytest-memeval")
    except PackageNotFoundError:
        return "unknown"
