"""--memeval-errata: each run's metrics with a benchmark's errata applied, beside the
published ones.

An erratum names one item (by the suite's id, or one the suite maps: `Suite.erratum_item`).
Its records are left out of the corrected metrics (excluded), or judged again against the
corrected gold with the run's own judge, from the answer the record keeps
(`running.rejudging`, which says what a record cannot give). Every other record counts as
published. The corrected metrics are the suite's own summary of the corrected records, with
the intervals every metric gets; the changed records are listed with their verdict before
and after.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from msgspec.structs import replace

from ..config.errata import Errata, Erratum
from ..framework.suite import Suite
from ..protocols import Judge
from ..results.records import ErrataSummary, ErratumChange, Record
from ..running.rejudging import rejudged
from .session_report import SessionReport, SuiteLookup, summarize_run

JudgeOf = Callable[[Suite], Judge]


def with_errata(session: SessionReport, errata: Errata, suite: SuiteLookup, judge_of: JudgeOf) -> SessionReport:
    """`session` with each run of a suite the errata name given its corrected metrics."""
    report = session.report
    runs = []
    for run in report.runs:
        records = [r for r in report.records if r.key == run.key]
        if not records:
            runs.append(run)
            continue
        definition = suite(records[0].suite_ref)
        named = _named(errata.of_suite(definition.name), definition)
        if not named:
            runs.append(run)
            continue
        corrected, changes = corrected_records(records, named, definition, judge_of(definition))
        summary = summarize_run(definition, run.key, corrected, session.settings.bootstrap)
        errata_summary = ErrataSummary(summary.metrics, summary.n_scored, tuple(changes))
        runs.append(replace(run, errata=errata_summary))
    session.report = replace(report, runs=tuple(runs))
    return session


def _named(entries: Sequence[Erratum], suite: Suite) -> dict[str, Erratum]:
    return {suite.erratum_item(entry.item): entry for entry in entries}


def corrected_records(
    records: Sequence[Record], named: Mapping[str, Erratum], suite: Suite, judge: Judge
) -> tuple[list[Record], list[ErratumChange]]:
    """The run's records with the errata applied (excluded ones left out), and each change."""
    kept, changes = [], []
    for record in records:
        erratum = named.get(record.id)
        if erratum is None:
            kept.append(record)
            continue
        change = ErratumChange(
            record.id, record.repeat, erratum.exclude, erratum.reason, erratum.source, erratum.gold, record.correct
        )
        if erratum.exclude:
            changes.append(change)
            continue
        again = rejudged(record, suite, judge, record.key.judge, erratum.gold)
        kept.append(again)
        changes.append(replace(change, corrected=again.correct))
    return kept, changes
