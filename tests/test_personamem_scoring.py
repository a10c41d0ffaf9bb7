"""PersonaMem's scoring rule, one case per rule of `Evaluation.extract_answer` (the official
inference.py, the version with `_extract_only_options`), and the official instruction's bytes."""

from __future__ import annotations

import hashlib

import pytest
from pytest_memeval.suites.personamem.judge import PersonaMemJudge
from pytest_memeval.suites.personamem.scoring import INSTRUCTIONS, gold_letter, predicted_tail, read_reply

from pytest_memeval.types import Answer, Item, ItemView, Trace

#: (reply, gold, correct, the official predicted_answer), one or more per rule
CASES = [
    # the text after the tag decides
    ("<final_answer>(a)", "(a)", True, "(a)"),
    ("<final_answer>(b)", "(a)", False, "(b)"),
    # the LAST tag's text: an earlier tag's option is not the answer
    ("<final_answer>(b) hmm, no. <final_answer>(a)", "(a)", True, "(a)"),
    # one closing tag at the end is set aside
    ("<final_answer>(a)</final_answer>", "(a)", True, "(a)"),
    ("  <final_answer>  (c)  </final_answer>  ", "(c)", True, "(c)"),
    # an option mentioned before the tag does not count against the answer after it
    ("I think (b) is tempting but <final_answer>(a)", "(a)", True, "(a)"),
    # letters in parentheses take precedence over letters standing alone
    ("<final_answer>(a) is better than b", "(a)", True, "(a) is better than b"),
    # without parentheses, a letter standing alone as a word is an option
    ("<final_answer> a", "(a)", True, "a"),
    ("The answer is a", "(a)", True, "The answer is a"),
    # ... so the article and the d of I'd count: two options named, wrong
    ("Reasoning about (b)... <final_answer>I'd pick a", "(a)", False, "I'd pick a"),
    # a letter inside a word is no option
    ("<final_answer>bad idea", "(b)", False, "bad idea"),
    # case-insensitive, in the reply and in the gold
    ("<final_answer>(A)", "(a)", True, "(A)"),
    ("<final_answer>(c)", " (C) ", True, "(c)"),
    # two options named: wrong, even when one is the gold
    ("(a) or (b)", "(a)", False, "(a) or (b)"),
    ("<final_answer>(a) because (b) is outdated", "(a)", False, "(a) because (b) is outdated"),
    # the whole reply is read when the tail does not decide: it names only the gold
    ("(a) fits best.\n<final_answer>the first option", "(a)", True, "the first option"),
    # ... and does not rescue a tail naming another option
    ("(a) fits. <final_answer>(b)", "(a)", False, "(b)"),
    # letters after d are no options
    ("(e)", "(a)", False, "(e)"),
    ("<final_answer>(c) not (e)", "(c)", True, "(c) not (e)"),
    # nothing named, nothing after the tag, no reply
    ("no letter here", "(a)", False, "no letter here"),
    ("<final_answer>", "(a)", False, ""),
    ("", "(a)", False, ""),
]


@pytest.mark.parametrize(("reply", "gold", "correct", "tail"), CASES)
def test_each_rule_of_extract_answer(reply: str, gold: str, correct: bool, tail: str) -> None:
    reading = read_reply(reply, gold)
    assert (reading.correct, reading.tail) == (correct, tail)
    assert predicted_tail(reply) == tail


def test_the_gold_is_compared_as_its_letter() -> None:
    assert [gold_letter(g) for g in ("(a)", "(B)", " (c) ", "d")] == ["a", "b", "c", "d"]


def test_the_instruction_is_the_official_one_byte_for_byte() -> None:
    assert len(INSTRUCTIONS) == 129
    assert (
        hashlib.sha256(INSTRUCTIONS.encode()).hexdigest()
        == "7209bb4eacd76d1b69198676ef5929b459f2a31a2dfb626e88ffaa9fd87a361e"
    )


def _item(gold: str) -> Item:
    return Item("i", "c", "persona-1", ItemView("personamem", "choice", "q"), gold=gold)


def test_the_judge_reads_the_whole_reply_and_says_what_it_named() -> None:
    judge = PersonaMemJudge()
    right = judge.score(_item("(b)"), Answer("(b)", raw="(b) it is. <final_answer>(b)"), Trace())
    assert right.correct and right.score == 1.0 and right.reason == ""
    wrong = judge.score(_item("(b)"), Answer("(a) or (c)", raw="<final_answer>(a) or (c)"), Trace())
    assert not wrong.correct and wrong.reason == "gold (b); the reply names a, c"
    assert wrong.detail["tail_options"] == ["a", "c"]
    silent = judge.score(_item("(b)"), Answer(None, abstained=True, raw=""), Trace())
    assert not silent.correct and silent.reason == "gold (b); the reply names no option"
