"""The tables of the HTML page: settings, gates, a suite's runs side by side, paired
comparisons and the items that flipped. Every string from the report is escaped."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any
from urllib.parse import quote

from ..analysis.session_report import Headline
from ..framework.figures import format_number, run_labels
from ..results.clusters import cluster_note
from ..results.records import (
    Comparison,
    FlippedItem,
    GateVerdict,
    Metric,
    PairedMetric,
    Report,
    RunKey,
    RunSummary,
    Unpaired,
)
from .report_figures import format_p
from .terminal import interval_text, no_headline_value
from .usage_table import usage_rows

DASH = "\u2014"
FAIL_BADGE = '<span class="badge fail">FAIL</span>'


def e(value: Any) -> str:
    return escape(str(value), quote=True)


def table(rows: str, caption: str = "") -> str:
    """A table that scrolls sideways on a narrow screen instead of widening the page."""
    head = f"<caption>{e(caption)}</caption>" if caption else ""
    return f'<div class="scroll"><table>{head}{rows}</table></div>'


def item_link(suite: str, item_id: str) -> str:
    """A link that opens the item in the explorer."""
    return f'<a class="item-link" href="#item={e(quote(f"{suite}/{item_id}", safe=""))}">{e(item_id)}</a>'


def settings_table(report: Report) -> str:
    rows = "".join(f"<tr><th>{e(key)}</th><td>{e(_setting(value))}</td></tr>" for key, value in report.settings.items())
    return table(rows) if rows else ""


def _setting(value: Any) -> str:
    if value is None:
        return DASH
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value) or DASH
    if isinstance(value, Mapping):
        return json.dumps(value, sort_keys=True)
    return str(value)


def gates_table(gates: Sequence[GateVerdict]) -> str:
    rows = []
    for gate in gates:
        verdict = '<span class="badge pass">PASS</span>' if gate.passed else FAIL_BADGE
        mde = e(format_number(gate.mde)) if gate.mde is not None else DASH
        rows.append(
            f"<tr><td>{verdict}</td><td><code>{e(gate.expression)}</code></td>"
            f'<td>{e(gate.detail)}</td><td class="num">{mde}</td></tr>'
        )
    return table("<tr><th>verdict</th><th>gate</th><th>detail</th><th>MDE</th></tr>" + "".join(rows))


def runs_table(report: Report, suite: str) -> str:
    """Metrics as rows and the suite's runs as columns (it stays narrow with many metrics)."""
    runs = report.runs_of(suite)
    if not runs:
        return '<p class="note">No runs of this suite in the report (comparisons only).</p>'
    labels = run_labels(runs)
    head = "<tr><th></th>" + "".join(f'<th scope="col">{e(label)}</th>' for label in labels) + "</tr>"
    rows = [_count_row("items", runs, _items), _count_row("scored", runs, lambda r: str(r.n_scored))]
    for name, attribute in (("errors", "n_errors"), ("invalid", "n_invalid")):
        if any(getattr(r, attribute) for r in runs):
            rows.append(_count_row(name, runs, lambda r, a=attribute: str(getattr(r, a))))
    if any(r.subset for r in runs):
        rows.append(_count_row("subset", runs, lambda r: f"{r.subset.n} of {r.subset.of}" if r.subset else "all"))
    for metric in dict.fromkeys(m for r in runs for m in r.metrics):
        rows.append(
            f"<tr><th>{e(metric)}</th>" + "".join(_estimate_cell(r.metrics.get(metric)) for r in runs) + "</tr>"
        )
    if any(r.flakiness for r in runs):
        rows.extend(_flakiness_rows(runs))
    scalars = list(
        dict.fromkeys(
            k for r in runs for k, v in r.extra.items() if isinstance(v, (int, float)) and not isinstance(v, bool)
        )
    )
    for name in scalars:
        rows.append(
            f"<tr><th>{e(name)}</th>"
            + "".join(f'<td class="num">{e(_scalar(r.extra.get(name)))}</td>' for r in runs)
            + "</tr>"
        )
    notes = dict.fromkeys(
        text for run in runs for text in (run.note, run.gate_blocker, cluster_note(run.n_clusters)) if text
    )
    caption = "".join(f'<p class="note">{e(note)}</p>' for note in notes)
    return table(head + "".join(rows)) + caption


def usage_table(report: Report, suite: str) -> str:
    """Tokens, latency and cost of the suite's runs, runs as columns; empty when none was measured."""
    runs = report.runs_of(suite)
    rows = usage_rows(report, runs)
    if not rows:
        return ""
    head = "<tr><th></th>" + "".join(f'<th scope="col">{e(label)}</th>' for label in run_labels(runs)) + "</tr>"
    body = "".join(
        f"<tr><th>{e(label)}</th>" + "".join(f'<td class="num">{e(cell)}</td>' for cell in cells) + "</tr>"
        for label, cells in rows
    )
    return table(head + body, "tokens, latency and cost")


def _items(run: RunSummary) -> str:
    return f"{run.n_distinct} \u00d7 {run.repeats} repeats" if run.repeats > 1 else str(run.n_items)


def _count_row(name: str, runs: Sequence[RunSummary], value: Any) -> str:
    return f"<tr><th>{e(name)}</th>" + "".join(f'<td class="num">{e(value(r))}</td>' for r in runs) + "</tr>"


def _flakiness_rows(runs: Sequence[RunSummary]) -> list[str]:
    repeats = max(r.flakiness.repeats for r in runs if r.flakiness)
    rows = [
        _count_row(
            "flaky items", runs, lambda r: f"{r.flakiness.flaky} of {r.flakiness.n_items}" if r.flakiness else DASH
        )
    ]
    for label, name in (
        ("repeat agreement", "agreement"),
        (f"pass^{repeats} (all correct)", "pass_all"),
        (f"pass@{repeats} (any correct)", "pass_any"),
    ):
        rows.append(
            f"<tr><th>{e(label)}</th>"
            + "".join(_estimate_cell(getattr(r.flakiness, name)) if r.flakiness else f"<td>{DASH}</td>" for r in runs)
            + "</tr>"
        )
    return rows


def _scalar(value: Any) -> str:
    return DASH if value is None else format_number(value) if isinstance(value, float) else str(value)


def _estimate_cell(estimate: Metric | None, name: str = "") -> str:
    """The value (after the metric's name, if given), with its interval, or n/a and why it
    has none, in a smaller grey line under it."""
    prefix = f"{e(name)} " if name else ""
    if estimate is None or estimate.value is None:
        return f'<td class="num">{prefix}n/a</td>'
    interval = interval_text(estimate.ci, estimate.no_interval)
    return f'<td class="num">{prefix}{format_number(estimate.value)}<br><span class="ci">{e(interval)}</span></td>'


def label_badges(run: RunSummary) -> str:
    """What makes the run's numbers partial (sample, subset, incomplete), each a badge that
    says why on hover."""
    why = {"sample": run.sample, "incomplete": run.incomplete}
    badges = "".join(
        f'<span class="badge partial" title="{e(why.get(label, "the selection covered part of the suite"))}">'
        f"{e(label)}</span>"
        for label in run.labels
    )
    return f"<br>{badges}" if badges else ""


def comparisons_table(report: Report, comparisons: Sequence[Comparison]) -> str:
    head = "".join(
        f"<th>{h}</th>"
        for h in (
            "A",
            "B",
            "source",
            "paired",
            "only A",
            "only B",
            "flipped",
            "metric",
            "A \u2212 B [CI]",
            "p",
            "Holm p",
            "test",
            "MDE",
        )
    )
    keys = report.keys_of(comparisons[0].suite) or None
    rows = []
    for comparison in comparisons:
        metrics: list[tuple[str, PairedMetric | None]] = list(comparison.metrics.items()) or [("", None)]
        span = f' rowspan="{len(metrics)}"' if len(metrics) > 1 else ""
        label_a, label_b = comparison.labels(keys)
        shared = (
            f"<td{span}>{e(label_a)}</td><td{span}>{e(label_b)}</td>"
            f"<td{span}>{e(comparison.source)}</td>"
            f'<td class="num"{span}>{e(comparison.n_paired)}</td>'
            + "".join(f'<td class="num"{span}>{_only(o)}</td>' for o in (comparison.only_a, comparison.only_b))
            + f'<td class="num"{span}>{len(comparison.flipped)}</td>'
        )
        for index, (metric, cell) in enumerate(metrics):
            lead = shared if index == 0 else ""
            if cell is None:
                rows.append(f'<tr>{lead}<td colspan="6" class="note">no items scored by both</td></tr>')
                continue
            sig = ' class="sig"' if cell.p_holm is not None and cell.p_holm < 0.05 else ""
            rows.append(
                f"<tr{sig}>{lead}<td>{e(metric)}</td>{_difference_cell(cell)}"
                f'<td class="num">{_p(cell.p_value)}</td><td class="num">{_p(cell.p_holm)}</td>'
                f'<td>{e(cell.test)}</td><td class="num">{e(_scalar(cell.mde))}</td></tr>'
            )
    note = '<p class="note">Bold: Holm-adjusted p &lt; 0.05. A \u2212 B on the items both runs scored.</p>'
    notes = dict.fromkeys(text for c in comparisons if (text := cluster_note(c.n_clusters)))
    return table(f"<tr>{head}</tr>{''.join(rows)}") + note + "".join(f'<p class="note">{e(n)}</p>' for n in notes)


def _only(side: Unpaired) -> str:
    """The count, with the named ids (up to the report's limit) as a tooltip."""
    hint = f' title="{e(", ".join(side.ids))}"' if side.ids else ""
    return f"<span{hint}>{e(side.count)}</span>"


def _difference_cell(cell: PairedMetric) -> str:
    if cell.difference is None:
        return '<td class="num diff">n/a</td>'
    interval = interval_text(cell.ci, cell.no_interval)
    return f'<td class="num diff">{cell.difference:+.3f} <span class="ci">{e(interval)}</span></td>'


def _p(p: float | None) -> str:
    return DASH if p is None else e(format_p(p))


def flipped_tables(report: Report) -> str:
    """Per comparison with flips: the items whose verdict differs, worse in A first."""
    parts = []
    for comparison in report.comparisons:
        if not comparison.flipped:
            continue
        label_a, label_b = comparison.labels(report.keys_of(comparison.suite) or None)
        worse = sum(f.worse_in_a for f in comparison.flipped)
        title = (
            f"{comparison.suite}: {label_a} against {label_b}: {worse} worse in {label_a}, "
            f"{len(comparison.flipped) - worse} better"
        )
        head = f"<tr><th>item</th><th>{e(label_a)}</th><th>{e(label_b)}</th><th></th></tr>"
        rows = "".join(_flip_row(comparison.suite, flip, label_a) for flip in comparison.flipped)
        parts.append(f'<details class="flips"><summary>{e(title)}</summary>{table(head + rows)}</details>')
    return "".join(parts)


def _flip_row(suite: str, flip: FlippedItem, label_a: str) -> str:
    direction, badge = ("worse", "fail") if flip.worse_in_a else ("better", "pass")
    return (
        f'<tr><td>{item_link(suite, flip.id)}</td><td class="num">{_share(flip.a)}</td>'
        f'<td class="num">{_share(flip.b)}</td>'
        f'<td><span class="badge {badge}">{direction} in {e(label_a)}</span></td></tr>'
    )


def _share(value: float) -> str:
    """A verdict (correct, wrong) or, over repeats, the share judged correct."""
    if value in (0.0, 1.0):
        return "\u2713" if value == 1.0 else "\u2717"
    return f"{value:.2f} correct"


def judge_tables(report: Report, suite: str) -> str:
    """Per run graded by a panel of yes/no judges: each judge's accuracy, each pair's
    difference and Cohen's kappa, and the items where the judges disagree (links into the
    explorer, whose "judges disagree" filter shows them all)."""
    runs = report.runs_of(suite)
    parts = []
    for run, label in zip(runs, run_labels(runs)):
        sensitivity = run.judge_sensitivity
        if sensitivity is None:
            continue
        head = "<tr><th>judge</th><th>accuracy [95% CI]</th></tr>"
        rows = "".join(
            f"<tr><td>{e(name)}</td>{_estimate_cell(sensitivity.accuracy.get(name))}</tr>"
            for name in sensitivity.judges
        )
        caption = f"{label}: {sensitivity.n} records judged by every judge"
        pair_head = (
            "<tr><th>A</th><th>B</th><th>A \u2212 B [CI]</th><th>p</th><th>Cohen's kappa [CI]</th><th>agree</th></tr>"
        )
        pair_rows = "".join(
            f"<tr><td>{e(pair.a)}</td><td>{e(pair.b)}</td>{_difference_cell(pair.difference)}"
            f'<td class="num">{_p(pair.difference.p_value)}</td>{_estimate_cell(pair.kappa)}'
            f'<td class="num">{pair.agree} of {pair.n}</td></tr>'
            for pair in sensitivity.pairs
        )
        parts.append(table(head + rows, caption) + table(pair_head + pair_rows))
        if sensitivity.disagreements:
            judge_head = "".join(f"<th>{e(name)}</th>" for name in sensitivity.judges)
            listed = "".join(
                f"<tr><td>{item_link(suite, item)}</td>"
                + (f'<td class="num">{repeat}</td>' if run.repeats > 1 else "")
                + "".join(f'<td class="num">{_share(float(verdicts[name]))}</td>' for name in sensitivity.judges)
                + "</tr>"
                for item, repeat, verdicts in sensitivity.disagreements
            )
            repeat_head = "<th>repeat</th>" if run.repeats > 1 else ""
            summary = f"The judges disagree on {len(sensitivity.disagreements)} of {sensitivity.n} records"
            parts.append(
                f'<details class="disagreements"><summary>{e(summary)}</summary>'
                f"{table(f'<tr><th>item</th>{repeat_head}{judge_head}</tr>{listed}')}</details>"
            )
    return "".join(parts)


def errata_tables(report: Report, suite: str) -> str:
    """Per run with --memeval-errata: each metric as published and corrected, and every
    record the errata changed (links into the explorer)."""
    runs = report.runs_of(suite)
    parts = []
    for run, label in zip(runs, run_labels(runs)):
        errata = run.errata
        if errata is None:
            continue
        head = "<tr><th>metric</th><th>published [95% CI]</th><th>corrected [95% CI]</th></tr>"
        rows = "".join(
            f"<tr><td>{e(name)}</td>{_estimate_cell(metric)}{_estimate_cell(errata.metrics.get(name))}</tr>"
            for name, metric in run.metrics.items()
            if name in errata.metrics
        )
        caption = f"{label}: published over {run.n_scored} scored records, corrected over {errata.n_scored}"
        changed = "".join(
            f"<tr><td>{item_link(suite, c.id)}</td><td>{'excluded' if c.excluded else e(repr(c.gold))}</td>"
            f'<td class="num">{_verdict(c.published)}</td><td class="num">{_verdict(c.corrected)}</td>'
            f"<td>{e(c.reason)}</td><td>{e(c.source)}</td></tr>"
            for c in errata.changes
        )
        changed_head = (
            "<tr><th>item</th><th>corrected gold</th><th>published</th><th>corrected</th>"
            "<th>reason</th><th>source</th></tr>"
        )
        summary = f"The errata changed {len(errata.changes)} records"
        parts.append(
            table(head + rows, caption)
            + f'<details class="errata"><summary>{e(summary)}</summary>{table(changed_head + changed)}</details>'
        )
    return "".join(parts)


def audit_tables(report: Report, suite: str) -> str:
    """Per audited suite: each judge's false-accept and false-reject rates, and the
    false-accept rate of each kind of wrong answer."""
    parts = []
    for audit in report.judge_audits:
        if audit.suite != suite:
            continue
        kinds = list(dict.fromkeys(kind for row in audit.judges for kind in row.by_kind))
        head = (
            "<tr><th>judge</th><th>false accepts [95% CI]</th><th>wrong answers</th>"
            "<th>false rejects [95% CI]</th><th>correct answers</th>"
            + "".join(f"<th>{e(kind)}</th>" for kind in kinds)
            + "</tr>"
        )
        rows = "".join(
            f"<tr><td>{e(row.judge)}</td>{_estimate_cell(row.false_accept)}"
            f'<td class="num">{row.false_accept.n}</td>{_estimate_cell(row.false_reject)}'
            f'<td class="num">{row.false_reject.n}</td>'
            + "".join(_estimate_cell(row.by_kind.get(kind)) for kind in kinds)
            + "</tr>"
            for row in audit.judges
        )
        unjudged = f"; {audit.unjudged} without a readable verdict" if audit.unjudged else ""
        caption = f"{audit.probes} answers made from the golds of {audit.n_items} items{unjudged}"
        parts.append(table(head + rows, caption))
    return "".join(parts)


def _verdict(correct: bool | None) -> str:
    return "" if correct is None else _share(float(correct))


def headline_tables(report: Report, headlines: Mapping[RunKey, Headline | None]) -> str:
    """The first screen: each suite's headline metric per run with its interval (suites as
    rows, runs as columns), then each paired comparison's difference in that metric."""
    metric_of = {key: h.metric for key, h in headlines.items() if h is not None}
    labelled = {suite: dict(zip(run_labels(report.runs_of(suite)), report.runs_of(suite))) for suite in report.suites()}
    columns = list(dict.fromkeys(label for by_label in labelled.values() for label in by_label))
    rows = []
    for suite, by_label in labelled.items():
        runs = list(by_label.values())
        names = list(dict.fromkeys(metric_of[r.key] for r in runs if r.key in metric_of))
        cells = []
        for column in columns:
            run = by_label.get(column)
            metric = metric_of.get(run.key) if run is not None else None
            if run is None or metric is None:
                cells.append(f"<td>{DASH}</td>")
            else:
                estimate = run.metrics.get(metric)
                if estimate is None or estimate.value is None:
                    shown = f'<td class="num">n/a<br><span class="ci">({e(no_headline_value(run))})</span>'
                else:
                    shown = _estimate_cell(estimate, metric if len(names) > 1 else "").removesuffix("</td>")
                cells.append(shown + label_badges(run) + "</td>")
        lower = any(h.lower_is_better for r in runs if (h := headlines.get(r.key)) is not None)
        rows.append(
            f"<tr><th>{e(suite)}</th><td>{e(', '.join(names)) or DASH}{' (lower is better)' if lower else ''}</td>"
            + "".join(cells)
            + "</tr>"
        )
    head = "<tr><th>suite</th><th>headline metric</th>" + "".join(f"<th>{e(c)}</th>" for c in columns) + "</tr>"
    parts = [table(head + "".join(rows), "Headline metric per run [95% CI]")]
    differences = []
    for comparison in report.comparisons:
        metric = metric_of.get(comparison.a) or metric_of.get(comparison.b)
        if metric not in comparison.metrics:
            metric = next(iter(comparison.metrics), None)
        cell = comparison.metrics.get(metric) if metric is not None else None
        label_a, label_b = comparison.labels(report.keys_of(comparison.suite) or None)
        sig = ' class="sig"' if cell is not None and cell.p_holm is not None and cell.p_holm < 0.05 else ""
        values = (
            f'{_difference_cell(cell)}<td class="num">{_p(cell.p_holm)}</td>'
            if cell is not None
            else '<td colspan="2" class="note">no items scored by both</td>'
        )
        differences.append(
            f"<tr{sig}><td>{e(comparison.suite)}</td><td>{e(label_a)}</td><td>{e(label_b)}</td>"
            f'<td>{e(metric or DASH)}</td>{values}<td class="num">{e(comparison.n_paired)}</td></tr>'
        )
    if differences:
        head = (
            "<tr><th>suite</th><th>A</th><th>B</th><th>metric</th><th>A \u2212 B [95% CI]</th>"
            "<th>Holm p</th><th>paired items</th></tr>"
        )
        parts.append(table(head + "".join(differences), "Paired differences"))
        parts.append('<p class="note">Bold: Holm-adjusted p &lt; 0.05, over every comparison of the session.</p>')
    return "".join(parts)
