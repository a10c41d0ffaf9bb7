"""PersonaMem's scoring rule, as `Evaluation.extract_answer` of the official inference.py applies it.

The model's reply is read twice. First the text after its last `<final_answer>` tag (one
closing `</final_answer>` at the end set aside, surrounding spaces stripped), then, when
that does not decide, the whole reply. In each, the options named are the letters a-d in
parentheses, "(c)", case-insensitive; only where there is none, the single letters a-d
standing alone as words ("c", and also the article "a" or the "d" of "I'd"). The answer is
correct when the options named in either reading are exactly the gold option: naming two
options, or none, is wrong. The gold is written "(c)" in the release and compared as its
letter (`lower().strip("() ")`).

Reimplemented from the rules above (bowen-upenn/PersonaMem, inference.py, the version with
`_extract_only_options`); the cases of tests/test_personamem_scoring.py pin each rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

TAG = "<final_answer>"
CLOSING_TAG = "</final_answer>"
#: the official instruction, byte for byte (Evaluation.query_llm's default `instructions`)
INSTRUCTIONS = (
    "Find the most appropriate model response and give your final answer (a), (b), (c), or (d) "
    "after the special token <final_answer>."
)
_IN_PARENTHESES = re.compile(r"\(([a-d])\)")
_ALONE = re.compile(r"\b([a-d])\b")


def gold_letter(correct_answer: str) -> str:
    """The released gold "(c)" as the letter the rule compares: "c"."""
    return correct_answer.lower().strip("() ")


def predicted_tail(reply: str) -> str:
    """The text after the reply's last <final_answer> tag, without a closing tag at its end:
    what the official results file records as `predicted_answer`."""
    tail = reply.strip()
    if TAG in tail:
        tail = tail.split(TAG)[-1].strip()
    if tail.endswith(CLOSING_TAG):
        tail = tail[: -len(CLOSING_TAG)].strip()
    return tail


def options_named(text: str) -> frozenset[str]:
    """The option letters `text` names: those in parentheses, else those standing alone."""
    lowered = text.lower()
    in_parentheses = _IN_PARENTHESES.findall(lowered)
    return frozenset(in_parentheses or _ALONE.findall(lowered))


@dataclass(frozen=True)
class Reading:
    """One reply as the rule reads it."""

    correct: bool
    #: the text after the last tag (the official `predicted_answer`)
    tail: str
    #: the options the tail names, and those the whole reply names
    tail_options: frozenset[str]
    reply_options: frozenset[str]


def read_reply(reply: str, correct_answer: str) -> Reading:
    """Whether `reply` answers `correct_answer` ("(c)"), as extract_answer decides it."""
    gold = {gold_letter(correct_answer)}
    tail = predicted_tail(reply)
    tail_options, reply_options = options_named(tail), options_named(reply)
    return Reading(tail_options == gold or reply_options == gold, tail, tail_options, reply_options)
