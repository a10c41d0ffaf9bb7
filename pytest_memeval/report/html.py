"""One self-contained HTML page for a memeval report: tables, gates and SVG figures.

The page loads nothing: CSS is inline, figures are inline SVG, there is no script, and a
Content-Security-Policy of default-src 'none' makes the browser refuse any request the
markup might still contain. Every string from the report is escaped.
"""

from __future__ import annotations

import json
import os
from html import escape
from typing import Any, Mapping, Sequence, Union

from ..records import SCHEMA, Comparison, GateVerdict, Metric, PairedMetric, Report, Unpaired
from .figures import Estimate, Figure, format_number
from .report_figures import breakdown_figures, comparison_figure, format_p, run_labels
from .svg import render_svg

ExtraFigures = Union[Sequence[Figure], Mapping[str, Sequence[Figure]]]
CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
DASH = "\u2014"
FAIL_BADGE = '<span class="badge fail">FAIL</span>'
COUNTS = ("n_items", "n_scored", "n_errors", "n_invalid")
STYLE = """
:root { color-scheme: light; }
body { margin: 0; background: #f6f7f9; color: #222; font: 14px/1.45 system-ui, -apple-system, 'Segoe UI',
       'DejaVu Sans', 'Liberation Sans', Arial, sans-serif; }
main { max-width: 1040px; margin: 0 auto; padding: 8px 24px 48px; }
header { background: #1f2937; color: #fff; padding: 18px 24px; }
header h1 { margin: 0 0 4px; font-size: 22px; }
header p { margin: 0; color: #d1d5db; }
h2 { margin: 32px 0 8px; padding-bottom: 4px; border-bottom: 2px solid #d0d4da; font-size: 19px; }
h3 { margin: 22px 0 6px; font-size: 16px; }
nav a { margin-right: 14px; color: #1d4ed8; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; background: #fff; margin: 8px 0; font-size: 13px; }
th, td { padding: 5px 10px; border-bottom: 1px solid #e5e7eb; text-align: left; vertical-align: top; }
th { background: #eef0f3; font-weight: 600; white-space: nowrap; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.ci { color: #6b7280; font-size: 12px; }
tr.sig td.diff { font-weight: 700; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-weight: 700; font-size: 12px; }
.pass { background: #dcfce7; color: #14532d; }
.fail { background: #fee2e2; color: #7f1d1d; }
code { font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; font-size: 12px; }
figure { background: #fff; border: 1px solid #e5e7eb; border-radius: 6px; padding: 10px; margin: 14px 0;
         overflow-x: auto; }
figure svg { display: block; max-width: 100%; height: auto; }
figcaption { color: #4b5563; font-size: 13px; margin-top: 4px; }
details > summary { cursor: pointer; color: #1d4ed8; margin: 8px 0; }
.note { color: #4b5563; font-size: 13px; }
"""


def render_html(report: Report, extra_figures: ExtraFigures = ()) -> str:
    """The whole page as a string; the same report and figures always give the same text.

    `extra_figures` is either a list, shown in a closing "Suite figures" section, or a
    mapping from suite name to its figures, shown in that suite's section.
    """
    page = _Page()
    names = report.suites()
    by_suite = extra_figures if isinstance(extra_figures, Mapping) else {}
    loose = [] if isinstance(extra_figures, Mapping) else list(extra_figures)
    loose += [figure for suite, figures in by_suite.items() if suite not in names for figure in figures]
    sections = [_settings_section(report), _gates_section(report.gates)]
    sections += [_suite_section(report, suite, page, by_suite.get(suite, ())) for suite in names]
    if loose:
        figures = "".join(page.figure(f) for f in loose)
        sections.append(f'<section id="suite-figures"><h2>Suite figures</h2>{figures}</section>')
    return "".join([
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',  # a constant: no escaping
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>memeval report</title><style>{STYLE}</style></head><body>",
        _header(report), "<main>", _navigation(report, bool(loose)), *sections, "</main></body></html>\n",
    ])


def write_html(path: str | os.PathLike[str], report: Report, extra_figures: ExtraFigures = ()) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(render_html(report, extra_figures))


class _Page:
    """Numbers the figures of one page, so every SVG id is unique and stable."""

    def __init__(self) -> None:
        self.count = 0

    def figure(self, figure: Figure) -> str:
        self.count += 1
        caption = f"<figcaption>{_e(figure.caption)}</figcaption>" if figure.caption else ""
        return f"<figure>{render_svg(figure, f'fig-{self.count}')}{caption}</figure>"


def _e(value: Any) -> str:
    return escape(str(value), quote=True)


def _table(rows: str) -> str:
    """A table that scrolls sideways on a narrow screen instead of widening the page."""
    return f'<div class="scroll"><table>{rows}</table></div>'


def _anchor(report: Report, suite: str) -> str:
    """An id of safe characters only; the index keeps it unique when names differ in other ones."""
    slug = "".join(c if c.isascii() and c.isalnum() else "-" for c in suite)
    return f"suite-{report.suites().index(suite) + 1}-{slug}"


def _header(report: Report) -> str:
    runs, gates = report.runs, report.gates
    facts = [f"pytest-memeval {report.plugin_version}", f"schema {SCHEMA}",
             f"{len(runs)} run{'s' if len(runs) != 1 else ''}", f"{len(report.records)} records"]
    if gates:
        failed = sum(1 for g in gates if not g.passed)
        facts.append(f"gates: {len(gates) - failed} passed, {failed} failed")
    return f"<header><h1>memeval report</h1><p>{_e(' · '.join(facts))}</p></header>"


def _navigation(report: Report, extra: bool) -> str:
    links = ['<a href="#settings">Settings</a>'] if report.settings else []
    if report.gates:
        links.append('<a href="#gates">Gates</a>')
    links += [f'<a href="#{_anchor(report, s)}">{_e(s)}</a>' for s in report.suites()]
    if extra:
        links.append('<a href="#suite-figures">Suite figures</a>')
    return f"<nav>{''.join(links)}</nav>"


def _settings_section(report: Report) -> str:
    rows = "".join(f"<tr><th>{_e(key)}</th><td>{_e(_setting(value))}</td></tr>"
                   for key, value in report.settings.items())
    if not rows:
        return ""
    return f'<section id="settings"><h2>Settings</h2>{_table(rows)}</section>'


def _setting(value: Any) -> str:
    if value is None:
        return DASH
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value) or DASH
    if isinstance(value, Mapping):
        return json.dumps(value, sort_keys=True)
    return str(value)


def _gates_section(gates: Sequence[GateVerdict]) -> str:
    if not gates:
        return ""
    rows = []
    for gate in gates:
        verdict = '<span class="badge pass">PASS</span>' if gate.passed else FAIL_BADGE
        mde = gate.mde
        rows.append(f"<tr><td>{verdict}</td><td><code>{_e(gate.expression)}</code></td>"
                    f"<td>{_e(gate.detail)}</td>"
                    f'<td class="num">{_e(format_number(mde)) if mde is not None else DASH}</td></tr>')
    head = "<tr><th>verdict</th><th>gate</th><th>detail</th><th>MDE</th></tr>"
    return f'<section id="gates"><h2>Gates</h2>{_table(head + "".join(rows))}</section>'


def _suite_section(report: Report, suite: str, page: _Page, figures: Sequence[Figure]) -> str:
    parts = [f'<section id="{_anchor(report, suite)}"><h2>Suite: {_e(suite)}</h2>', _summary_table(report, suite)]
    comparisons = [c for c in report.comparisons if c.suite == suite]
    if comparisons:
        parts.append(f"<h3>Paired comparisons</h3>{_comparisons_table(report, comparisons)}")
        forest = comparison_figure(report, suite)
        if forest is not None:
            parts.append(page.figure(forest))
    if figures:
        parts.append(f"<h3>Figures of {_e(suite)}</h3>{''.join(page.figure(f) for f in figures)}")
    for dimension, charts in breakdown_figures(report, suite):
        parts.append(f"<h3>By {_e(dimension)}</h3>{page.figure(charts[0])}")
        if len(charts) > 1:
            others = "".join(page.figure(chart) for chart in charts[1:])
            names = ", ".join(chart.value_label for chart in charts[1:])
            parts.append(f"<details><summary>Other metrics by {_e(dimension)}: {_e(names)}</summary>{others}</details>")
    parts.append("</section>")
    return "".join(parts)


def _summary_table(report: Report, suite: str) -> str:
    runs = report.runs_of(suite)
    if not runs:
        return '<p class="note">No runs of this suite in the report (comparisons only).</p>'
    metrics = list(dict.fromkeys(m for r in runs for m in r.metrics))
    scalars = list(dict.fromkeys(k for r in runs for k, v in r.extra.items()
                                 if isinstance(v, (int, float)) and not isinstance(v, bool)))
    head = "".join(f"<th>{_e(h)}</th>" for h in ("run", "items", "scored", "errors", "invalid", *metrics, *scalars))
    rows = []
    for run, label in zip(runs, run_labels(runs)):
        cells = [f"<td>{_e(label)}</td>"]
        cells += [f'<td class="num">{_e(getattr(run, k))}</td>' for k in COUNTS]
        cells += [_estimate_cell(run.metrics.get(m)) for m in metrics]
        cells += [f'<td class="num">{_e(_scalar(run.extra.get(k)))}</td>' for k in scalars]
        rows.append(f"<tr>{''.join(cells)}</tr>")
    notes = dict.fromkeys(text for run in runs for text in (run.note, run.gate_blocker) if text)
    caption = "".join(f'<p class="note">{_e(note)}</p>' for note in notes)
    return _table(f"<tr>{head}</tr>{''.join(rows)}") + caption


def _scalar(value: Any) -> str:
    return DASH if value is None else format_number(value) if isinstance(value, float) else str(value)


def _estimate_cell(estimate: Metric | None) -> str:
    """The value, with its interval in a smaller grey line under it."""
    coerced = Estimate.coerce(estimate)
    if coerced is None or coerced.value is None:
        return '<td class="num">n/a</td>'
    ci = (f'<br><span class="ci">[{format_number(coerced.lo)}, {format_number(coerced.hi)}]</span>'
          if coerced.has_interval else "")
    return f'<td class="num">{format_number(coerced.value)}{ci}</td>'


def _comparisons_table(report: Report, comparisons: Sequence[Comparison]) -> str:
    head = "".join(f"<th>{h}</th>" for h in ("A", "B", "source", "paired", "only A", "only B", "metric",
                                             "A \u2212 B [CI]", "p", "Holm p", "test", "MDE"))
    keys = report.keys_of(comparisons[0].suite) or None
    rows = []
    for comparison in comparisons:
        metrics: list[tuple[str, PairedMetric | None]] = list(comparison.metrics.items()) or [("", None)]
        span = f' rowspan="{len(metrics)}"' if len(metrics) > 1 else ""
        label_a, label_b = comparison.labels(keys)
        shared = (f"<td{span}>{_e(label_a)}</td><td{span}>{_e(label_b)}</td>"
                  f"<td{span}>{_e(comparison.source)}</td>"
                  f'<td class="num"{span}>{_e(comparison.n_paired)}</td>'
                  + "".join(f'<td class="num"{span}>{_only(o)}</td>' for o in (comparison.only_a, comparison.only_b)))
        for index, (metric, cell) in enumerate(metrics):
            lead = shared if index == 0 else ""
            if cell is None:
                rows.append(f'<tr>{lead}<td colspan="6" class="note">no items scored by both</td></tr>')
                continue
            sig = ' class="sig"' if cell.p_holm is not None and cell.p_holm < 0.05 else ""
            rows.append(f"<tr{sig}>{lead}<td>{_e(metric)}</td>{_difference_cell(cell)}"
                        f'<td class="num">{_p(cell.p_value)}</td><td class="num">{_p(cell.p_holm)}</td>'
                        f"<td>{_e(cell.test)}</td>"
                        f'<td class="num">{_e(_scalar(cell.mde))}</td></tr>')
    note = '<p class="note">Bold: Holm-adjusted p &lt; 0.05. A \u2212 B on the items both runs scored.</p>'
    return _table(f"<tr>{head}</tr>{''.join(rows)}") + note


def _only(side: Unpaired) -> str:
    """The count, with the named ids (up to the report's limit) as a tooltip."""
    hint = f' title="{_e(", ".join(side.ids))}"' if side.ids else ""
    return f"<span{hint}>{_e(side.count)}</span>"


def _difference_cell(cell: PairedMetric) -> str:
    if cell.difference is None:
        return '<td class="num diff">n/a</td>'
    interval = (f' <span class="ci">[{format_number(cell.ci[0])}, {format_number(cell.ci[1])}]</span>'
                if cell.has_ci else "")
    return f'<td class="num diff">{cell.difference:+.3f}{interval}</td>'


def _p(p: float | None) -> str:
    return DASH if p is None else _e(format_p(p))
