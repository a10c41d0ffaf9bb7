"""Re-judging a run's stored answers with other judges, without its memory systems or its
response model:

    python -m pytest_memeval rejudge REPORT_OR_BUNDLE --memeval-judge=openai:MODEL@PROMPT[,...]
        --memeval-report=PATH [--memeval-html=PATH] [--memeval-data=DIR] [--memeval-base-url=URL]

The judges grade every scored record of the suites they fit, as a run with
`--memeval-judge` of the same judges would have graded the same answers: each item is built
again from the run's recorded settings (its question and gold), the record's answer is
judged under the record's repeat (so the LLM call cache keys it as the run would), and the
report, its metrics, judge sensitivity (each judge's accuracy, Cohen's kappa, the items
where the judges disagree), comparisons and fingerprint (whose suites name the new judges)
are computed from the re-judged records exactly as a run computes them.

What a report cannot give the judge is said, never guessed:

- an answer longer than the record keeps (`ANSWER_CHARS`, 16,000 characters) is not judged
  from its beginning: its record becomes an error record saying so;
- a report holds no trace (what the memory system returned, with its sources, or holds):
  the detail keys a suite's judge derives from it (`Suite.trace_detail`: evidence recall)
  keep the run's values, and a suite whose judge reads the run (`judge_reads_the_run`:
  memfail) is refused in one line;
- invalid and error records stay as the run wrote them (an error has no answer to judge),
  under the new judges' name; records of suites the judges do not fit keep their own.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import replace as replace_dataclass
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from ..analysis.comparability import suite_protocol
from ..analysis.errata import with_errata
from ..analysis.judge_audit import with_judge_audit
from ..analysis.session_report import SessionReport, SuiteLookup
from ..config.errata import OPTION as ERRATA
from ..config.errata import read_errata
from ..config.judge_specs import parse_judge
from ..config.llm_options import llm_settings
from ..config.option_values import integer, names, writable_file
from ..config.outputs import check_outputs, run_outputs
from ..errors import ConfigError
from ..files.user_files import read_text
from ..results.fingerprint import Fingerprint
from ..results.reading import read_report
from ..results.records import DETERMINISTIC, Record, Report
from ..running.record_collector import group_by_run
from ..running.rejudging import rejudged
from ..running.state import RunState
from .bundle import FORMAT as BUNDLE_FORMAT
from .bundle import read_bundle
from .merge import DATA, HTML, REPORT, recorded_settings, suite_sizes

WHERE = "rejudge"
JUDGE = "--memeval-judge"
AUDIT = "--memeval-judge-audit"
#: the LLM options a re-judge takes, by the run's names, with the run's defaults
LLM_OPTIONS: Mapping[str, str | None] = {
    "--memeval-base-url": None,
    "--memeval-llm-cache": "readwrite",
    "--memeval-llm-cache-file": None,
    "--memeval-max-tokens": "1024",
    "--memeval-timeout": None,
    "--memeval-concurrency": None,
    "--memeval-structured": "auto",
    "--memeval-api": "chat",
}


class Rejudged(NamedTuple):
    """The re-judged report, and the suites that summarised it (their figures go into the page)."""

    report: SessionReport
    suite: SuiteLookup


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", metavar="REPORT_OR_BUNDLE", help="a run's JSON report, or its bundle")
    parser.add_argument(JUDGE, required=True, metavar="JUDGE[,...]", help="the judges, as the run names them")
    parser.add_argument(REPORT, required=True, metavar="PATH", help="write the re-judged JSON report here")
    parser.add_argument(HTML, metavar="PATH", help="write the re-judged HTML report here")
    parser.add_argument(DATA, metavar="DIR", help="this machine's copy of the run's --memeval-data")
    parser.add_argument(ERRATA, metavar="PATH", help="corrections to the suites' golds, as the run's option")
    parser.add_argument(AUDIT, metavar="N", default="0", help="calibrate the judges on N items, as the run's option")
    for option, default in LLM_OPTIONS.items():
        parser.add_argument(option, default=default, metavar="VALUE", help="as the run's option of this name")


def read_source(path: Path) -> Report:
    """The report a REPORT_OR_BUNDLE file holds (a bundle is checked against its manifest and
    signature first)."""
    try:
        head = msgspec.json.decode(read_text(path), type=_Head)
    except (OSError, UnicodeDecodeError, msgspec.DecodeError):
        head = _Head()  # read_report says what is wrong with it, in one line
    if head.format == BUNDLE_FORMAT:
        return read_bundle(path).report_value()
    return read_report(path, WHERE)


class _Head(msgspec.Struct):
    format: Any = None


def rejudge(args: argparse.Namespace) -> Rejudged:
    """The re-judged report, before its files are written (rendering.session_output)."""
    source = Path(args.source)
    report = read_source(source)
    judges = tuple(parse_judge(name) for name in names(JUDGE, args.memeval_judge))
    settings = recorded_settings(report.settings, args.memeval_data, WHERE)
    opt = _option_reader(args)
    settings = replace_dataclass(
        settings,
        report=writable_file(REPORT, args.memeval_report),
        html=writable_file(HTML, args.memeval_html),
        judges=judges,
        llm=llm_settings(opt, judges[0].model or "default", settings.cache_dir),
        errata=read_errata(args.memeval_errata),
        judge_audit=integer(AUDIT, args.memeval_judge_audit, 0),
    )
    check_outputs(
        [("REPORT_OR_BUNDLE", f"the source {source}", source), *run_outputs(settings.report, settings.html, None, None)]
    )
    state = RunState(settings, {})
    try:
        records = rejudge_records(report.records, state)
        fingerprint = rejudged_fingerprint(report.fingerprint, state, {r.suite_ref for r in records})
        session = SessionReport.build(
            settings,
            state.suite,
            group_by_run(records),
            None,
            report.session_errors,
            (),
            suite_sizes([report]),
            fingerprint,
            report.protocol_notes,
            {key: str(value) for key, value in (report.settings.get("selection") or {}).items()},
        )
        if settings.errata is not None:
            session = with_errata(session, settings.errata, state.suite, state.judge)
        if settings.judge_audit:
            session = with_judge_audit(session, settings.judge_audit, state.suite, state.judge, state.judge_name)
    finally:
        state.close()
    return Rejudged(session, state.suite)


def _option_reader(args: argparse.Namespace) -> Any:
    """`llm_settings`'s reader of option values, by their pytest names."""
    values = vars(args)
    return lambda name: values.get(name)


def rejudge_records(records: Sequence[Record], state: RunState) -> list[Record]:
    """Every record, those of the suites whose judge changes judged again."""
    out = []
    for record in records:
        suite = state.suite(record.suite_ref)
        name = state.judge_name(suite)
        if name == record.key.judge:
            out.append(record)
            continue
        if suite.judge_reads_the_run:
            raise ConfigError(
                f"{WHERE}: suite {suite.name!r}: its judge reads what the memory system stored, "
                "which a report does not hold: it cannot be re-judged"
            )
        out.append(rejudged(record, suite, state.judge(suite), name))
    return out


def rejudged_fingerprint(fingerprint: Fingerprint | None, state: RunState, suite_refs: set[str]) -> Fingerprint | None:
    """The run's fingerprint with the part of each re-judged suite as a run with these judges
    writes it (its judges, and the prompts an LLM may use); the LLM's output parameters are
    the re-judge's where the run used no LLM."""
    if fingerprint is None:
        return None
    settings = state.settings
    for ref in sorted(suite_refs):
        suite = state.suite(ref)
        protocol = fingerprint.suite(suite.name)
        errata = settings.errata.digest(suite.name) if settings.errata is not None else ""
        if protocol is not None and (protocol.judges != _names(state.judge_name(suite)) or protocol.errata != errata):
            fingerprint = fingerprint.with_suite(suite_protocol(suite, settings))
    if not fingerprint.llm and settings.llm is not None:
        llm = dict(settings.llm.output_params(), structured=settings.llm.structured)
        fingerprint = replace_dataclass(fingerprint, llm=llm)
    return fingerprint


def _names(judge_name: str) -> tuple[str, ...]:
    return () if judge_name == DETERMINISTIC else tuple(judge_name.split(","))
