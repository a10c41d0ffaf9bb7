"""The options of the session's reports, gates and statistics, in their `pytest --help`
group; config/options.py reads them into `Settings`."""

from __future__ import annotations

import pytest

GROUP, TITLE = "memeval-reports", "memeval: reports, gates and statistics"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup(GROUP, TITLE)
    group.addoption(
        "--memeval-report",
        metavar="PATH",
        help="write the JSON report here (default: memeval-report.json in the rootdir; none: no report)",
    )
    group.addoption(
        "--memeval-html",
        metavar="PATH",
        help="write a self-contained HTML report here (default: beside the JSON report; none: no page)",
    )
    group.addoption(
        "--memeval-baseline",
        metavar="PATH",
        help="an earlier --memeval-report JSON: pair its items with this run's and report the differences",
    )
    group.addoption(
        "--memeval-errata",
        metavar="PATH",
        help="corrections to the suites' golds (memeval-errata/1, or locomo-audit's errors.json): each run's "
        "metrics with the named items excluded or judged against their corrected gold, beside the published ones",
    )
    group.addoption(
        "--memeval-judge-audit",
        metavar="N",
        help="calibrate the LLM judges: on N items of each LLM-judged suite, answers made from the gold "
        "(wrong ones on topic, evasive, listing everything; correct paraphrases): each judge's false-accept "
        "and false-reject rates with Wilson intervals",
    )
    group.addoption(
        "--memeval-any-protocol",
        action="store_true",
        help="compare with a --memeval-baseline run under another protocol (data, suite version, models, "
        "prompts, k); the report names the first difference",
    )
    group.addoption(
        "--memeval-gate",
        action="append",
        default=[],
        metavar="EXPR",
        help="a CI gate, repeatable: multisource.accuracy>=0.75, ci:multisource.accuracy>=0.75 "
        "(on the CI bound) or multisource.accuracy:no-regression[=MARGIN] (against --memeval-baseline); "
        "with gates, they decide the exit status",
    )
    group.addoption(
        "--memeval-gate-subset",
        default="allow",
        metavar="MODE",
        help="gates on a run that covers part of its suite (-k, -m, --lf, --deselect): allow (the verdict "
        "says so) or refuse (the gate fails) (default: allow)",
    )
    group.addoption(
        "--memeval-max-errors",
        default="0",
        metavar="N",
        help="items that may end in an error or an invalid answer before the run fails (default: 0)",
    )
    group.addoption(
        "--memeval-snapshot",
        action="store_true",
        help="compare each item's normalised verdict with its syrupy snapshot under snapshots/ "
        "(record with --snapshot-update)",
    )
    group.addoption(
        "--memeval-bootstrap",
        default="2000",
        metavar="B",
        help="bootstrap resamples for confidence intervals, and random sign patterns of the "
        "cluster sign-flip test beyond 16 clusters (default: 2000)",
    )
    group.addoption(
        "--memeval-record-memories",
        default="10",
        metavar="N",
        help="retrieved memories kept in each item's record for the reports, best first (0: none; default: 10)",
    )
    group.addoption(
        "--memeval-progress",
        default="10",
        metavar="SECONDS",
        help="print a progress line (items, texts embedded per second, ETA) at most this often while "
        "contexts are filled; 0 turns it off (default: 10)",
    )
