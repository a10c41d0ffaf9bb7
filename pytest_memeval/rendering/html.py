"""One self-contained HTML page for a memeval report: the headline comparison first (each
suite's headline metric per run with its interval, the paired differences), then gates,
the items that flipped, one foldable section per suite (its runs side by side,
comparisons, figures), an item explorer and the settings.

The page loads nothing: CSS is inline, figures are inline SVG, and the explorer's one
script is inline too; the Content-Security-Policy forbids every request and every
script but that one (allowed by its SHA-256). Every string from the report is escaped;
the records travel as JSON data in columns that no text can break out of, and the
explorer reads them only when first used or once the browser is idle, so a run of tens of
thousands of items draws its first screen as fast as a small one (see `explorer`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence

from ..analysis.session_report import Headline
from ..files.atomic_file import write_atomic
from ..framework.figures import Figure
from ..results.records import SCHEMA, Report, RunKey
from .explorer import explorer_section, packed_data, packed_element, script_element, script_hash
from .html_tables import (
    audit_tables,
    comparisons_table,
    e,
    errata_tables,
    flipped_tables,
    gates_table,
    headline_tables,
    judge_tables,
    runs_table,
    settings_table,
    usage_table,
)
from .report_figures import breakdown_figures, comparison_figure
from .svg import render_svg
from .terminal import headline_of

ExtraFigures = Sequence[Figure] | Mapping[str, Sequence[Figure]]
CSP = f"default-src 'none'; style-src 'unsafe-inline'; script-src {script_hash()}; base-uri 'none'; form-action 'none'"
STYLE = """
:root { color-scheme: light; }
body { margin: 0; background: #f6f7f9; color: #222; font: 14px/1.45 system-ui, -apple-system, 'Segoe UI',
       'DejaVu Sans', 'Liberation Sans', Arial, sans-serif; }
main { max-width: 1500px; margin: 0 auto; padding: 8px 24px 48px; }
header { background: #1f2937; color: #fff; padding: 18px 24px; }
header h1 { margin: 0 0 4px; font-size: 22px; }
header p { margin: 0; color: #d1d5db; }
h2 { margin: 0; font-size: 19px; display: inline; }
section > h2, details.section > summary { display: block; margin: 28px 0 8px; padding-bottom: 4px;
       border-bottom: 2px solid #d0d4da; }
h3 { margin: 20px 0 6px; font-size: 16px; }
h4 { margin: 4px 0 8px; font-size: 15px; }
h5 { margin: 10px 0 4px; font-size: 13px; }
nav { margin: 10px 0; }
nav a { margin-right: 14px; color: #1d4ed8; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; background: #fff; margin: 8px 0; font-size: 13px; }
th, td { padding: 5px 10px; border-bottom: 1px solid #e5e7eb; text-align: left; vertical-align: top; }
th { background: #eef0f3; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.question { max-width: 48em; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.ci { color: #6b7280; font-size: 12px; }
tr.sig td.diff { font-weight: 700; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-weight: 700; font-size: 12px;
         white-space: nowrap; background: #e5e7eb; }
.pass, .passed { background: #dcfce7; color: #14532d; }
.fail, .failed { background: #fee2e2; color: #7f1d1d; }
.error, .invalid { background: #fef3c7; color: #78350f; }
.flaky { background: #ede9fe; color: #4c1d95; margin-left: 6px; }
.partial { background: #fef3c7; color: #78350f; margin: 2px 2px 0 0; }
header p.partial-note { color: #fde68a; font-weight: 600; }
code { font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; font-size: 12px; }
figure { background: #fff; border: 1px solid #e5e7eb; border-radius: 6px; padding: 10px; margin: 14px 0;
         overflow-x: auto; }
figure svg { display: block; max-width: 100%; height: auto; }
figcaption { color: #4b5563; font-size: 13px; margin-top: 4px; }
details > summary { cursor: pointer; color: #1d4ed8; margin: 8px 0; }
details.section > summary { color: #222; }
.note { color: #4b5563; font-size: 13px; }
.controls { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 8px 0; }
.controls input[type=search] { min-width: 18em; padding: 4px 6px; }
#detail { background: #fff; border: 1px solid #d0d4da; border-radius: 6px; padding: 12px 16px; margin: 14px 0; }
.sides { display: grid; grid-template-columns: repeat(auto-fit, minmax(380px, 1fr)); gap: 16px; }
.side { min-width: 0; }
.record { border-top: 1px solid #e5e7eb; padding: 8px 0; }
.field { margin: 4px 0; overflow-wrap: anywhere; }
ol.memories { padding-left: 22px; margin: 4px 0; }
ol.memories li { margin: 4px 0; }
.memory { white-space: pre-wrap; overflow-wrap: anywhere; background: #f9fafb; padding: 4px 6px; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12px; background: #f9fafb; padding: 6px; }
"""


def render_html(
    report: Report, extra_figures: ExtraFigures = (), headlines: Mapping[RunKey, Headline | None] | None = None
) -> str:
    """The whole page as a string; the same report and figures always give the same text.

    `extra_figures` is either a list, shown in a closing "Suite figures" section, or a
    mapping from suite name to its figures, shown in that suite's section. `headlines`
    names each run's headline metric (the suite's choice; by default its first metric).
    """
    return "".join(_page_pieces(report, extra_figures, headlines))


def _page_pieces(
    report: Report, extra_figures: ExtraFigures, headlines: Mapping[RunKey, Headline | None] | None
) -> list[str]:
    """The page's text in pieces, in order (the explorer's data one of them)."""
    page = _Page()
    names = report.suites()
    by_suite = extra_figures if isinstance(extra_figures, Mapping) else {}
    loose = [] if isinstance(extra_figures, Mapping) else list(extra_figures)
    loose += [figure for suite, figures in by_suite.items() if suite not in names for figure in figures]
    if headlines is None:
        headlines = {run.key: headline_of(run) for run in report.runs}
    packed = packed_data(report)
    sections = [_headline_section(report, headlines), _gates_section(report), _flipped_section(report)]
    sections += [_suite_section(report, suite, page, by_suite.get(suite, ())) for suite in names]
    if loose:
        figures = "".join(page.figure(f) for f in loose)
        sections.append(f'<section id="suite-figures"><h2>Suite figures</h2>{figures}</section>')
    sections += [explorer_section(packed), _settings_section(report)]
    return [
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',  # a constant: no escaping
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>memeval report</title><style>{STYLE}</style></head><body>",
        _header(report),
        "<main>",
        _navigation(report, bool(loose)),
        *sections,
        "</main>",
        packed_element(packed),
        script_element(),
        "</body></html>\n",
    ]


def write_html(
    path: str | os.PathLike[str],
    report: Report,
    extra_figures: ExtraFigures = (),
    headlines: Mapping[RunKey, Headline | None] | None = None,
) -> None:
    """Render the whole page, then replace the file in one step (a run killed while writing
    leaves the previous page whole). Written piece by piece: the page of a 34,560-item run
    is 8.6 MB, held once more joined and once more encoded, which was its controller's peak."""
    write_atomic(path, _page_pieces(report, extra_figures, headlines))


class _Page:
    """Numbers the figures of one page, so every SVG id is unique and stable."""

    def __init__(self) -> None:
        self.count = 0

    def figure(self, figure: Figure) -> str:
        self.count += 1
        caption = f"<figcaption>{e(figure.caption)}</figcaption>" if figure.caption else ""
        return f"<figure>{render_svg(figure, f'fig-{self.count}')}{caption}</figure>"


def _anchor(report: Report, suite: str) -> str:
    """An id of safe characters only; the index keeps it unique when names differ in other ones."""
    slug = "".join(c if c.isascii() and c.isalnum() else "-" for c in suite)
    return f"suite-{report.suites().index(suite) + 1}-{slug}"


def _header(report: Report) -> str:
    runs, gates = report.runs, report.gates
    facts = [
        f"pytest-memeval {report.plugin_version}",
        f"schema {SCHEMA}",
        f"{len(runs)} run{'s' if len(runs) != 1 else ''}",
        f"{len(report.records)} records",
    ]
    if gates:
        failed = sum(1 for g in gates if not g.passed)
        facts.append(f"gates: {len(gates) - failed} passed, {failed} failed")
    if report.fingerprint is not None:
        facts.append(report.fingerprint.short())
    notes = "".join(f'<p class="partial-note">{e(line)}</p>' for line in partial_lines(report))
    notes += "".join(f"<p>{e(note)}</p>" for note in report.protocol_notes)
    return f"<header><h1>memeval report</h1><p>{e(' · '.join(facts))}</p>{notes}</header>"


def partial_lines(report: Report) -> list[str]:
    """What makes the numbers partial, first thing on the page: an incomplete session (what
    ran, how to resume), and the runs on generated samples and on subsets of their suite."""
    lines = []
    if report.incomplete is not None:
        resume = f"; resume with: {report.incomplete.resume}" if report.incomplete.resume else ""
        lines.append(f"Incomplete: {report.incomplete.text()}{resume}")
    for kind, what in (("sample", "generated data, not the benchmark's release"), ("subset", "a subset of the suite")):
        named = [run for run in report.runs if any(label.split(" ", 1)[0] == kind for label in run.labels)]
        if named:
            suites = ", ".join(dict.fromkeys(run.key.suite for run in named))
            lines.append(f"{len(named)} run{'s' if len(named) != 1 else ''} on {what}: {suites}")
    return lines


def _navigation(report: Report, extra: bool) -> str:
    links = ['<a href="#headline">Headline</a>'] if report.runs else []
    links += ['<a href="#gates">Gates</a>'] if report.gates else []
    if any(c.flipped for c in report.comparisons):
        links.append('<a href="#flipped">Flipped items</a>')
    links += [f'<a href="#{_anchor(report, s)}">{e(s)}</a>' for s in report.suites()]
    if extra:
        links.append('<a href="#suite-figures">Suite figures</a>')
    links.append('<a href="#items">Items</a>')
    if report.settings:
        links.append('<a href="#settings">Settings</a>')
    return f"<nav>{''.join(links)}</nav>"


def _headline_section(report: Report, headlines: Mapping[RunKey, Headline | None]) -> str:
    if not report.runs:
        return ""
    return f'<section id="headline"><h2>Headline</h2>{headline_tables(report, headlines)}</section>'


def _settings_section(report: Report) -> str:
    rows = settings_table(report)
    if not rows:
        return ""
    fingerprint = ""
    if report.fingerprint is not None:
        text = json.dumps(report.fingerprint.to_json(), indent=1, sort_keys=True)
        fingerprint = f"<h3>Protocol fingerprint</h3><pre>{e(text)}</pre>"
    return f'<details class="section" id="settings"><summary><h2>Settings</h2></summary>{rows}{fingerprint}</details>'


def _gates_section(report: Report) -> str:
    if not report.gates:
        return ""
    return f'<section id="gates"><h2>Gates</h2>{gates_table(report.gates)}</section>'


def _flipped_section(report: Report) -> str:
    tables = flipped_tables(report)
    if not tables:
        return ""
    note = (
        '<p class="note">Items judged differently by the two sides of a comparison (with repeats: '
        "by the share of repeats judged correct). Open one to see both runs side by side.</p>"
    )
    return f'<section id="flipped"><h2>Flipped items</h2>{note}{tables}</section>'


def _suite_section(report: Report, suite: str, page: _Page, figures: Sequence[Figure]) -> str:
    """One suite, folded open: its runs, comparisons and forest plot; figures folded shut."""
    labels = list(dict.fromkeys(label for run in report.runs_of(suite) for label in run.labels))
    title = f"Suite: {suite}" + (f" ({', '.join(labels)})" if labels else "")
    parts = [
        f'<details class="section suite" id="{_anchor(report, suite)}" open><summary><h2>{e(title)}</h2></summary>',
        runs_table(report, suite),
        usage_table(report, suite),
    ]
    judges = judge_tables(report, suite)
    if judges:
        parts.append(f"<h3>Judge sensitivity</h3>{judges}")
    errata = errata_tables(report, suite)
    if errata:
        parts.append(f"<h3>Errata</h3>{errata}")
    audits = audit_tables(report, suite)
    if audits:
        parts.append(f"<h3>Judge audit</h3>{audits}")
    comparisons = [c for c in report.comparisons if c.suite == suite]
    if comparisons:
        parts.append(f"<h3>Paired comparisons</h3>{comparisons_table(report, comparisons)}")
        forest = comparison_figure(report, suite)
        if forest is not None:
            parts.append(page.figure(forest))
    if figures:
        drawn = "".join(page.figure(f) for f in figures)
        parts.append(f"<details><summary>Figures of {e(suite)} ({len(figures)})</summary>{drawn}</details>")
    for dimension, charts in breakdown_figures(report, suite):
        drawn = "".join(page.figure(chart) for chart in charts)
        names = ", ".join(chart.value_label for chart in charts)
        parts.append(f"<details><summary>By {e(dimension)}: {e(names)}</summary>{drawn}</details>")
    parts.append("</details>")
    return "".join(parts)
