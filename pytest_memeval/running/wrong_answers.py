"""A wrong answer, in the process that ran its test: the failure `check` raises, and the
marks its report carries to the controller (rendering/failures.py prints them).

A wrong answer is a failed test, so that `--lf`, `-x`, JUnit XML and the exit status all
see it; its call report carries the failure message as a plain string (cheap to ship and
print) and its one-line summary under `WRONG_ANSWER`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from ..printable import printable, shorten

if TYPE_CHECKING:
    from .runner import Outcome

#: the report attribute (it travels from xdist workers) holding a wrong answer's one line
WRONG_ANSWER = "memeval_wrong_answer"


class WrongAnswer(pytest.fail.Exception):  # type: ignore[name-defined]  # pytest types fail.Exception as an attribute
    """Raised by `check` for an answer the judge rejected: a test failure with a one-line
    summary beside the full message."""

    def __init__(self, message: str, summary: str) -> None:
        super().__init__(message, pytrace=False)
        self.summary = summary


def trim_wrong_answer(call: pytest.CallInfo[None]) -> None:
    """Before pytest makes a wrong answer's report: its traceback is cut to the frame that
    raised it. pytest renders a failure without traceback (`pytrace=False`) by walking and
    filtering every frame down from its runner (about 0.6 ms per wrong answer), and
    `mark_wrong_answer` replaces that rendering by the message anyway."""
    excinfo = call.excinfo
    if call.when == "call" and excinfo is not None and isinstance(excinfo.value, WrongAnswer):
        excinfo.traceback = excinfo.traceback[-1:]


def mark_wrong_answer(report: pytest.TestReport, call: pytest.CallInfo[None]) -> None:
    """On the process that ran the test: a wrong answer's report carries its message as
    a plain string (cheap to ship and print) and its one-line summary."""
    excinfo = call.excinfo
    if report.when == "call" and excinfo is not None and isinstance(excinfo.value, WrongAnswer):
        report.longrepr = str(excinfo.value.msg)
        setattr(report, WRONG_ANSWER, excinfo.value.summary)


def is_wrong_answer(report: Any) -> bool:
    return getattr(report, WRONG_ANSWER, None) is not None


#: characters of an answer or a gold shown in a wrong answer's line, and of the judge's reason
SHOWN_VALUE = 100
SHOWN_REASON = 160


def summary_line(outcome: Outcome) -> str:
    """A wrong answer in one line (the test id names the item): what was answered, what
    was expected, and the judge's reason, each cut short (-v and the reports have them whole)."""
    answer = outcome.answer
    line = (
        f"answered {shorten(repr(answer.label), SHOWN_VALUE)}, expected {shorten(repr(outcome.item.gold), SHOWN_VALUE)}"
    )
    line += " (abstained)" if answer.abstained else ""
    reason = " ".join(str(outcome.verdict.reason).split())
    return printable(f"{line}; judge: {shorten(reason, SHOWN_REASON)}" if reason else line)
