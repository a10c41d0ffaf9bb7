"""The session's report written out: the JSON report and the HTML page (a failure is one
line that fails the run), and the terminal's summary tables and closing overview."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from msgspec.structs import replace

from ..analysis.session_report import SessionReport, SuiteLookup
from ..files.atomic_file import write_atomic
from ..results.records import report_chunks
from ..running.adapter_guard import describe
from .html import write_html
from .terminal import write_line, write_overview, write_summary


def write_files(session: SessionReport, suite: SuiteLookup) -> None:
    """Write the JSON report and the HTML page; a failure is one line in
    `session.write_errors`, and fails the run."""
    settings, report = session.settings, session.report
    if settings.report is not None:
        _write(session, settings.report, "--memeval-report", lambda path: write_atomic(path, report_chunks(report)))
    if settings.html is not None:
        refs = {r.key.suite: r.suite_ref for r in session.counted}
        counted = replace(report, records=session.counted)  # what the statistics read, in memory
        figures = {name: suite(refs[name]).figures(counted) for name in report.suites() if name in refs}
        _write(
            session, settings.html, "--memeval-html", lambda path: write_html(path, report, figures, session.headlines)
        )


def _write(session: SessionReport, path: Path, option: str, write: Callable[[Path], None]) -> None:
    try:
        write(path)
    except OSError as exc:
        session.write_errors.append(f"{option}: cannot write {path}: {exc.strerror or exc}")
    except ValueError as exc:  # a number JSON cannot hold reached the report
        session.write_errors.append(f"{option}: not written, {describe(exc)}")


def write_terminal(session: SessionReport, terminal: pytest.TerminalReporter, wrong_printed: int | None = None) -> None:
    """The summary tables, then the closing overview; `wrong_printed` counts the WRONG
    lines printed above them (None: one per wrong answer)."""
    settings, report = session.settings, session.report
    write_summary(terminal, report)
    for error in report.session_errors:
        write_line(terminal, f"memeval: session error: {error}", red=True)
    if session.n_errors > settings.max_errors:
        terminal.write_line(
            f"memeval: {session.errors_text()} (--memeval-max-errors={settings.max_errors}): the run fails",
            red=True,
        )
    if session.snapshot_changes:
        terminal.write_line(
            f"memeval: {len(session.snapshot_changes)} verdicts differ from their snapshots "
            "(review the diffs; record with --snapshot-update): the run fails",
            red=True,
        )
    for error in session.write_errors:
        write_line(terminal, f"memeval: {error}: the run fails", red=True)
    files = []
    if not session.write_errors:
        if settings.report is not None:
            files.append(("memeval report", str(settings.report)))
        if settings.html is not None:
            files.append(("memeval html", str(settings.html)))
        if settings.bundle is not None:
            files.append(("memeval bundle", str(settings.bundle)))
    write_overview(terminal, report, session.headlines, files, wrong_printed, session.counted)
