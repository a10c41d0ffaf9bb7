"""The controller's view of a finished session: summaries, comparisons, gates, the exit status.

Built once, in pytest_sessionfinish, from the records the workers shipped; the terminal
summary, the JSON report, the HTML page (rendering/session_output.py writes them) and the
exit status all read this one object.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import pytest
from msgspec.structs import replace

from ..config.settings import Settings
from ..framework.suite import Suite
from ..framework.unreadable import count_unreadable, unreadable_note
from ..results.baseline import baseline_for
from ..results.clusters import count_clusters
from ..results.fingerprint import Fingerprint
from ..results.records import Comparison, Record, Report, RunKey, RunSummary, Subset
from ..running.adapter_guard import describe
from .comparisons import apply_holm, compare_runs, pairs_within_session
from .flakiness import flakiness
from .gates import evaluate
from .judge_sensitivity import judge_sensitivity
from .partial import (
    INTERRUPTED,
    SessionEnd,
    expected_items,
    incomplete_run,
    selected_count,
    session_incomplete,
    subset_of,
)
from .usage_totals import run_usage

SuiteLookup = Callable[[str], Suite]
#: how many items a suite (as the test names it) has in this run's size, split and seeds
SuiteSize = Callable[[str], "int | None"]


@dataclass(frozen=True)
class Headline:
    """The metric the closing overview names for one run (its suite's `headline()`)."""

    metric: str
    lower_is_better: bool = False


@dataclass(frozen=True)
class ExitDecision:
    """An exit status and why, in words."""

    status: int
    why: str


@dataclass
class SessionReport:
    settings: Settings
    report: Report
    snapshot_changes: list[str] = field(default_factory=list)
    #: problems writing the report files, one line each (the run fails)
    write_errors: list[str] = field(default_factory=list)
    #: the metric the terminal's closing overview names for each run
    headlines: dict[RunKey, Headline | None] = field(default_factory=dict)
    #: the run's exit status and why, once `decide` made it
    decision: ExitDecision | None = None
    #: the records as the statistics read them, in the report's order: on the controller,
    #: their statistics views (the report's records are read from disk); None: the report's
    statistics: Sequence[Record] | None = None

    @property
    def counted(self) -> Sequence[Record]:
        """The records to count and group by (`statistics`, else the report's own)."""
        return self.report.records if self.statistics is None else self.statistics

    @classmethod
    def build(
        cls,
        settings: Settings,
        suite: SuiteLookup,
        grouped: dict[RunKey, list[Record]],
        baseline: Sequence[Record] | None = None,
        session_errors: Sequence[str] = (),
        snapshot_changes: Sequence[str] = (),
        suite_size: SuiteSize | None = None,
        fingerprint: Fingerprint | None = None,
        protocol_notes: Sequence[str] = (),
        selection: Mapping[str, str] | None = None,
        end: SessionEnd | None = None,
        full_records: Callable[[Sequence[Record]], Sequence[Record]] | None = None,
    ) -> SessionReport:
        """`selection` records what picked the items (-k, -m, the shard): it is not part of
        the fingerprint. `end` says how the session ended (what it collected, whether it
        stopped early): the runs' subset and incomplete labels come from it (`partial`).
        `full_records`: where `grouped` holds statistics views (`results.record_spool`),
        the whole records of such views, in their order, for the report."""
        end = end if end is not None else SessionEnd()
        grouped = {key: sorted(records, key=lambda r: (r.id, r.repeat)) for key, records in grouped.items()}
        refs = {key: records[0].suite_ref for key, records in grouped.items() if records}
        errors = list(session_errors)
        expected = {key: expected_items(records, end) for key, records in grouped.items()}
        runs = [
            _summarize(
                suite(refs[key]),
                key,
                records,
                errors,
                subset_of(records, expected[key], suite_size(refs[key]) if suite_size is not None else None),
                settings.bootstrap,
            )
            for key, records in grouped.items()
        ]
        unscored = sum(r.n_errors + r.n_invalid for r in runs)
        over_max_errors = unscored + len(errors) > settings.max_errors
        runs = [
            replace(
                run,
                sample=suite(refs[run.key]).sample(),
                incomplete=incomplete_run(grouped[run.key], expected[run.key], over_max_errors),
            )
            for run in runs
        ]
        usage = {key: u for key, records in grouped.items() if (u := run_usage(records, settings.prices)) is not None}
        records = tuple(r for group in grouped.values() for r in group)
        try:
            comparisons = tuple(_comparisons(settings, suite, grouped, refs, baseline))
        except Exception as exc:  # a suite's statistics failing must not hide the summary
            errors.append(f"paired comparisons failed: {describe(exc)}")
            comparisons = ()
        gates = tuple(
            v
            for gate in settings.gates
            for v in evaluate(gate, runs, comparisons, refuse_subsets=settings.gate_subset == "refuse")
        )
        incomplete = session_incomplete(
            end,
            sum(1 for run in runs if run.incomplete),
            len(records),
            selected_count(grouped.values(), end),
            f"{unscored:,} items ended in an error or an invalid answer (--memeval-max-errors={settings.max_errors})"
            if over_max_errors and unscored
            else "",
        )
        report = Report(
            dict(settings_json(settings), selection=dict(selection or {})),
            tuple(runs),
            records if full_records is None else full_records(records),
            comparisons,
            gates,
            tuple(errors),
            _plugin_version(),
            fingerprint,
            tuple(protocol_notes),
            usage,
            incomplete,
        )
        headlines: dict[RunKey, Headline | None] = {}
        for run in runs:
            suite_class = suite(refs[run.key])
            metric = suite_class.headline()
            headlines[run.key] = Headline(metric, metric in suite_class.lower_is_better)
        statistics = records if full_records is not None else None
        return cls(settings, report, sorted(snapshot_changes), headlines=headlines, statistics=statistics)

    @property
    def n_errors(self) -> int:
        """Items that ended without a score (errors and invalid answers), failures not tied
        to one item, and sessions not searchable by the deadline (--memeval-searchable)."""
        runs = self.report.runs
        return sum(r.n_errors + r.n_invalid for r in runs) + len(self.report.session_errors) + self.not_searchable

    @property
    def not_searchable(self) -> int:
        return sum(usage.not_searchable for usage in self.report.usage.values())

    def exit_status(self, pytest_status: int) -> int:
        """With gates, the gates decide (item failures are expected in a benchmark); errors
        beyond --memeval-max-errors, verdicts that differ from their snapshots and report
        files that could not be written fail the run whatever the gates say."""
        return self.exit_decision(pytest_status).status

    def decide(self, pytest_status: int, tests: bool = True) -> int:
        """`exit_status`, kept with its reason for the closing lines; `tests`: False for a
        merge, which ran none (its wrong answers fail nothing)."""
        self.decision = self.exit_decision(pytest_status, tests)
        return self.decision.status

    def exit_decision(self, pytest_status: int, tests: bool = True) -> ExitDecision:
        """The exit status `exit_status` gives, and why, in one line."""
        failed = pytest.ExitCode.TESTS_FAILED
        if pytest_status not in (pytest.ExitCode.OK, failed):
            stopped = self.report.incomplete.reason if self.report.incomplete is not None else ""
            if pytest_status == pytest.ExitCode.INTERRUPTED:
                why = f" ({stopped})" if stopped and stopped != INTERRUPTED else ""
                return ExitDecision(pytest_status, f"the run was interrupted{why}")
            return ExitDecision(pytest_status, f"pytest ended with {pytest.ExitCode(pytest_status).name}")
        if self.n_errors > self.settings.max_errors:
            return ExitDecision(
                failed, f"{self.errors_text()}, more than --memeval-max-errors={self.settings.max_errors}"
            )
        if self.snapshot_changes:
            changed = len(self.snapshot_changes)
            return ExitDecision(
                failed, f"{changed} verdicts differ from their snapshots (--snapshot-update records them)"
            )
        if self.write_errors:
            return ExitDecision(failed, f"a report could not be written: {self.write_errors[0]}")
        if self.settings.gates:
            return self._gates_decision()
        wrong = sum(1 for r in self.counted if r.is_scored and r.correct is False)
        if not tests:
            return ExitDecision(pytest_status, "merged; without --gate a merge's wrong answers fail nothing")
        if pytest_status == pytest.ExitCode.OK:
            return ExitDecision(pytest_status, "every test passed")
        if wrong:
            return ExitDecision(
                pytest_status,
                f"{wrong:,} wrong answer{'s' if wrong != 1 else ''}: without --memeval-gate a wrong answer fails "
                "the run, as a failed test",
            )
        return ExitDecision(pytest_status, "tests failed")

    def _gates_decision(self) -> ExitDecision:
        gates = self.report.gates
        failing = [g for g in gates if not g.passed]
        if not failing:
            plural = f"all {len(gates)} gates" if len(gates) > 1 else "the gate"
            return ExitDecision(
                pytest.ExitCode.OK, f"{plural} passed (with gates, wrong answers are findings, not failures)"
            )
        first = failing[0]
        more = f"; {len(failing) - 1} more of {len(gates)} gates failed (above)" if len(failing) > 1 else ""
        return ExitDecision(pytest.ExitCode.TESTS_FAILED, f"gate {first.expression} failed: {first.detail}{more}")

    def errors_text(self) -> str:
        items = sum(r.n_errors + r.n_invalid for r in self.report.runs)
        session = len(self.report.session_errors)
        counted = [f"{items} items ended in an error or an invalid answer"] if items else []
        counted += [f"{session} session error{'s' if session != 1 else ''}"] if session else []
        unsearchable = self.not_searchable
        counted += (
            [f"{unsearchable} session{'s' if unsearchable != 1 else ''} not searchable by the deadline"]
            if unsearchable
            else []
        )
        return " and ".join(counted)

    def closing_lines(self) -> list[str]:
        """The last lines of a run, after pytest's own count: the exit status and why (once
        `decide` made it), and for an incomplete run how many items ran and the command
        that resumes it."""
        decision = self.decision
        lines = [f"memeval: exit status {int(decision.status)}: {decision.why}"] if decision is not None else []
        incomplete = self.report.incomplete
        if incomplete is not None:
            how = (
                f"resume with: {incomplete.resume}" if incomplete.resume else "no journal was kept: a rerun starts over"
            )
            lines.append(f"memeval: incomplete: {incomplete.text()}; {how}")
        return lines


def summarize_run(suite: Suite, key: RunKey, records: Sequence[Record], n_resamples: int) -> RunSummary:
    """The summary of a run of `records`, as the session computes each run's (--memeval-errata's
    corrected records); a suite whose summary fails keeps its counts."""
    return _summarize(suite, key, list(records), [], None, n_resamples)


def _summarize(
    suite: Suite,
    key: RunKey,
    records: list[Record],
    errors: list[str],
    subset: Subset | None,
    n_resamples: int,
) -> RunSummary:
    """Counts plus the suite's own metrics, computed on the items that were scored (every
    repeat of them: their intervals resample clusters, which hold an item's repeats); a
    suite whose summary fails keeps its counts, and the failure is a session error. Every
    interval goes through `intervals` (none where it is not estimable, with the reason)."""
    from ..results.retrieval import RETRIEVAL_BOUNDS
    from ..stats.estimability import checked_flakiness, checked_judges, checked_summary  # numpy and the stats
    from .retrieval_metrics import with_retrieval

    scored = [r for r in records if r.is_scored]
    n_clusters = count_clusters(scored) if scored else None
    flaky = checked_flakiness(flakiness(records, n_resamples), n_clusters)
    judges = checked_judges(judge_sensitivity(records, n_resamples), n_clusters)
    if not scored:
        return RunSummary.of(key, records, subset=subset, flakiness=flaky)
    try:
        summary = suite.summarize(scored)
    except Exception as exc:
        errors.append(f"summary of {key.suite} | {key.label()} failed: {describe(exc)}")
        return RunSummary.of(
            key, records, subset=subset, flakiness=flaky, n_clusters=n_clusters, judge_sensitivity=judges
        )
    summary = checked_summary(
        with_retrieval(summary, scored, n_resamples), n_clusters, {**suite.metric_bounds, **RETRIEVAL_BOUNDS}
    )
    unreadable = unreadable_note(key.memsystem, *count_unreadable(scored))
    if unreadable is not None:  # the score would measure the reader, not the memory: say so, and block gates
        note = "; ".join(filter(None, [summary.note, unreadable]))
        summary = replace(summary, note=note, gate_blocker=unreadable)
    return RunSummary.of(key, records, summary, subset, flaky, n_clusters, judges)


def _comparisons(
    settings: Settings,
    suite: SuiteLookup,
    grouped: dict[RunKey, list[Record]],
    refs: dict[RunKey, str],
    baseline: Sequence[Record] | None,
) -> list[Comparison]:
    by_suite: dict[str, list[RunKey]] = {}
    for key in grouped:
        by_suite.setdefault(key.suite, []).append(key)
    order = {name: i for i, name in enumerate(settings.systems)}
    comparisons = []
    for keys in by_suite.values():
        definition = suite(refs[keys[0]])
        keys.sort(key=lambda k: (order.get(k.memsystem, len(order)), k.k, k.responder, k.judge))
        runs = [(key, grouped[key]) for key in keys]
        comparisons.extend(
            pairs_within_session(runs, definition.compare, definition.lower_is_better, definition.metric_bounds)
        )
        for key, records in runs if baseline is not None else ():
            match = baseline_for(baseline or (), key)
            if match is not None:
                comparisons.append(
                    compare_runs(
                        (key, records),
                        match,
                        definition.compare,
                        "baseline",
                        definition.lower_is_better,
                        definition.metric_bounds,
                    )
                )
    return apply_holm(comparisons)


def settings_json(settings: Settings) -> dict[str, Any]:
    return {
        "memsystems": list(settings.memsystems),
        "oracle": settings.oracle,
        "suites": list(settings.suites),
        "size": settings.size,
        "split": settings.split,
        "seeds": list(settings.seeds) if settings.seeds else None,
        "k": list(settings.ks),
        "responder": settings.responder,
        "judges": [str(judge) for judge in settings.judges],
        "embedder": settings.embedder,
        "bootstrap": settings.bootstrap,
        "data_dir": str(settings.data_dir) if settings.data_dir else None,
        "baseline": str(settings.baseline) if settings.baseline else None,
        "gates": [gate.expression for gate in settings.gates],
        "max_errors": settings.max_errors,
        "adapter_timeout_s": settings.adapter_timeout_s,
        "searchable_deadline_s": settings.searchable_deadline_s,
        "html": str(settings.html) if settings.html else None,
        "repeat": settings.repeats,
        "record_memories": settings.record_memories,
        "gate_subset": settings.gate_subset,
        "any_protocol": settings.any_protocol,
        "resume": settings.resume,
        "shard": str(settings.shard) if settings.shard else None,
        "suite_params": {suite: dict(params) for suite, params in settings.suite_params.items()},
        "prices": {model: price.to_json() for model, price in settings.prices.items()},
        "max_cost": settings.max_cost,
        "args": list(settings.args),
    }


def _plugin_version() -> str:
    try:
        return version("pytest-memeval")
    except PackageNotFoundError:
        return "unknown"
