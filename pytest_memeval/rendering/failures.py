"""Wrong answers in the terminal: one line each, then a count per suite, system and stage.

A wrong answer is a failed test, so that `--lf`, `-x`, JUnit XML and the exit status all
see it. pytest's own FAILURES section, however, costs O(failures x reports): for every
failure it scans every passed report for teardown sections
(`TerminalReporter._handle_teardown_sections`), which took 14.7 s of a 32 s run with
1,600 wrong answers among 8,640 items, and minutes on 34,560. So the plugin marks the call
report of a wrong answer (running/wrong_answers.py: its one-line summary under
`WRONG_ANSWER`, the failure message as a plain-string longrepr); here, on the controller,
those reports are kept out of pytest's failure sections and short summary while the
terminal summary is written (they are put back before pytest counts the outcomes) and
printed, in time linear in their number, after pytest's short summary and before the
memeval summary, which comes last.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Generator, Iterable, Sequence
from contextlib import contextmanager
from typing import Any

import pytest

from ..results.records import Record, RunKey
from ..running.wrong_answers import WRONG_ANSWER, is_wrong_answer
from .terminal import write_line


class WrongAnswerSummary:
    """On the controller: holds the wrong answers out of pytest's failure sections and
    short summary while the terminal summary is written (`held_out`), and writes them,
    one line each (`write`)."""

    def __init__(self) -> None:
        self.held: list[Any] = []
        #: WRONG lines written (the closing text counts them against the records)
        self.printed = 0

    @contextmanager
    def held_out(self, terminal: pytest.TerminalReporter) -> Generator[None, None, None]:
        failed = terminal.stats.get("failed", [])
        self.held = [r for r in failed if is_wrong_answer(r)]
        if self.held:
            terminal.stats["failed"] = [r for r in failed if not is_wrong_answer(r)]
        try:
            yield
        finally:
            if self.held:
                # the final "N failed" line and the exit status count them as usual
                terminal.stats["failed"] = [*terminal.stats.get("failed", []), *self.held]

    def write(self, terminal: pytest.TerminalReporter, records: Sequence[Record]) -> None:
        """This session's wrong answers, one line each, and the count per run of all the
        records' (a resumed run's earlier answers are among the records, not the lines)."""
        count = len(self.held)
        in_records = sum(1 for r in records if r.is_scored and r.correct is False)
        if not count and not in_records:
            return
        title = f"memeval: {count} wrong answer{'s' if count != 1 else ''}"
        if in_records > count:
            title += f" in this session, {in_records - count} more resumed from the journal"
        terminal.write_sep("=", title, red=True)
        if "f" in terminal.reportchars and not terminal.config.option.no_summary:
            verbose = terminal.config.get_verbosity() > 0
            for report in self.held:
                write_line(terminal, f"WRONG {report.nodeid} - {getattr(report, WRONG_ANSWER)}")
                if verbose:  # the whole failure message (question, memories, judge)
                    for text in str(report.longrepr).splitlines()[1:]:
                        write_line(terminal, f"    {text}")
            self.printed = count
        for line in grouped_lines(records):
            write_line(terminal, line)


def stage_of(record: Record) -> str:
    """Where a wrong answer failed: the judge's stage when it attributes one (memfail),
    else whether the model abstained."""
    if record.stage:
        return record.stage
    return "abstained" if record.abstained else "wrong answer"


def grouped_lines(records: Iterable[Record]) -> list[str]:
    """One line per run: its wrong answers out of its scored items, by stage."""
    scored: Counter[RunKey] = Counter()
    stages: dict[RunKey, Counter[str]] = {}
    for record in records:
        if record.status != "scored":
            continue
        scored[record.key] += 1
        if record.correct is False:
            stages.setdefault(record.key, Counter())[stage_of(record)] += 1
    if not stages:
        return []
    lines = ["wrong answers by suite | system | stage:"]
    for key in sorted(stages):
        counts = stages[key]
        label = key.label([k for k in scored if k.suite == key.suite])
        parts = ", ".join(f"{stage} {n:,}" for stage, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
        lines.append(f"  {key.suite} | {label}: {sum(counts.values()):,} of {scored[key]:,} scored ({parts})")
    return lines
