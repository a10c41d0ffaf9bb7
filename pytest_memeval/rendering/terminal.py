"""The terminal summary: one table per suite with its runs side by side, fitted to the
terminal's width; then the paired comparisons and the gates.

A table has the metrics as rows and the runs as columns, each cell a value with its
interval. When the cells do not fit on one line the interval goes under its value; when
even that is too wide, the runs are split over several tables of the same rows.
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from ..analysis.session_report import Headline
from ..framework.figures import format_number
from ..printable import printable, shorten
from ..results.clusters import cluster_note
from ..results.records import (
    Cell,
    Comparison,
    GateVerdict,
    JudgeAudit,
    JudgeSensitivity,
    Metric,
    Record,
    Report,
    RunKey,
    RunSummary,
)
from .usage_table import usage_rows

#: the width used when there is no terminal to ask (and the narrowest a table is laid out for)
WIDTH = 100
MIN_WIDTH = 60
#: a row label longer than this is shortened
MAX_LABEL = 34
#: a column grows to show this much of one part of its run's label on one line
MAX_HEADER = 32
#: breakdowns with more cells than this are left to the reports
MAX_CELLS = 10
#: a breakdown cell's name is shortened beyond this many characters
MAX_CELL_NAME = 24
#: flaky item ids named per run
NAMED_FLAKY = 6


def write_line(terminal: Any, line: str, **markup: bool) -> None:
    """One line on pytest's terminal reporter, made printable first."""
    terminal.write_line(printable(line), **markup)


def format_estimate(estimate: Metric) -> str:
    value, interval = _cell(estimate)
    return f"{value} {interval}".strip()


def no_interval_text(reason: str) -> str:
    """Where an interval is not estimable: n/a, and why (stats.estimability)."""
    return f"[n/a: {reason}]" if reason else "[n/a]"


def interval_text(ci: tuple[float | None, float | None], no_interval: str) -> str:
    """An interval as the reports print it, or n/a and why there is none."""
    low, high = ci
    if low is None or high is None:
        return no_interval_text(no_interval)
    return f"[{format_number(low)}, {format_number(high)}]"


def _cell(estimate: Metric | None) -> tuple[str, str]:
    """(value, interval) of a metric; n/a for a metric without a value, blank for none."""
    if estimate is None or estimate.value is None:
        return ("n/a" if estimate is not None else "", "")
    return format_number(estimate.value), interval_text(estimate.ci, estimate.no_interval)


def _value(cell: Cell | None, metric: str | None) -> tuple[str, str]:
    """A breakdown cell's value of `metric`, without its interval (the reports have it)."""
    if cell is None or metric is None:
        return ("", "")
    return (_cell(cell.metrics.get(metric))[0], "")


@dataclass(frozen=True)
class Row:
    label: str
    #: per run: (value, interval); an interval may be empty
    cells: tuple[tuple[str, str], ...]


def suite_rows(runs: Sequence[RunSummary]) -> list[Row]:
    """Counts, metrics, repeat agreement and the smaller breakdowns of a suite's runs."""
    rows = [Row("items", tuple((_items(run), "") for run in runs))]
    for name, count in (("errors", "n_errors"), ("invalid", "n_invalid")):
        if any(getattr(run, count) for run in runs):
            rows.append(Row(name, tuple((str(getattr(run, count)), "") for run in runs)))
    if any(run.subset for run in runs):
        rows.append(
            Row("subset", tuple((f"{run.subset.n} of {run.subset.of}" if run.subset else "all", "") for run in runs))
        )
    for metric in dict.fromkeys(m for run in runs for m in run.metrics):
        rows.append(Row(metric, tuple(_cell(run.metrics.get(metric)) for run in runs)))
    if any(run.flakiness for run in runs):
        rows.extend(_flakiness_rows(runs))
    return rows


def breakdown_lines(runs: Sequence[RunSummary], labels: Sequence[str], width: int = WIDTH) -> list[str]:
    """Per breakdown dimension, its cells as columns and the runs as rows (the first
    metric of the cells, without intervals: the reports have them); a dimension with more
    than MAX_CELLS cells is only named."""
    lines: list[str] = []
    label_width = min(max(len(label) for label in labels), max(12, width // 4))
    for dimension in dict.fromkeys(d for run in runs for d in run.breakdown):
        names = list(dict.fromkeys(c for run in runs for c in run.breakdown.get(dimension, {})))
        first = next((m for run in runs for c in run.breakdown.get(dimension, {}).values() for m in c.metrics), None)
        title = f"by {dimension}" + (f" ({first})" if first else "")
        if len(names) > MAX_CELLS or first is None:
            lines.extend(_wrap(f"{title}: {len(names)} cells, in the reports", "  ", "    ", width))
            continue
        values = [[_value(run.breakdown.get(dimension, {}).get(name), first)[0] for name in names] for run in runs]
        column = max([len(v) for row in values for v in row] + [5])
        widths = [max(column, min(len(name), MAX_CELL_NAME)) for name in names]
        lines.append(f"  {title}")
        for chunk in _chunks(widths, max(width, MIN_WIDTH) - label_width - 4):
            lines.append(
                _row("", [shorten(names[i], widths[i]) for i in chunk], label_width, [widths[i] for i in chunk])
            )
            for label, row in zip(labels, values):
                lines.append(
                    _row(shorten(label, label_width), [row[i] for i in chunk], label_width, [widths[i] for i in chunk])
                )
    return lines


def _chunks(widths: Sequence[int], room: int) -> list[list[int]]:
    """Column indexes grouped so that each group's columns (plus gaps) fit in `room`."""
    chunks: list[list[int]] = [[]]
    used = 0
    for index, column in enumerate(widths):
        if chunks[-1] and used + column + 2 > room:
            chunks.append([])
            used = 0
        chunks[-1].append(index)
        used += column + 2
    return chunks


def _row(label: str, cells: Sequence[str], label_width: int, widths: Sequence[int]) -> str:
    return (f"    {label:<{label_width}}" + "".join(f"  {c:>{w}}" for c, w in zip(cells, widths))).rstrip()


def _items(run: RunSummary) -> str:
    return f"{run.n_distinct} x {run.repeats}" if run.repeats > 1 else str(run.n_items)


def _flakiness_rows(runs: Sequence[RunSummary]) -> list[Row]:
    def column(run: RunSummary, what: str) -> tuple[str, str]:
        flaky = run.flakiness
        if flaky is None:
            return ("", "")
        if what == "flaky":
            return (f"{flaky.flaky} of {flaky.n_items}", "")
        return _cell(getattr(flaky, what))

    repeats = max(run.flakiness.repeats for run in runs if run.flakiness)
    return [
        Row(label, tuple(column(run, what) for run in runs))
        for label, what in (
            ("flaky items", "flaky"),
            ("repeat agreement", "agreement"),
            (f"pass^{repeats} (all correct)", "pass_all"),
            (f"pass@{repeats} (any correct)", "pass_any"),
        )
    ]


def table_lines(
    labels: Sequence[str], rows: Sequence[Row], width: int = WIDTH, column_widths: bool = False
) -> list[str]:
    """Rows x columns fitted to `width`: intervals beside values, under them, or the
    columns split over several tables. Columns share one width (runs side by side), or
    with `column_widths` each is as wide as its own cells (a table of unlike columns)."""
    label_width = min(MAX_LABEL, max(16, width // 3), max([len(r.label) for r in rows] + [8]))
    usable = max(width, MIN_WIDTH) - label_width - 2

    def widths(stacked: bool, header: int) -> list[int]:
        # a column is as wide as its cells and as the longest part of its label (up to `header`)
        def measure(cell: tuple[str, str]) -> int:
            return max(len(cell[0]), len(cell[1])) if stacked else len(_joined(cell))

        heads = [min(header, max(len(part) for part in label.split(" | "))) for label in labels]
        own = [max([measure(r.cells[i]) for r in rows] + [heads[i]]) for i in range(len(labels))]
        return own if column_widths else [max(own + [8])] * len(labels)

    # beside with whole labels, beside with wrapped labels, then the same stacked; else split
    layouts = [(stacked, header) for stacked in (False, True) for header in (MAX_HEADER, 8)]
    stacked, header = next((layout for layout in layouts if sum(w + 2 for w in widths(*layout)) <= usable), layouts[-1])
    cell_widths = widths(stacked, header)
    lines: list[str] = []
    for number, chosen in enumerate(_chunks(cell_widths, usable)):
        if number:
            lines.append("")
        chosen_widths = [cell_widths[i] for i in chosen]
        lines.extend(_header(label_width, [labels[i] for i in chosen], chosen_widths))
        for row in rows:
            label = shorten(row.label, label_width)
            if stacked:
                lines.append(_line(label, [row.cells[i][0] for i in chosen], label_width, chosen_widths))
                if any(row.cells[i][1] for i in chosen):
                    lines.append(_line("", [row.cells[i][1] for i in chosen], label_width, chosen_widths))
            else:
                lines.append(_line(label, [_joined(row.cells[i]) for i in chosen], label_width, chosen_widths))
    return lines


def _joined(cell: tuple[str, str]) -> str:
    return f"{cell[0]} {cell[1]}".strip()


def _header(label_width: int, labels: Sequence[str], widths: Sequence[int]) -> list[str]:
    """Run labels over their columns, broken at ' | ' (then anywhere) to fit."""
    wrapped = [_wrap_label(label, width) for label, width in zip(labels, widths)]
    depth = max(len(w) for w in wrapped)
    return [_line("", [w[i] if i < len(w) else "" for w in wrapped], label_width, widths) for i in range(depth)]


def _wrap_label(label: str, width: int) -> list[str]:
    """A run label in lines of `width`: broken at ' | ', then after ':', '.' or '/' (a
    memory system's import path), then anywhere."""
    lines: list[str] = []
    for part in label.split(" | "):
        if lines and len(lines[-1]) + 3 + len(part) <= width:
            lines[-1] += " | " + part
            continue
        lines.append("")
        for piece in re.split(r"(?<=[:./])", part):
            while len(piece) > width:
                if lines[-1]:
                    lines.append("")
                lines[-1], piece = piece[:width], piece[width:]
                lines.append("")
            if len(lines[-1]) + len(piece) > width:
                lines.append("")
            lines[-1] += piece
        if not lines[-1] and len(lines) > 1:
            lines.pop()
    return lines


def _line(label: str, cells: Iterable[str], label_width: int, widths: Sequence[int]) -> str:
    return (f"  {label:<{label_width}}" + "".join(f"  {c:<{w}}" for c, w in zip(cells, widths))).rstrip()


def suite_lines(report: Report, suite: str, width: int = WIDTH) -> list[str]:
    """The suite's heading, its table, and the notes of its runs."""
    runs = report.runs_of(suite)
    if not runs:
        return []
    keys = [run.key for run in runs]
    labels = [key.label(keys) for key in keys]
    partial = list(dict.fromkeys(label for run in runs for label in run.labels))
    heading = suite + (f"  ({', '.join(partial)})" if partial else "")
    lines = [heading, *table_lines(labels, suite_rows(runs), width), *breakdown_lines(runs, labels, width)]
    usage = [Row(label, tuple((cell, "") for cell in cells)) for label, cells in usage_rows(report, runs)]
    if usage:
        lines += ["  tokens, latency and cost", *table_lines(labels, usage, width)]
    lines += _notes("note", {label: run.note for run, label in zip(runs, labels)}, width)
    lines += _notes("note", {label: cluster_note(run.n_clusters) for run, label in zip(runs, labels)}, width)
    lines += _notes("not gated", {label: run.gate_blocker for run, label in zip(runs, labels)}, width)
    flaky = {
        label: ", ".join(run.flakiness.flaky_ids[:NAMED_FLAKY]) + (", ..." if run.flakiness.flaky > NAMED_FLAKY else "")
        for run, label in zip(runs, labels)
        if run.flakiness and run.flakiness.flaky
    }
    lines += _notes("flaky", flaky, width)
    for run, label in zip(runs, labels):
        lines += judge_lines(run.judge_sensitivity, label, width) if run.judge_sensitivity else []
        lines += errata_lines(run, label, width) if run.errata is not None else []
    for audit in report.judge_audits:
        lines += audit_lines(audit, width) if audit.suite == suite else []
    return lines


#: changed item ids named per run
NAMED_CHANGES = 5


def audit_lines(audit: JudgeAudit, width: int = WIDTH) -> list[str]:
    """Each judge's false-accept rate on wrong answers and false-reject rate on paraphrases."""
    unjudged = f", {audit.unjudged} without a readable verdict" if audit.unjudged else ""
    head = f"judge audit ({audit.suite}): {audit.probes} answers made from {audit.n_items} items' golds{unjudged}:"
    lines = _wrap(head, "  ", "    ", width)
    name_width = min(MAX_LABEL, max((len(row.judge) for row in audit.judges), default=0))
    for row in audit.judges:
        accepts, rejects = row.false_accept, row.false_reject
        text = (
            f"{shorten(row.judge, name_width):<{name_width}}  false accepts {format_estimate(accepts)} of "
            f"{accepts.n} wrong answers, false rejects {format_estimate(rejects)} of {rejects.n} correct ones"
        )
        lines += _wrap(text, "    ", "      ", width)
        kinds = ", ".join(f"{kind} {format_estimate(metric)}" for kind, metric in row.by_kind.items())
        lines += _wrap(f"false accepts by kind: {kinds}", "      ", "        ", width) if kinds else []
    return lines


def errata_lines(run: RunSummary, label: str, width: int = WIDTH) -> list[str]:
    """Each metric as published and with --memeval-errata applied, and the records changed."""
    errata = run.errata
    if errata is None:
        return []
    changes = errata.changes
    excluded = sum(c.excluded for c in changes)
    flipped = sum(not c.excluded and c.published != c.corrected for c in changes)
    head = (
        f"errata ({label}): {len(changes)} records changed ({excluded} excluded, {len(changes) - excluded} "
        f"judged against a corrected gold, {flipped} of them with another verdict); "
        f"published over {run.n_scored}, corrected over {errata.n_scored} scored records:"
    )
    lines = _wrap(head, "  ", "    ", width)
    names = [name for name in run.metrics if name in errata.metrics]
    name_width = min(MAX_LABEL, max((len(name) for name in names), default=0))
    for name in names:
        published, corrected = format_estimate(run.metrics[name]), format_estimate(errata.metrics[name])
        lines.append(f"    {shorten(name, name_width):<{name_width}}  {published} published, {corrected} corrected")
    ids = list(dict.fromkeys(c.id for c in changes))
    named = ", ".join(ids[:NAMED_CHANGES]) + (", ..." if len(ids) > NAMED_CHANGES else "")
    return lines + _wrap(f"changed: {named}", "    ", "      ", width)


#: disagreeing item ids named per run
NAMED_DISAGREEMENTS = 5


def judge_lines(sensitivity: JudgeSensitivity, label: str, width: int = WIDTH) -> list[str]:
    """How much the judge moves the number: each judge's accuracy, each pair's difference
    and Cohen's kappa, and the items where the judges disagree."""
    lines = _wrap(f"judge sensitivity ({label}), {sensitivity.n} records judged by every judge:", "  ", "    ", width)
    name_width = min(MAX_LABEL, max(len(name) for name in sensitivity.judges))
    for name in sensitivity.judges:
        estimate = format_estimate(sensitivity.accuracy[name])
        lines.append(f"    {shorten(name, name_width):<{name_width}}  accuracy {estimate}")
    for pair in sensitivity.pairs:
        difference = pair.difference
        moved = "n/a" if difference.difference is None else f"{difference.difference:+.3f}"
        if difference.has_ci:
            moved += f" [{difference.ci[0]:+.3f}, {difference.ci[1]:+.3f}]"
        elif difference.difference is not None:
            moved += " " + no_interval_text(difference.no_interval)
        # with two judges the first minus the second; with more, each pair is named
        named = f"{pair.a} minus {pair.b}: " if len(sensitivity.pairs) > 1 else ""
        text = (
            f"{named}difference {moved}, Cohen's kappa {format_estimate(pair.kappa)}, agree on {pair.agree} of {pair.n}"
        )
        lines += _wrap(text, "    ", "      ", width)
    ids = list(dict.fromkeys(item for item, _, _ in sensitivity.disagreements))
    if ids:
        named = ", ".join(ids[:NAMED_DISAGREEMENTS]) + (", ..." if len(ids) > NAMED_DISAGREEMENTS else "")
        lines += _wrap(f"the judges disagree on {len(ids)} items: {named}", "    ", "      ", width)
    return lines


def _notes(kind: str, texts: Mapping[str, str], width: int) -> list[str]:
    """One note for texts every run shares, otherwise one per run that has one."""
    present = {label: text for label, text in texts.items() if text}
    if not present:
        return []
    if len(set(present.values())) == 1 and len(present) == len(texts):
        return _wrap(f"{kind}: {next(iter(present.values()))}", "  ", "    ", width)
    return [line for label, text in present.items() for line in _wrap(f"{kind} ({label}): {text}", "  ", "    ", width)]


#: test names as the terminal shows them
SHORT_TESTS = {"paired_cluster_bootstrap": "bootstrap", "mcnemar_exact": "McNemar", "cluster_sign_flip": "sign-flip"}
#: flipped item ids named per comparison and direction
NAMED_FLIPS = 5


def comparison_lines(comparison: Comparison, width: int = WIDTH, among: Sequence[RunKey] | None = None) -> list[str]:
    label_a, label_b = comparison.labels(among)
    n = comparison.n_clusters
    clusters = f" in {n} cluster{'s' if n != 1 else ''}" if n is not None else ""
    head = f"{comparison.suite}: {label_a}  minus  {label_b}  ({comparison.n_paired} paired items{clusters})"
    lines = _wrap(head, "", "    ", width)
    note = cluster_note(comparison.n_clusters)
    if note:
        lines.extend(_wrap(note, "  ", "    ", width))
    for unpaired, who in ((comparison.only_a, label_a), (comparison.only_b, label_b)):
        if unpaired.count:
            names = ", ".join(unpaired.ids[:3]) + (", ..." if unpaired.count > 3 else "")
            lines.extend(_wrap(f"{unpaired.count} items scored only in {who}: {names}", "  ", "    ", width))
    lines.extend(_flip_lines(comparison, label_a, width))
    if not comparison.metrics:
        return lines
    rows = []
    for name, cell in comparison.metrics.items():
        if cell.difference is None:
            diff, interval = "n/a", ""
        else:
            diff = f"{cell.difference:+.3f}"
            interval = f"[{cell.ci[0]:+.3f}, {cell.ci[1]:+.3f}]" if cell.has_ci else no_interval_text(cell.no_interval)
        rows.append(
            Row(
                name,
                (
                    (diff, interval),
                    (_number(cell.p_value, 4), ""),
                    (_number(cell.p_holm, 4), ""),
                    (_number(cell.mde, 3), ""),
                    (SHORT_TESTS.get(cell.test, cell.test), ""),
                ),
            )
        )
    return lines + table_lines(["diff [95% CI]", "p", "p Holm", "MDE", "test"], rows, width, column_widths=True)


def _flip_lines(comparison: Comparison, label_a: str, width: int) -> list[str]:
    worse = [f.id for f in comparison.flipped if f.worse_in_a]
    better = [f.id for f in comparison.flipped if not f.worse_in_a]
    lines = []
    for ids, how in ((worse, "worse"), (better, "better")):
        if ids:
            names = ", ".join(ids[:NAMED_FLIPS]) + (", ..." if len(ids) > NAMED_FLIPS else "")
            lines.extend(_wrap(f"{len(ids)} items {how} in {label_a}: {names}", "  ", "    ", width))
    return lines


def gate_lines(gate: GateVerdict, width: int = WIDTH) -> list[str]:
    verdict = "PASS" if gate.passed else "FAIL"
    detail = gate.detail
    if gate.mde is not None:
        detail += f"; smallest detectable effect {gate.mde:.3f}"
    return [f"  {verdict}  {gate.expression}", *_wrap(detail, "        ", "        ", width)]


def _number(value: float | None, digits: int) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _wrap(text: str, first: str, rest: str, width: int = WIDTH) -> list[str]:
    return textwrap.wrap(
        text, max(width, MIN_WIDTH), initial_indent=first, subsequent_indent=rest, break_on_hyphens=False
    ) or [first]


def terminal_width(terminal: pytest.TerminalReporter) -> int:
    try:
        return int(terminal.config.get_terminal_writer().fullwidth)
    except (AttributeError, ValueError, TypeError):  # a reporter without a writer: the default
        return WIDTH


def write_summary(terminal: pytest.TerminalReporter, report: Report) -> None:
    if not report.runs:
        return
    width = terminal_width(terminal)
    terminal.write_sep("=", "memeval summary")
    for index, suite in enumerate(report.suites()):
        if index:
            terminal.write_line("")
        for line in suite_lines(report, suite, width):
            write_line(terminal, line)
    if report.comparisons:
        terminal.write_sep("-", "paired comparisons (p Holm-adjusted over the session)")
        for comparison in report.comparisons:
            for line in comparison_lines(comparison, width, report.keys_of(comparison.suite) or None):
                write_line(terminal, line)
    if report.gates:
        terminal.write_sep("-", "gates")
        for gate in report.gates:
            for line in gate_lines(gate, width):
                write_line(terminal, line, green=gate.passed, red=not gate.passed)
    for line in fingerprint_lines(report, width):
        write_line(terminal, line)


def fingerprint_lines(report: Report, width: int = WIDTH) -> list[str]:
    """The protocol's short form (what a published number names), and any comparison made
    across protocols."""
    if report.fingerprint is None:
        return []
    lines = [f"memeval fingerprint: {report.fingerprint.short()}"]
    for note in report.protocol_notes:
        lines.extend(_wrap(note, "  ", "    ", width))
    return lines


def headline_of(run: RunSummary) -> Headline | None:
    """The run's first metric, for a report read without its suites (None: no metric)."""
    name = next(iter(run.metrics), None)
    return None if name is None else Headline(name)


def headline_text(run: RunSummary, headline: Headline | None) -> str:
    """The headline metric with its interval, or n/a and why the run has no value of it."""
    if headline is None:
        return ""
    metric = run.metrics.get(headline.metric)
    if metric is not None and metric.value is not None:
        text = f"{headline.metric} {format_estimate(metric)}"
        return text + (" (lower is better)" if headline.lower_is_better else "")
    return f"{headline.metric} n/a ({no_headline_value(run)})"


def no_headline_value(run: RunSummary) -> str:
    """Why a run has no value of its suite's headline metric."""
    return "no item scored" if not run.n_scored else "not defined on the items that ran"


#: what each label of a run means, under the closing table
LABEL_LEGEND = {
    "sample": "sample: generated data, not the benchmark's release (--memeval-data DIR reads it)",
    "subset": "subset N of M: the selection (-k, -m, --lf, --deselect, one shard) ran N of the suite's M items",
}


def label_legend(report: Report) -> list[str]:
    """One line per kind of label the runs carry: what it means (incomplete: what ran)."""
    kinds = {label.split(" ", 1)[0] for run in report.runs for label in run.labels}
    lines = [text for kind, text in LABEL_LEGEND.items() if kind in kinds]
    if "incomplete" in kinds and report.incomplete is not None:
        lines.append(f"incomplete: {report.incomplete.text()}")
    elif "incomplete" in kinds:
        lines.append("incomplete: some selected items have no score")
    return lines


def wrong_answers_text(n_wrong: int, printed: int | None, files: Sequence[tuple[str, str]]) -> str:
    """What the wrong answers are and where each one is: `printed` counts the WRONG lines
    above (None: each has one), the rest are records of the reports (a resumed run's
    earlier answers, a merge's)."""
    head = f"{n_wrong:,} wrong answers are the benchmark's findings, not a broken run"
    if printed is None or printed >= n_wrong:
        return f"{head}: each is a WRONG line above, and a failed test to pytest."
    where = (
        "in the reports (their records, the HTML item explorer)"
        if files
        else "in the records of a report (--memeval-report)"
    )
    if printed == 0:
        return f"{head}: each is {where}."
    rest = n_wrong - printed
    return (
        f"{head}: {printed:,} are WRONG lines above (this session's); the other {rest:,} were resumed from "
        f"the journal and are {where}."
    )


def overview_lines(
    report: Report,
    headlines: Mapping[RunKey, Headline | None],
    files: Sequence[tuple[str, str]],
    width: int = WIDTH,
    wrong_printed: int | None = None,
    counted: Sequence[Record] | None = None,
) -> tuple[str, list[str]]:
    """The closing overview, for a newcomer: the heading (items, suites, memory systems),
    one line per run (items, wrong answers, errors, what makes its numbers partial, the
    headline metric with its interval), what the labels and the wrong answers are, and where
    the reports are. `wrong_printed` counts the WRONG lines printed above (None: all);
    `counted`: the records to count wrong answers in (None: the report's)."""
    systems = list(dict.fromkeys(run.key.memsystem for run in report.runs))
    n_items = sum(run.n_items for run in report.runs)
    suites = report.suites()
    heading = (
        f"memeval: {n_items:,} items, {len(suites)} suite{'s' if len(suites) != 1 else ''}, "
        f"memory system{'s' if len(systems) != 1 else ''} {', '.join(systems)}"
    )
    counted = report.records if counted is None else counted
    wrong = Counter(r.key for r in counted if r.is_scored and r.correct is False)
    labelled = any(run.labels for run in report.runs)
    table = [
        ["suite", "run", "items", "wrong", "errors", *(["labels"] if labelled else []), "headline metric [95% CI]"]
    ]
    for suite in suites:
        runs = report.runs_of(suite)
        keys = [run.key for run in runs]
        for run in runs:
            errors = run.n_errors + run.n_invalid
            row = [suite, run.key.label(keys), f"{run.n_items:,}", f"{wrong[run.key]:,}", f"{errors:,}"]
            row += [", ".join(run.labels)] if labelled else []
            table.append([*row, headline_text(run, headlines.get(run.key))])
    head = table[0]
    widths = [max(len(row[i]) for row in table) for i in range(len(head) - 1)]
    lines = []
    for row in table:
        cells = [
            row[0].ljust(widths[0]),
            row[1].ljust(widths[1]),
            *(row[i].rjust(widths[i]) for i in (2, 3, 4)),
            *([row[5].ljust(widths[5])] if labelled else []),
            row[-1],
        ]
        lines.append("  ".join(cells).rstrip())
    for legend in label_legend(report):
        lines.extend(_wrap(legend, "", "  ", width))
    n_wrong = sum(wrong.values())
    if n_wrong:
        lines.extend(_wrap(wrong_answers_text(n_wrong, wrong_printed, files), "", "", width))
    lines.extend(f"{kind}: {path}" for kind, path in files)
    return heading, lines


def write_overview(
    terminal: pytest.TerminalReporter,
    report: Report,
    headlines: Mapping[RunKey, Headline | None],
    files: Sequence[tuple[str, str]],
    wrong_printed: int | None = None,
    counted: Sequence[Record] | None = None,
) -> None:
    if not report.runs:
        return
    heading, lines = overview_lines(report, headlines, files, terminal_width(terminal), wrong_printed, counted)
    terminal.write_sep("=", printable(heading))
    for line in lines:
        write_line(terminal, line)
