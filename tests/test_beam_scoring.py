"""BEAM's scoring as compute_metrics.py applies it, case by case, and the prompts as sent.

The expected values of the scripted-judge cases are what the official evaluate_* functions
(mohammadtavakoli78/BEAM src/evaluation/compute_metrics.py at commit b2a3ee8) returned for
the same judge replies, run once outside this repository with a model object that replays
them (its extract_facts call answered, its models stubbed); nothing of that code is here.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any, cast

import pytest
from pytest_memeval.suites.beam.judge import OfficialJudge, OfflineJudge, met_offline, rubric_text
from pytest_memeval.suites.beam.llm import BeamPrompt, EquivalencePrompt, RubricPrompt
from pytest_memeval.suites.beam.scoring import (
    CORRECTED,
    OFFICIAL,
    align,
    item_score,
    ordering_score,
    read_reply,
    scoring_setting,
)

from pytest_memeval.errors import ResponseError
from pytest_memeval.llm import LLMSettings
from pytest_memeval.llm.caller import ModelCaller
from pytest_memeval.llm.calls import ChatRequest, Completion
from pytest_memeval.llm.judge import JudgeOutputError, JudgePanel, LLMJudge
from pytest_memeval.llm.strict_json import InvalidOutput
from pytest_memeval.types import Answer, Item, ItemView, Memory, Trace

LOGIN = "LLM response should mention: the login page"
PAYMENT = "the payment flow"
SEARCH = "LLM response should mention: the search feature"


def official_judge_prompt() -> str:
    return RubricPrompt().text


# --- the prompts, byte for byte ------------------------------------------------------------


def test_the_judge_prompt_is_the_authors_byte_for_byte() -> None:
    text = official_judge_prompt()
    assert (
        hashlib.sha256(text.encode()).hexdigest() == "d349c9a8559bed9c14bfe2e624212225b09218ff864258a739229c15f4c8e869"
    )
    assert len(text) == 3882 and text.startswith("\nYou are an expert evaluator") and text.endswith("after that\n")


def test_the_answer_and_alignment_prompts_are_the_authors_byte_for_byte() -> None:
    rag = BeamPrompt().text
    assert (
        hashlib.sha256(rag.encode()).hexdigest() == "ed89b98d1024432a46bd297345961cf89d2429746daec37befb50db46e0c914a"
    )
    item = _item("event_ordering", ["r"], pair=("{first_paragraph}", "{second_paragraph}"))
    system, user = EquivalencePrompt().messages(item, Answer("x"))
    assert (system["role"], user["role"]) == ("system", "user")
    digests = [hashlib.sha256(m["content"].encode()).hexdigest() for m in (system, user)]
    assert digests == [
        "0863c78c1b27d36c97bb7bfd2d4d6b88ef69b093e92bb4719e665527722413e2",
        "6bf789b815decbeb1c27f5058e2416c2a6e167724c0433b1da27b0abe5cc73df",
    ]


def test_the_official_scoring_never_fills_the_question_the_corrected_one_does() -> None:
    item = _item("abstention", ["x"], rubric_item="has <llm_response> in it")
    (official,) = RubricPrompt(OFFICIAL).messages(item, Answer("THE ANSWER"))
    (corrected,) = RubricPrompt(CORRECTED).messages(item, Answer("THE ANSWER"))
    assert "- QUESTION (what the user asked): <question>\n" in official["content"]
    assert "- QUESTION (what the user asked): What is my database?\n" in corrected["content"]
    # str.replace in the official order: the rubric item first, so its own placeholder is filled too
    assert "- RUBRIC CRITERION (what to check): has THE ANSWER in it\n" in official["content"]
    expected = official_judge_prompt().replace("<rubric_item>", "has <llm_response> in it")
    assert official["content"] == expected.replace("<llm_response>", "THE ANSWER")


def test_the_answer_prompt_fills_context_then_question() -> None:
    view = ItemView("beam", "abstention", "What is <context>?")
    (message,) = BeamPrompt().messages(view, [Memory("one"), Memory("two <question>")])
    assert "CONTEXT:\none\n\ntwo What is <context>?\n\nQUESTION:\nWhat is <context>?\n" in message["content"]


# --- reading a reply and its points ------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ('{"score": 1.0, "reason": "ok"}', {"score": 1.0, "reason": "ok"}),
        ('```json\n{"score": 0.5, "reason": "x"}\n```', {"score": 0.5, "reason": "x"}),
        ('Here it is: {"score": 0, "reason": "y"} and more', {"score": 0, "reason": "y"}),
        ("  [1, 2]  ", [1, 2]),
    ],
)
def test_replies_are_read_as_parse_json_response_reads_them(reply: str, value: Any) -> None:
    assert read_reply(reply) == value


@pytest.mark.parametrize("reply", ["no json here", '{"score": 1.0, "reason": "unterminated}', ""])
def test_a_reply_without_json_is_invalid_output(reply: str) -> None:
    with pytest.raises(InvalidOutput):
        read_reply(reply)


@pytest.mark.parametrize(
    ("score", "ability", "scoring", "points"),
    [
        (1.0, "abstention", OFFICIAL, 1.0),
        (0.5, "abstention", OFFICIAL, 0.0),  # int(0.5): partial credit truncated
        (0.0, "summarization", OFFICIAL, 0.0),
        ("1", "knowledge_update", OFFICIAL, 1.0),  # int("1") works
        (True, "temporal_reasoning", OFFICIAL, 1.0),
        (0.5, "event_ordering", OFFICIAL, 0.5),  # float() in event ordering's loop
        ("0.5", "event_ordering", OFFICIAL, 0.5),
        (0.5, "abstention", CORRECTED, 0.5),
        ("0.5", "summarization", CORRECTED, 0.5),
        (1, "information_extraction", CORRECTED, 1.0),
    ],
)
def test_points_of_a_rubric_item(score: Any, ability: str, scoring: str, points: float) -> None:
    assert item_score({"score": score, "reason": ""}, ability, scoring) == points


@pytest.mark.parametrize(
    ("reply", "ability", "scoring"),
    [
        ({"score": "0.5"}, "abstention", OFFICIAL),  # int("0.5") stops the official evaluator
        ({"score": "1.0"}, "temporal_reasoning", OFFICIAL),
        ({"reason": "no score"}, "abstention", OFFICIAL),  # KeyError there
        ([1], "abstention", OFFICIAL),
        ({"score": float("nan")}, "abstention", OFFICIAL),
        ({"score": "high"}, "event_ordering", OFFICIAL),
        ({"score": 0.7}, "abstention", CORRECTED),
        ({"score": 2}, "abstention", CORRECTED),
    ],
)
def test_what_stops_the_official_evaluator_is_invalid_output_never_a_number(
    reply: Any, ability: str, scoring: str
) -> None:
    with pytest.raises(InvalidOutput):
        item_score(reply, ability, scoring)


def test_scoring_setting() -> None:
    assert scoring_setting(None) == OFFICIAL and scoring_setting(" Corrected ") == CORRECTED
    with pytest.raises(Exception, match="beam.scoring=lenient: one of official"):
        scoring_setting("lenient")


# --- event ordering ----------------------------------------------------------------------


def exact(first: str, second: str) -> bool:
    return first == second


@pytest.mark.parametrize(
    ("system", "f1", "tau_norm"),
    [
        ("A\nB\nC", 1.0, 1.0),
        ("Here is the order:\nA\nC\nB", 6 / 7, 1 / 3),
        ("A\n\nB\n\nC", 0.75, 5 / 6),
        ("C\nB\nA", 1.0, 0.0),
        ("X", 0.0, (1 - 1 / math.sqrt(2)) / 2),  # nothing shared still earns 0.146
    ],
)
def test_event_ordering_as_event_ordering_score_computes_it(system: str, f1: float, tau_norm: float) -> None:
    result = ordering_score(["A", "B", "C"], system, exact)
    assert result.f1 == pytest.approx(f1) and result.tau_norm == pytest.approx(tau_norm)
    assert result.final_score == pytest.approx(f1 * tau_norm)
    assert result.reported(OFFICIAL) == result.tau_norm and result.reported(CORRECTED) == result.final_score


def test_a_one_item_rubric_has_no_tau() -> None:
    assert math.isnan(ordering_score(["A"], "A", exact).tau_norm)


def test_alignment_takes_the_first_unused_item_and_asks_only_unused_ones() -> None:
    asked: list[tuple[str, str]] = []

    def same(first: str, second: str) -> bool:
        asked.append((first, second))
        return first.lower() == second.lower()

    assert align(["a", "b"], ["B", "A", "a"], same) == ["b", "a", "a"]
    # B: a? b!  A: a!  a: (a and b used) nothing asked
    assert asked == [("a", "B"), ("b", "B"), ("a", "A")]


# --- the scripted judge against the official evaluate_* results ----------------------------

#: (ability, rubric, response, the judge's reply per rubric item, the official result)
CASES: list[tuple[str, list[str], str, list[str], dict[str, float]]] = [
    (
        "abstention",
        ["LLM response should state: there is no information"],
        "There is no information.",
        ['{"score": 1.0, "reason": "ok"}'],
        {"llm_judge_score": 1.0},
    ),
    (
        "contradiction_resolution",
        ["a", "b", "c", "d"],
        "resp",
        [f'{{"score": {s}, "reason": "r"}}' for s in ("1.0", "0.5", "0.5", "0.0")],
        {"llm_judge_score": 0.25},
    ),
    (
        "information_extraction",
        ["x", "y"],
        "resp",
        ['```json\n{"score": 1, "reason": "x"}\n```', 'Here: {"score": 0.5, "reason": "y"} done'],
        {"llm_judge_score": 0.5},
    ),
    ("knowledge_update", ["k"], "resp", ['{"score": "1", "reason": "s"}'], {"llm_judge_score": 1.0}),
    ("summarization", ["s1", "s2", "s3"], "resp", ['{"score": 0.5, "reason": "r"}'] * 3, {"llm_judge_score": 0.0}),
    (
        "instruction_following",
        ["i1", "i2"],
        "resp",
        ['{"score": 1.0, "reason": "r"}', '{"score": 0.0, "reason": "r"}'],
        {"llm_judge_score": 0.5},
    ),
    (
        "event_ordering",
        [LOGIN, PAYMENT, SEARCH],
        "Here is the order:\nthe payment flow\nthe login page\n\nthe search feature",
        [f'{{"score": {s}, "reason": "r"}}' for s in ("1.0", "0.5", "0.0")],
        {
            "precision": 0.6,
            "recall": 1.0,
            "f1": 0.7499999999999999,
            "tau_norm": 0.447295372330527,
            "final_score": 0.3354715292478952,
            "llm_judge_score": 0.5,
            "pairs": 8,
        },
    ),
    (
        "event_ordering",
        [LOGIN, PAYMENT, SEARCH],
        "the login page\nthe payment flow\nthe search feature",
        ['{"score": 1.0, "reason": "r"}'] * 3,
        {
            "precision": 1.0,
            "recall": 1.0,
            "f1": 1.0,
            "tau_norm": 1.0,
            "final_score": 1.0,
            "llm_judge_score": 1.0,
            "pairs": 3,
        },
    ),
    (
        "event_ordering",
        [LOGIN, PAYMENT, SEARCH],
        "nothing relevant",
        ['{"score": 0.0, "reason": "r"}'] * 3,
        {
            "precision": 0.0,
            "recall": 0.0,
            "f1": 0.0,
            "tau_norm": 0.14644660940672616,
            "final_score": 0.0,
            "llm_judge_score": 0.0,
            "pairs": 3,
        },
    ),
]


def equivalent(first: str, second: str) -> str:
    """The scripted alignment judge: YES when the line is part of the rubric item."""
    line = second.strip().lower()
    return "YES" if line and line in first.lower() else "NO"


class ScriptedCaller:
    """Stands in for a model: replies to a judge prompt by its rubric item, to an alignment
    by `equivalent`; keeps every request."""

    def __init__(self, replies: dict[str, str]) -> None:
        self.replies = replies
        self.requests: list[ChatRequest] = []

    def call(self, request: ChatRequest, *, label: str | None = None) -> Completion:
        self.requests.append(request)
        messages = request.messages
        if len(messages) == 2:
            user = messages[1]["content"]
            first = user.split("First snippet: ", 1)[1].split(" \n\n", 1)[0]
            second = user.split("Second snippet: ", 1)[1].rsplit("\n", 1)[0]
            return Completion(equivalent(first, second), finish_reason="stop")
        item = messages[0]["content"].split("- RUBRIC CRITERION (what to check): ", 1)[1].split("\n", 1)[0]
        return Completion(self.replies[item], finish_reason="stop")

    def close(self) -> None:
        pass


def scripted_judge(replies: dict[str, str], scoring: str = OFFICIAL) -> tuple[OfficialJudge, ScriptedCaller]:
    caller = ScriptedCaller(replies)
    settings = LLMSettings(model="gpt-4.1-mini", temperature=0.0, cache_mode="off")

    def panel(prompt: Any) -> JudgePanel:
        judge = LLMJudge(prompt, settings, caller=cast(ModelCaller, caller), name="gpt-4.1-mini@beam")
        return JudgePanel([judge])

    return OfficialJudge(panel(RubricPrompt(scoring)), panel(EquivalencePrompt())), caller


def _item(ability: str, rubric: list[str], scoring: str = OFFICIAL, **private: Any) -> Item:
    return Item(
        id=f"100K-1-{ability}-1",
        context_id="100K-1",
        cluster="100K-1",
        view=ItemView("beam", ability, "What is my database?"),
        gold=rubric,
        strata={"ability": ability, "scale": "100K"},
        private={"rubric": rubric, "scoring": scoring, **private},
    )


@pytest.mark.parametrize(("ability", "rubric", "response", "replies", "official"), CASES)
def test_a_scripted_judge_scores_each_item_as_the_official_code(
    ability: str, rubric: list[str], response: str, replies: list[str], official: dict[str, float]
) -> None:
    judge, caller = scripted_judge(dict(zip(rubric, replies)))
    verdict = judge.score(_item(ability, rubric), Answer(response), Trace())
    pairs = sum(len(r.messages) == 2 for r in caller.requests)
    assert len(caller.requests) - pairs == len(rubric)  # one judge call per rubric item
    if ability == "event_ordering":
        assert pairs == official["pairs"]
        for name in ("precision", "recall", "f1", "tau_norm", "final_score", "llm_judge_score"):
            assert verdict.detail[name] == pytest.approx(official[name], abs=1e-12), name
        assert verdict.score == pytest.approx(official["tau_norm"], abs=1e-12)  # what report_results.py averages
    else:
        assert verdict.score == official["llm_judge_score"]
    for request in caller.requests:
        assert (request.model, request.params["temperature"]) == ("gpt-4.1-mini", 0.0)


def test_the_corrected_scoring_keeps_partial_credit_and_reports_tau_times_f1() -> None:
    _, rubric, response, replies, official = CASES[1]
    judge, _ = scripted_judge(dict(zip(rubric, replies)), CORRECTED)
    assert judge.score(_item("contradiction_resolution", rubric, CORRECTED), Answer(response), Trace()).score == 0.5
    _, rubric, response, replies, official = CASES[6]
    judge, _ = scripted_judge(dict(zip(rubric, replies)), CORRECTED)
    verdict = judge.score(_item("event_ordering", rubric, CORRECTED), Answer(response), Trace())
    assert verdict.score == pytest.approx(official["final_score"])


def test_a_string_half_point_is_an_error_record_not_a_score() -> None:
    judge, _ = scripted_judge({"x": '{"score": "0.5", "reason": "r"}'})
    with pytest.raises(JudgeOutputError, match="0 of 1 judges gave a valid score"):
        judge.score(_item("temporal_reasoning", ["x"]), Answer("resp"), Trace())


def test_an_undefined_tau_is_an_error_not_nan() -> None:
    with pytest.raises(ResponseError, match="tau-b is undefined"):
        OfflineJudge().score(_item("event_ordering", ["A"]), Answer("A"), Trace())


# --- the offline judge -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "response", "met"),
    [
        ("LLM response should state: $1,200", "Your budget is $1,200.", True),
        ("LLM response should state: 8 weeks", "It took 4 weeks.", False),
        ("LLM response should not mention: Docker", "Use Podman.", True),
        ("LLM response should avoid: Docker", "Use Docker.", False),
        (
            "Based on the provided chat, there is no information",
            "Based on the provided chat, there is no information.",
            True,
        ),
        ("LLM response should end with: Cheers", "Your deadline is June 14. Cheers", True),
    ],
)
def test_offline_rubric_lookup(entry: str, response: str, met: bool) -> None:
    assert met_offline(entry, response) is met


def test_rubric_prefixes() -> None:
    assert rubric_text("LLM response should not contain: X") == (True, "X")
    assert rubric_text("LLM response should end with: W") == (False, "W")
    assert rubric_text("bare item") == (False, "bare item")


def test_offline_judge_scores_each_rubric_item() -> None:
    item = _item("information_extraction", ["LLM response should state: MySQL", "LLM response should state: 7"])
    verdict = OfflineJudge().score(item, Answer("It is MySQL."), Trace())
    assert verdict.score == 0.5 and verdict.correct is False and verdict.detail["points"] == [1.0, 0.0]
    assert OfflineJudge().score(item, Answer("MySQL, 7"), Trace()).correct
