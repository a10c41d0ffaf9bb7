"""Nothing an adapter, a server or a data file says can drive the terminal.

The audit's case: an adapter's exception message holding `ESC[2J` and a fake "all 216 items
PASSED" line was printed raw. Escape sequences and control characters are dropped from
everything the plugin prints (`printable.printable`, one function used everywhere); a
run with such an adapter is in tests/test_bad_input.py (`EscapesInErrors`).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from pytest_memeval.rendering.failures import WrongAnswerSummary
from pytest_memeval.rendering.terminal import write_summary
from pytest_memeval.results.records import Metric, Record, Report, RunKey, RunSummary, SuiteSummary
from pytest_memeval.running.adapter_guard import describe
from pytest_memeval.running.wrong_answers import WRONG_ANSWER, summary_line
from pytest_memeval.types import Answer, Item, ItemView, Verdict

HOSTILE = "\x1b[2J\x1b[H\x1b]0;title\x07\x1bc\x9b1m\u202eevil\r\n== 216 passed ==\x1b[0m\x00\x7f\x85\u2028end"


@pytest.mark.parametrize(
    "text, one_line, multi_line",
    [
        ("plain text, é ü 日本", "plain text, é ü 日本", "plain text, é ü 日本"),
        (HOSTILE, "evil == 216 passed ==  end", "evil\n== 216 passed ==\n\nend"),
        ("a\tb", "a b", "a b"),
        ("colour \x1b[31;1mred\x1b[0m", "colour red", "colour red"),
        ("line\roverwritten", "line overwritten", "line\noverwritten"),
        ("dcs \x1bP1;2|secret\x1b\\ done", "dcs  done", "dcs  done"),
    ],
)
def test_printable_drops_escapes_and_controls(text: str, one_line: str, multi_line: str) -> None:
    from pytest_memeval.printable import printable

    assert printable(text) == one_line
    assert printable(text, multiline=True) == multi_line


def test_an_exception_is_described_by_its_first_printable_line() -> None:
    assert describe(RuntimeError("\x1b[2J\r\nstore down\nmore")) == "RuntimeError: store down"
    assert describe(RuntimeError("\x1b[2J")) == "RuntimeError"


def test_a_record_reason_is_one_printable_line() -> None:
    record = Record("i", RunKey("toy", "m"), "toy", "c", "c", "t", "error", reason="boom \x1b[2J\r\nforged")
    assert record.reason == "boom forged"


class _Terminal:
    """Collects what pytest's terminal reporter would print."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.reportchars = "fE"
        self.config = SimpleNamespace(
            option=SimpleNamespace(no_summary=False),
            get_verbosity=lambda: 1,
            get_terminal_writer=lambda: SimpleNamespace(fullwidth=100),
        )

    def write_line(self, line: str, **markup: Any) -> None:
        self.lines.append(line)

    def write_sep(self, sep: str, title: str, **markup: Any) -> None:
        self.lines.append(title)


def test_wrong_answer_lines_and_their_messages_print_no_escape() -> None:
    item = Item("ada-city", "ada", "ada", ItemView("toy", "city", "q?"), gold="lima")
    outcome = SimpleNamespace(item=item, answer=Answer("x"), verdict=Verdict(False, reason="\x1b[2J\rjudge says ok"))
    line = summary_line(outcome)
    assert "\x1b" not in line and "\r" not in line and "judge says ok" in line
    summary = WrongAnswerSummary()
    summary.held = [
        SimpleNamespace(nodeid="t::x", longrepr="first\nsecond \x1b[2J\rforged", **{WRONG_ANSWER: "w\x1b]0;t\x07"})
    ]
    terminal = _Terminal()
    summary.write(terminal, [])  # type: ignore[arg-type]
    # a carriage return starts a line of its own: it overwrites nothing
    assert terminal.lines[1:] == ["WRONG t::x - w", "    second ", "    forged"]


def test_the_summary_tables_print_no_escape() -> None:
    key = RunKey("toy", "sys\x1b[2J")
    summary = SuiteSummary({"accuracy": Metric(0.5, (0.4, 0.6), 4)}, note="note \x1b]0;x\x07\rforged")
    report = Report({}, (RunSummary(key, 4, 4, 0, 0, summary),), (), session_errors=())
    terminal = _Terminal()
    write_summary(terminal, report)  # type: ignore[arg-type]
    assert terminal.lines and all("\x1b" not in line and "\r" not in line for line in terminal.lines)
    assert any("note:" in line and "forged" in line for line in terminal.lines)
