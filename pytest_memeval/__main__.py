"""`python -m pytest_memeval merge SHARD.json... -o run.json [--html run.html] [--gate EXPR]...`

Exit status: 0 when the merged run passes (its gates, and no more errors than the shards'
--memeval-max-errors allowed), 1 when it does not, 4 when the shards cannot be merged
(one line saying why), as pytest's usage errors.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence

import pytest

from .campaigns.merge import add_arguments, merge
from .config.errors import MemevalError

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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pytest_memeval")
    commands = parser.add_subparsers(dest="command", required=True)
    add_arguments(
        commands.add_parser("merge", help="merge the JSON reports of --memeval-shard jobs into one run's report")
    )
    args = parser.parse_args(argv)
    try:
        report = merge(args)
    except MemevalError as exc:
        print(f"memeval merge: {exc}", file=sys.stderr)
        return USAGE_ERROR
    report.write_terminal(Console())  # type: ignore[arg-type]
    return int(report.exit_status(pytest.ExitCode.OK))


if __name__ == "__main__":
    sys.exit(main())
