"""The options of campaigns (resume, shards, cost, run bundles), in their `pytest --help` group;
config/options.py reads them into `Settings`."""

from __future__ import annotations

import pytest

GROUP, TITLE = "memeval-campaigns", "memeval: campaigns: resume, shards, cost, bundles"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup(GROUP, TITLE)
    group.addoption(
        "--memeval-resume",
        action="store_true",
        help="continue the run whose journal (REPORT.journal.jsonl) is beside --memeval-report: items it "
        "holds are reported from it, the rest run",
    )
    group.addoption(
        "--memeval-shard",
        metavar="I/N",
        help="run the I-th of N disjoint parts of the contexts (for N CI jobs; merge the reports with "
        "python -m pytest_memeval merge)",
    )
    group.addoption(
        "--memeval-shard-durations",
        metavar="PATH",
        help="an earlier --memeval-report whose recorded durations balance the shards (default: item counts)",
    )
    group.addoption(
        "--memeval-prices",
        metavar="PATH",
        help="TOML price table, one [MODEL] table per model with input and output prices per million "
        "tokens: the summary and reports give each run's cost, --collect-only's estimate the run's (no built-in prices)",
    )
    group.addoption(
        "--memeval-max-cost",
        metavar="AMOUNT",
        help="stop the run cleanly once its LLM calls (cache misses) cost more than this, in the price "
        "table's currency; its records are kept and --memeval-resume continues it",
    )
    group.addoption(
        "--memeval-bundle",
        metavar="PATH",
        help="also write a run bundle here: the report with every LLM call and embedding the run used, "
        "hashed (and signed with --memeval-sign); python -m pytest_memeval verify reruns it offline",
    )
    group.addoption(
        "--memeval-sign",
        metavar="KEYFILE",
        help="sign the --memeval-bundle with this Ed25519 private key (PEM or OpenSSH, no passphrase)",
    )
