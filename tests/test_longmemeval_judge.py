"""The official LongMemEval judge and metrics: its prompts byte for byte, its call settings and
its "yes" rule, print_qa_metrics.py's metrics against a hand computation, retrieval recall
(and "not available" for systems that keep no sources), and the offline stand-in."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from harness import make_record
from llm_server import LLMServer, Request
from pytest_memeval.suites.longmemeval.judge import NOT_AVAILABLE, OfflineJudge, offline_correct, recall
from pytest_memeval.suites.longmemeval.llm import (
    JUDGE_TEMPLATES,
    LongMemEvalPrompt,
    history,
    judge_prompt_key,
    judge_prompts,
    parse_yes,
)
from pytest_memeval.suites.longmemeval.summary import summarize

from pytest_memeval.llm.calls import Completion
from pytest_memeval.llm.strict_json import InvalidOutput
from pytest_memeval.llm.templates import load_template
from pytest_memeval.types import Answer, Item, ItemView, Memory, Trace

# The official texts, as get_anscheck_prompt in src/evaluation/evaluate_qa.py and prepare_prompt
# in src/generation/run_generation.py of xiaowu0162/LongMemEval write them at commit
# 9e0b455f4ef0e2ab8f2e582289761153549043fc (the "{}" are str.format's).
STANDARD = (
    "I will give you a question, a correct answer, and a response from a model. "
    "Please answer yes if the response contains the correct answer. Otherwise, answer no. "
    "If the response is equivalent to the correct answer or contains all the intermediate steps to get the "
    "correct answer, you should also answer yes. "
    "If the response only contains a subset of the information required by the answer, answer no. \n\n"
    "Question: {}\n\nCorrect Answer: {}\n\nModel Response: {}\n\n"
    "Is the model response correct? Answer yes or no only."
)
TEMPORAL = (
    "I will give you a question, a correct answer, and a response from a model. "
    "Please answer yes if the response contains the correct answer. Otherwise, answer no. "
    "If the response is equivalent to the correct answer or contains all the intermediate steps to get the "
    "correct answer, you should also answer yes. "
    "If the response only contains a subset of the information required by the answer, answer no. "
    "In addition, do not penalize off-by-one errors for the number of days. "
    "If the question asks for the number of days/weeks/months, etc., and the model makes off-by-one errors "
    "(e.g., predicting 19 days when the answer is 18), the model's response is still correct. "
    "\n\nQuestion: {}\n\nCorrect Answer: {}\n\nModel Response: {}\n\n"
    "Is the model response correct? Answer yes or no only."
)
KNOWLEDGE_UPDATE = (
    "I will give you a question, a correct answer, and a response from a model. "
    "Please answer yes if the response contains the correct answer. Otherwise, answer no. "
    "If the response contains some previous information along with an updated answer, the response should be "
    "considered as correct as long as the updated answer is the required answer.\n\n"
    "Question: {}\n\nCorrect Answer: {}\n\nModel Response: {}\n\n"
    "Is the model response correct? Answer yes or no only."
)
PREFERENCE = (
    "I will give you a question, a rubric for desired personalized response, and a response from a model. "
    "Please answer yes if the response satisfies the desired response. Otherwise, answer no. "
    "The model does not need to reflect all the points in the rubric. "
    "The response is correct as long as it recalls and utilizes the user's personal information correctly.\n\n"
    "Question: {}\n\nRubric: {}\n\nModel Response: {}\n\n"
    "Is the model response correct? Answer yes or no only."
)
ABSTENTION = (
    "I will give you an unanswerable question, an explanation, and a response from a model. "
    "Please answer yes if the model correctly identifies the question as unanswerable. "
    "The model could say that the information is incomplete, or some other information is given but the asked "
    "information is not.\n\n"
    "Question: {}\n\nExplanation: {}\n\nModel Response: {}\n\n"
    "Does the model correctly identify the question as unanswerable? Answer yes or no only."
)
READING = (
    "I will give you several history chats between you and a user. Please answer the question based on the "
    "relevant chat history. Answer the question step by step: first extract all the relevant information, and "
    "then reason over the information to get the answer.\n\n\nHistory Chats:\n\n{}\n\nCurrent Date: {}\n"
    "Question: {}\nAnswer (step by step):"
)
OFFICIAL = {
    "standard": STANDARD,
    "temporal-reasoning": TEMPORAL,
    "knowledge-update": KNOWLEDGE_UPDATE,
    "single-session-preference": PREFERENCE,
    "abstention": ABSTENTION,
}
#: values with what a second substitution would change
VALUES = ("What costs $5 {each}?", "$question", "It is {} and $answer.")


@pytest.mark.parametrize("key", sorted(OFFICIAL))
def test_each_judge_prompt_is_the_official_text_byte_for_byte(key: str) -> None:
    template = load_template(JUDGE_TEMPLATES[key])
    rendered = template.render(dict(zip(("question", "answer", "response"), VALUES)))
    assert rendered == [{"role": "user", "content": OFFICIAL[key].format(*VALUES)}]


def test_the_reading_prompt_is_the_papers_step_by_step_template() -> None:
    view = ItemView(
        "longmemeval",
        "single-session-user",
        "What is my dog's name?",
        extra={"question_date": "2023/05/30 (Tue) 23:40"},
    )
    memories = [
        Memory("[2023/05/02 (Tue) 11:00] user: My dog is called Rex."),
        Memory("The user owns a dog."),  # rewritten by the system: no date, kept as is, after the dated
        Memory("[2023/04/01 (Sat) 09:00] assistant: Hello!"),
    ]
    expected_history = (
        '\n### Session 1:\nSession Date: 2023/04/01 (Sat) 09:00\nSession Content:\n\n[{"role": "assistant", "content": "Hello!"}]\n'
        "\n### Session 2:\nSession Date: 2023/05/02 (Tue) 11:00\nSession Content:\n\n"
        '[{"role": "user", "content": "My dog is called Rex."}]\n'
        "\n### Session 3:\nSession Content:\n\nThe user owns a dog.\n"
    )
    assert history(memories) == expected_history
    messages = LongMemEvalPrompt().messages(view, memories)
    assert messages == [
        {"role": "user", "content": READING.format(expected_history, "2023/05/30 (Tue) 23:40", view.question)}
    ]


def test_any_reply_is_the_answer_and_an_empty_one_is_invalid() -> None:
    prompt, view = LongMemEvalPrompt(), ItemView("longmemeval", "t", "q")
    assert (
        prompt.parse(Completion(content=" Step 1: ... The answer is Rex. "), view).label
        == "Step 1: ... The answer is Rex."
    )
    assert not prompt.parse(Completion(content=" "), view).valid


def _item(task: str = "single-session-user", gold: Any = "Rex", abstention: bool = False, **private: Any) -> Item:
    view = ItemView("longmemeval", task, "What is my dog's name?", extra={"question_date": "2023/05/30 (Tue) 23:40"})
    return Item(
        "q1",
        "q1",
        "q1",
        view,
        gold,
        strata={"question_type": task, "abstention": "yes" if abstention else "no"},
        private={"abstention": abstention, "evidence_sessions": (), "evidence_turns": (), **private},
    )


@pytest.mark.parametrize(
    "task, abstention, key",
    [
        ("single-session-user", False, "standard"),
        ("single-session-assistant", False, "standard"),
        ("multi-session", False, "standard"),
        ("temporal-reasoning", False, "temporal-reasoning"),
        ("knowledge-update", False, "knowledge-update"),
        ("single-session-preference", False, "single-session-preference"),
        ("multi-session", True, "abstention"),
        ("temporal-reasoning", True, "abstention"),
    ],
)
def test_each_question_gets_its_types_prompt(task: str, abstention: bool, key: str) -> None:
    assert judge_prompt_key(_item(task, abstention=abstention)) == key


@pytest.mark.parametrize(
    "reply, correct",
    [("yes", True), ("Yes.", True), ("YES, it does", True), ("No.", False), ("no", False), ("Nope, yesterday", True)],
)
def test_correct_when_the_reply_contains_yes(reply: str, correct: bool) -> None:
    # "yesterday" holds "yes": evaluate_qa.py's rule is a substring test, and so is ours
    assert parse_yes(reply).correct is correct


def test_an_empty_reply_is_an_error_not_a_no() -> None:
    with pytest.raises(InvalidOutput):
        parse_yes("  ")


def test_the_released_answer_is_written_as_str_format_writes_it() -> None:
    prompts = judge_prompts()
    item = _item("multi-session", gold="3")  # the loader keeps str() of a released number
    (message,) = prompts["standard"].messages(item, Answer("three plants"))
    assert "Correct Answer: 3\n\nModel Response: three plants\n\n" in message["content"]


def test_the_suite_asks_its_panel_for_the_official_call_settings() -> None:
    from pytest_memeval.suites.longmemeval.suite import LongMemEvalSuite

    from pytest_memeval.framework.suite import SuiteOptions
    from pytest_memeval.llm import LLMSettings, PanelFactory, PanelMember

    suite = LongMemEvalSuite.__new__(LongMemEvalSuite)
    suite.options = SuiteOptions("smoke", None, None, 10, None, Path("."))
    member = PanelMember("gpt-4o-2024-08-06@longmemeval", "gpt-4o-2024-08-06", "longmemeval")
    judge = suite.llm_judge(PanelFactory(LLMSettings(model="run-model", max_tokens=1024), [member]))
    asked = [(panel.judges[0].prompt.template.name, panel.judges[0].settings) for panel in judge.panels.values()]
    assert sorted(name for name, _ in asked) == sorted(JUDGE_TEMPLATES.values())
    assert all((s.model, s.temperature, s.max_tokens) == ("gpt-4o-2024-08-06", 0.0, 10) for _, s in asked)
    judge.close()


# --- metrics ----------------------------------------------------------------------------


def _record(n: int, task: str, correct: bool, abstention: bool = False, **detail: Any) -> Any:
    return make_record(
        f"q{n}" + ("_abs" if abstention else ""),
        suite="longmemeval",
        cluster=f"q{n}",
        task=task,
        correct=correct,
        strata={"question_type": task, "abstention": "yes" if abstention else "no"},
        detail={"scorer": "official", **detail},
    )


#: (type, correct, abstention) of 14 scripted verdicts
SCRIPTED = [
    ("single-session-user", True, False),
    ("single-session-user", False, False),
    ("single-session-user", True, True),
    ("single-session-preference", True, False),
    ("single-session-preference", True, False),
    ("single-session-assistant", False, False),
    ("single-session-assistant", False, False),
    ("multi-session", True, False),
    ("multi-session", False, False),
    ("multi-session", False, True),
    ("temporal-reasoning", True, False),
    ("knowledge-update", False, False),
    ("knowledge-update", True, False),
    ("knowledge-update", True, True),
]


def test_metrics_equal_a_hand_computation() -> None:
    records = [_record(n, t, c, a) for n, (t, c, a) in enumerate(SCRIPTED)]
    summary = summarize(records, n_resamples=200)
    # by hand, as print_qa_metrics.py computes them (an abstention question counts in its type)
    by_type = {
        "single-session-user": Fraction(2, 3),
        "single-session-preference": Fraction(1),
        "single-session-assistant": Fraction(0),
        "multi-session": Fraction(1, 3),
        "temporal-reasoning": Fraction(1),
        "knowledge-update": Fraction(2, 3),
    }
    task_averaged = sum(by_type.values()) / 6  # 11/18
    overall = Fraction(8, 14)
    abstention = Fraction(2, 3)
    metric = lambda name: summary.metrics[name].value  # noqa: E731
    assert metric("task_averaged_accuracy") == pytest.approx(float(task_averaged), abs=1e-12)
    assert metric("overall_accuracy") == pytest.approx(float(overall), abs=1e-12)
    assert metric("abstention_accuracy") == pytest.approx(float(abstention), abs=1e-12)
    cells = summary.breakdown["question_type"]
    assert list(cells) == list(by_type)  # print_qa_metrics.py's order
    for task, value in by_type.items():
        assert cells[task].metrics["accuracy"].value == pytest.approx(float(value), abs=1e-12)
    low, high = summary.metrics["overall_accuracy"].ci
    assert low is not None and high is not None and low < float(overall) < high
    assert summary.metrics["session_recall_all"].value is None  # no item carries recall
    assert summary.metrics["abstention_accuracy"].n == 3


def test_all_correct_is_not_certainty_the_shares_have_wilson_intervals() -> None:
    """16 of 16 correct: the interval of a share is Wilson's [0.806, 1], never [1, 1]."""
    records = [_record(n, "multi-session", True, abstention=n < 4) for n in range(16)]
    summary = summarize(records, n_resamples=200)
    low, high = summary.metrics["overall_accuracy"].ci
    assert summary.metrics["overall_accuracy"].value == 1.0
    assert low == pytest.approx(16 / (16 + 1.959964**2), abs=1e-4) and high == 1.0
    low, high = summary.metrics["abstention_accuracy"].ci
    assert low == pytest.approx(4 / (4 + 1.959964**2), abs=1e-4) and high == 1.0
    low, _ = summary.breakdown["question_type"]["multi-session"].metrics["accuracy"].ci
    assert low is not None and low < 1.0


def test_a_run_with_fewer_types_says_what_it_averages() -> None:
    summary = summarize([_record(0, "multi-session", True), _record(1, "temporal-reasoning", False)], 200)
    assert summary.metrics["task_averaged_accuracy"].value == 0.5
    assert "averages the 2 question types present" in summary.note


# --- recall -----------------------------------------------------------------------------

EVIDENCE = {"evidence_turns": ("s1:1", "s2:3"), "evidence_sessions": ("s1", "s2")}


@pytest.mark.parametrize(
    "sources, expected",
    [
        ([("s1:1",), ("s2:3",)], (1.0, 1.0, 1.0, 1.0)),
        ([("s1:1",), ("x:1",)], (0.0, 1.0, 0.0, 1.0)),
        ([("s1:2",), ("s2:1",)], (0.0, 0.0, 1.0, 1.0)),  # the sessions, not the turns
        ([("x:1",)], (0.0, 0.0, 0.0, 0.0)),
        ([("s1:1", "s2:3")], (1.0, 1.0, 1.0, 1.0)),  # one memory made of both turns
    ],
)
def test_recall_over_the_sources_of_the_returned_memories(sources: list, expected: tuple) -> None:
    trace = Trace(tuple(Memory("m", sources=s) for s in sources), keeps_sources=True)
    found = recall(_item(**EVIDENCE), trace)
    assert (
        found["turn_recall_all"],
        found["turn_recall_any"],
        found["session_recall_all"],
        found["session_recall_any"],
    ) == expected


def test_recall_is_not_available_for_a_system_without_sources_never_zero() -> None:
    assert recall(_item(**EVIDENCE), Trace((Memory("m"),), keeps_sources=False)) == {"recall": NOT_AVAILABLE}
    records = [
        _record(0, "single-session-user", True, recall=NOT_AVAILABLE),
        _record(1, "multi-session", False, recall=NOT_AVAILABLE),
    ]
    summary = summarize(records, 200)
    assert summary.metrics["turn_recall_all"].value is None and summary.metrics["session_recall_all"].value is None
    assert "recall not available: the memory system keeps no sources" in summary.note


def test_items_without_evidence_carry_no_recall() -> None:
    assert recall(_item(abstention=True), Trace((Memory("m", sources=("s1:1",)),), keeps_sources=True)) == {}


def test_recall_metrics_average_the_items_that_have_it() -> None:
    records = [
        _record(0, "single-session-user", True, turn_recall_all=1.0, session_recall_all=1.0),
        _record(1, "multi-session", True, turn_recall_all=0.0, session_recall_all=1.0),
        _record(2, "single-session-assistant", True),  # no user-side evidence: left out
        _record(3, "multi-session", True, abstention=True),
    ]
    summary = summarize(records, 200)
    assert summary.metrics["turn_recall_all"].value == 0.5 and summary.metrics["turn_recall_all"].n == 2
    assert summary.metrics["session_recall_all"].value == 1.0


# --- the offline stand-in ---------------------------------------------------------------


@pytest.mark.parametrize(
    "task, gold, answer, correct",
    [
        ("single-session-user", "Rex", "Your dog is called Rex.", True),
        ("single-session-user", "Rex", "Rexford", False),
        ("multi-session", "3", "You added 13 plants.", False),
        ("multi-session", "3", "3", True),
        ("temporal-reasoning", "18 days", "19 days passed", True),
        ("temporal-reasoning", "18 days", "20 days", False),
        ("temporal-reasoning", "18 days", "18 weeks", False),
        ("single-session-preference", 'The user would prefer "jazz piano" ideas.', "How about jazz piano?", True),
        ("single-session-preference", 'The user would prefer "jazz piano" ideas.', "How about rock?", False),
    ],
)
def test_offline_containment(task: str, gold: str, answer: str, correct: bool) -> None:
    assert offline_correct(_item(task, gold), Answer(answer)) is correct


def test_offline_abstention_needs_a_declined_answer() -> None:
    item = _item("multi-session", "The information provided is not enough.", abstention=True)
    assert offline_correct(item, Answer("x", abstained=True))
    assert offline_correct(item, Answer("I don't know how many."))
    assert not offline_correct(item, Answer("You bought 2 puzzles."))
    assert not offline_correct(_item(), Answer("Rex", abstained=True))
    verdict = OfflineJudge().score(_item(), Answer("Rex"), Trace())
    assert verdict.correct and verdict.detail == {"scorer": "offline"}


# --- the whole path through pytest, with a scripted judge -------------------------------


def judge_script(request: Request) -> str:
    """'Yes.' for questions that start with "What" or "How many days", 'No.' otherwise."""
    prompt = request.messages[0]["content"]
    question = prompt.split("Question: ", 1)[1].split("\n", 1)[0]
    return "Yes." if question.startswith(("What", "How many days")) else "No."


@pytest.mark.slow
def test_a_run_judged_by_a_scripted_official_judge_reports_the_hand_computed_metrics(
    suite_pytester: pytest.Pytester,
) -> None:
    report, cache = suite_pytester.path / "report.json", suite_pytester.path / "judge.sqlite"
    judged = ("--memsystem=context", "--memeval-suite=longmemeval", "--memeval-judge=openai:gpt-4o-2024-08-06")
    with LLMServer(judge_script) as server:
        result = suite_pytester.runpytest_subprocess(
            *judged,
            f"--memeval-base-url={server.base_url}",
            f"--memeval-llm-cache-file={cache}",
            f"--memeval-report={report}",
            "-p",
            "no:cacheprovider",
        )
        requests = server.requests
        base_url = server.base_url
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stdout.str()[-3000:]
    (run,) = json.loads(report.read_text())["runs"]
    assert run["n_scored"] == 16 and len(requests) == 16
    for request in requests:
        assert len(request.messages) == 1 and request.messages[0]["role"] == "user"
        assert (request.body["temperature"], request.body["max_tokens"], request.model) == (0, 10, "gpt-4o-2024-08-06")
    openings = [r.messages[0]["content"].split(".")[0] for r in requests]
    assert openings.count("I will give you an unanswerable question, an explanation, and a response from a model") == 4
    # the sample by type: SSU 3 (What), SSA 2 (What), SSP 2 (Can you), TR 3 (How many days),
    # KU 3 (What), MS 3 (How many <things>); abstention: one each of SSU, MS, TR, KU
    value = lambda name: run["metrics"][name]["value"]  # noqa: E731
    assert value("overall_accuracy") == pytest.approx(11 / 16)
    assert value("task_averaged_accuracy") == pytest.approx(4 / 6)
    assert value("abstention_accuracy") == pytest.approx(3 / 4)
    cells = run["breakdown"]["question_type"]
    assert {t: c["metrics"]["accuracy"]["value"] for t, c in cells.items()} == {
        "single-session-user": 1.0,
        "single-session-preference": 0.0,
        "single-session-assistant": 1.0,
        "multi-session": 0.0,
        "temporal-reasoning": 1.0,
        "knowledge-update": 1.0,
    }
    assert run["key"]["judge"] == "gpt-4o-2024-08-06@longmemeval" and "graded offline" not in run["note"]
    # the verdicts replay from the call cache with the server gone
    replayed = suite_pytester.path / "replayed.json"
    again = suite_pytester.runpytest_subprocess(
        *judged,
        f"--memeval-base-url={base_url}",
        "--memeval-llm-cache=replay",
        f"--memeval-llm-cache-file={cache}",
        f"--memeval-report={replayed}",
        "-p",
        "no:cacheprovider",
    )
    assert again.ret == result.ret, again.stdout.str()[-3000:]
    assert json.loads(replayed.read_text())["runs"][0]["metrics"] == run["metrics"]
