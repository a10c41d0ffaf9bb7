"""`python -m pytest_memeval merge SHARD.json... --memeval-report=run.json [--memeval-html=run.html]
[--memeval-gate=EXPR]... [--memeval-baseline=PATH]`

`python -m pytest_memeval rejudge REPORT_OR_BUNDLE --memeval-judge=JUDGE[,...]
--memeval-report=PATH [--memeval-html=PATH]`: the run's stored answers graded by other judges.

Exit status: 0 when the merged (re-judged) run passes (its gates, and no more errors than the shards'
--memeval-max-errors allowed), 1 when it does not, 4 for a usage error or shards that cannot
be merged (one line saying why), as the run's usage errors.

`python -m pytest_memeval verify BUNDLE ...` and `python -m pytest_memeval bundle REPORT ...`:
campaigns/verify_command.py (0 reproduced, 1 not, 4 a usage error).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from typing import NoReturn

import pytest

from .campaigns import merge, rejudge
from .campaigns.bundle import BundleError
from .campaigns.verify import VerifyError
from .campaigns.verify_command import add_bundle_arguments, add_verify_arguments, run_bundle, run_verify
from .errors import ConfigError, MemevalError
from .rendering.session_output import write_files, write_terminal

USAGE_ERROR = int(pytest.ExitCode.USAGE_ERROR)


class Console:
    """What the terminal summary writes to, printed to stdout."""

    def __init__(self) -> None:
        self.width = shutil.get_terminal_size((100, 24)).columns

    def write_sep(self, sep: str, title: str = "", **_markup: bool) -> None:
        text = f" {title} " if title else ""
        side = max(3, (self.width - len(text)) // 2)
        print(f"{sep * side}{text}{sep * side}"[: self.width])

    def write_line(self, line: str, **_markup: bool) -> None:
        print(line)


class _Parser(argparse.ArgumentParser):
    """argparse, whose usage errors are one line and the run's exit status (4), not its
    multi-line usage text and exit status 2."""

    def error(self, message: str) -> NoReturn:
        raise ConfigError(f"{message} (python -m pytest_memeval {self._command()}--help)")

    def _command(self) -> str:
        command = self.prog.removeprefix("python -m pytest_memeval").strip()
        return f"{command} " if command else ""


def main(argv: Sequence[str] | None = None) -> int:
    parser = _Parser(prog="python -m pytest_memeval")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=_Parser)
    merge.add_arguments(
        commands.add_parser("merge", help="merge the JSON reports of --memeval-shard jobs into one run's report")
    )
    rejudge.add_arguments(
        commands.add_parser("rejudge", help="grade a run's stored answers (its report or bundle) with other judges")
    )
    add_verify_arguments(
        commands.add_parser("verify", help="check a run bundle and rerun it offline from its recording")
    )
    add_bundle_arguments(
        commands.add_parser("bundle", help="the run bundle of a report: its run replayed from the caches, checked")
    )
    try:
        args = parser.parse_args(argv)
    except MemevalError as exc:
        print(f"memeval: {exc}", file=sys.stderr)
        return USAGE_ERROR
    if args.command in ("verify", "bundle"):
        return _checked(args)
    try:
        report, suite = merge.merge(args) if args.command == "merge" else rejudge.rejudge(args)
        write_files(report, suite)
    except MemevalError as exc:
        print(f"memeval: {exc}", file=sys.stderr)
        return USAGE_ERROR
    write_terminal(report, Console(), wrong_printed=0)  # type: ignore[arg-type]
    status = report.decide(pytest.ExitCode.OK, tests=False)
    for line in report.closing_lines():
        print(line)
    return int(status)


def _checked(args: argparse.Namespace) -> int:
    """verify or bundle: each step one line; the first failure one line and exit status 1."""
    command = run_verify if args.command == "verify" else run_bundle
    try:
        command(args, print)
    except (BundleError, VerifyError) as exc:
        print(f"memeval {args.command}: {exc}")
        return int(pytest.ExitCode.TESTS_FAILED)
    except MemevalError as exc:
        print(f"memeval {args.command}: {exc}", file=sys.stderr)
        return USAGE_ERROR
    return int(pytest.ExitCode.OK)


if __name__ == "__main__":
    sys.exit(main())
