"""Where a run's reports go. Every run writes its JSON report and its HTML page by default,
in the rootdir (`memeval-report.json`, `memeval-report.html`), so that the item explorer is
always one click away and `--memeval-resume` finds the journal beside the report. A report
named by `--memeval-report` gets its page beside it; `--memeval-report=none` writes neither
(nor a journal) unless `--memeval-html` names a page, `--memeval-html=none` no page. A
collection (`--collect-only`) writes only what is named.
"""

from __future__ import annotations

from pathlib import Path

#: the file names a run writes in the rootdir when no option names them
REPORT_NAME = "memeval-report.json"
HTML_NAME = "memeval-report.html"
#: the value of --memeval-report (or --memeval-html) that writes no file
NONE = "none"


def report_paths(report: str | None, html: str | None, root: Path, collect_only: bool) -> tuple[str | None, str | None]:
    """The --memeval-report and --memeval-html a run uses: the given ones ("none" for none);
    where one is not given, the report in the rootdir and the page beside the report
    (run.json -> run.html). A collection writes only what is given."""
    report_off, html_off = _off(report), _off(html)
    if collect_only:
        return (None if report_off else report), (None if html_off else html)
    if report_off:
        return None, None if html_off else html
    report = report if report is not None else str(root / REPORT_NAME)
    if html_off:
        return report, None
    if html is None:
        beside = Path(report).with_suffix(".html")
        html = str(beside) if beside != Path(report) else None
    return report, html


def _off(value: str | None) -> bool:
    return value is not None and value.strip().lower() == NONE
