"""memfail's LLM path: the D.2 response prompt and its strict parser, and the staged D.3 judge
against a loopback OpenAI-compatible server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from llm_server import LLMServer, Request
from pytest_memeval.suites.memfail.llm_judge import MemfailLLMJudge
from pytest_memeval.suites.memfail.llm_prompt import MemfailPrompt, parse_answer
from pytest_memeval.suites.memfail.model import Fact, Piece

from pytest_memeval.llm import JudgePanel, LLMSettings
from pytest_memeval.llm.calls import Completion
from pytest_memeval.types import Answer, Item, ItemView, Memory, Trace

OPTIONS = ("fold the laundry", "take scenic photos", "water the ferns", "read old diaries", "bake oat cookies")


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-memfail-test-0000000000")


def test_the_prompt_shows_memories_options_and_the_datasets_answer_format():
    prompt = MemfailPrompt()
    view = ItemView("memfail", "longhop", "When I call my mom, what do I end up doing?", OPTIONS)
    [user] = prompt.messages(view, [Memory("Whenever I call my mom, I plan a day trip.")])
    assert user["role"] == "user" and user["content"].startswith("You are an intelligent memory assistant")
    assert "- Whenever I call my mom, I plan a day trip." in user["content"]
    assert "Options:\nA. fold the laundry\nB. take scenic photos" in user["content"]
    assert '{"selected_choice"' in user["content"]
    [conditional] = prompt.messages(ItemView("memfail", "conditional", "Would Sylas draw maps?", ("yes", "no")), [])
    assert "Relevant Memories:\n\n\n\nEND of Relevant Memories" in conditional["content"]
    assert (
        '{"answer": "<yes or no>", "memories_used"' in conditional["content"]
        and "unknown" not in conditional["content"]
    )


@pytest.mark.parametrize(
    ("task", "text", "label", "abstained"),
    [
        ("longhop", '{"selected_choice": "b"}', "take scenic photos", False),
        ("conditional", '{"answer": "No.", "memories_used": "none"}', "no", False),
        (
            "persona",
            '{"answer": "I don\'t have information about Noah Brooks.", "memories_used": "none"}',
            "I don't have information about Noah Brooks.",
            True,
        ),
        (
            "persona",
            '{"answer": "I don\'t have any memories about Noah Brooks.", "memories_used": "none"}',
            "I don't have any memories about Noah Brooks.",
            True,
        ),
        (
            "coexisting",
            '{"answer": "fedoras, beanies", "memories_used": "I wear fedoras; beanies keep me warm"}',
            "fedoras, beanies",
            False,
        ),
    ],
)
def test_valid_answers_parse(task, text, label, abstained):
    answer = parse_answer(text, ItemView("memfail", task, "q?", OPTIONS if task == "longhop" else ()))
    assert (answer.valid, answer.label, answer.abstained) == (True, label, abstained)


def test_unknown_is_an_answer_of_the_guided_prompt_only():
    view = ItemView("memfail", "conditional", "q?", ("yes", "no"))
    text = '{"answer": "unknown", "memories_used": "none"}'
    paper = MemfailPrompt().parse(Completion(text), view)
    guided = MemfailPrompt("guided").parse(Completion(text), view)
    assert not paper.valid and paper.detail["invalid"] == "answer 'unknown' is not yes or no"
    assert (guided.valid, guided.label, guided.abstained) == (True, "unknown", True)


@pytest.mark.parametrize(
    ("task", "text"),
    [
        ("longhop", '{"selected_choice": "F"}'),
        ("longhop", '{"answer": "A"}'),
        ("conditional", '{"answer": "maybe", "memories_used": ""}'),
        ("conditional", '{"answer": "yes"}'),
        ("coexisting", "fedoras and beanies"),
        ("persona", '{"answer": "kiwi", "memories_used": "essay", "why": "essay"}'),
        ("persona", '{"answer": "kiwi", "memories_used": ["essay"]}'),
        ("update", '{"answer": 3, "memories_used": "none"}'),
    ],
)
def test_anything_else_is_invalid_and_keeps_the_raw_text(task, text):
    answer = parse_answer(text, ItemView("memfail", task, "q?", OPTIONS if task == "longhop" else ()))
    assert not answer.valid and answer.label is None and answer.raw == text and answer.detail["invalid"]
    cut = MemfailPrompt().parse(Completion(text, finish_reason="length"), ItemView("memfail", task, "q?", OPTIONS))
    assert cut.detail["invalid"].startswith("output cut at max_tokens")


RULE = Fact(
    "rule",
    (
        Piece(
            "Mira sketches floor plans only when it is raining.",
            ("Mira", "sketches floor plans"),
            ("only when", "it is raining"),
        ),
    ),
)


def _item(facts, dataset="cond_easy", task="conditional", gold="yes", grading=None) -> Item:
    private = {"facts": [f.to_json() for f in facts], "grading": grading or {}}
    view = ItemView("memfail", task, "It's pouring — would Mira sketch floor plans?")
    return Item(f"s42-{dataset}-000", f"s42-{dataset}", "c", view, gold, {"dataset": dataset}, private)


def _stage(request: Request) -> str:
    system = request.messages[0]["content"]
    for stage, cue in (
        ("storage", "stored in a memory system"),
        ("summary", "quality of a stored"),
        ("retrieval", "included in the memories retrieved"),
        ("answer", "checking whether an AI model"),
    ):
        if cue in system:
            return stage
    raise AssertionError(system)


def _judge(server: LLMServer) -> MemfailLLMJudge:
    settings = LLMSettings(model="judge-a", base_url=server.base_url)
    return MemfailLLMJudge(lambda prompt: JudgePanel.from_models(prompt, settings, ["judge-a"]))


def test_the_staged_judge_stops_at_the_first_failing_stage():
    failing = {"retrieval"}

    def script(request: Request) -> str:
        passed = _stage(request) not in failing
        return json.dumps({"verdict": int(passed), "reason": f"{_stage(request)} looked at it"})

    trace = Trace((Memory("Mira likes rain."),), lambda: [Memory("Mira sketches floor plans when it rains.")])
    with LLMServer(script) as server:
        judge = _judge(server)
        verdict = judge.score(_item([RULE]), Answer("yes", raw='{"answer": "yes"}'), trace)
        stages = [_stage(r) for r in server.requests]
        failing.clear()
        server.reset()
        right = judge.score(_item([RULE]), Answer("yes", raw='{"answer": "yes"}'), trace)
        all_stages = [_stage(r) for r in server.requests]
        user = server.requests[0].messages[1]["content"]
        judge.close()
    assert stages == ["storage", "summary", "retrieval"]
    assert verdict.stage == "retrieval"
    assert verdict.reason.startswith("retrieval: rule (LLM judge): retrieval looked at it (the answer is right")
    assert verdict.detail["judge"] == "llm" and verdict.detail["answer_check"] == "deterministic"
    assert all_stages == ["storage", "summary", "retrieval", "answer"] and right.correct
    assert "[1] Mira sketches floor plans when it rains." in user and "only when it is raining" in user


def test_misleading_questions_get_the_abstention_check_and_unlisted_stores_unknown():
    with LLMServer(lambda r: json.dumps({"verdict": 0 if _stage(r) == "retrieval" else 1, "reason": "x"})) as server:
        judge = _judge(server)
        misleading = _item(
            [], "persona", "persona", "I don't have information about Noah Brooks.", {"distractor": "Noah Brooks"}
        )
        abstained = judge.score(
            misleading, Answer("I don't have information about Noah Brooks.", abstained=True), Trace()
        )
        checked = server.requests[0].messages[0]["content"]
        unknown = judge.score(_item([RULE]), Answer("yes"), Trace((), lambda: None))
        judge.close()
    assert abstained.correct and "correctly ABSTAINED" in checked
    assert unknown.stage == "unknown" and unknown.reason.startswith("unknown: storage unknown")


@pytest.mark.slow
def test_an_llm_responder_and_judge_run_the_suite_through_pytest(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("MEMEVAL_CACHE_DIR", str(tmp_path / "cache"))

    def script(request: Request) -> str:
        content = request.messages[0]["content"]
        if content.startswith("You are a helpful chat assistant"):  # a storage turn: the model converses
            return "Noted, I will remember that."
        if content.startswith("You are an intelligent memory assistant"):
            return json.dumps({"answer": "yes", "memories_used": "-"})
        if _stage(request) == "answer":  # a judge that compares the answer with the ground truth
            text = request.messages[1]["content"]
            gold = text.split("GROUND TRUTH ANSWER:")[1].split("MODEL RESPONSE:")[0].strip()
            return json.dumps({"verdict": int(gold in text.split("MODEL RESPONSE:")[1]), "reason": "compared"})
        return json.dumps({"verdict": 1, "reason": "fine"})

    report = tmp_path / "report.json"
    with LLMServer(script) as server:
        result = pytester.runpytest(
            "--memsystem=context",
            "--memeval-suite=memfail",
            "--memeval-responder=openai:answerer",
            "--memeval-judge=openai:judge-a",
            f"--memeval-base-url={server.base_url}",
            f"--memeval-report={report}",
            "-m",
            "conditional_easy",
            "-p",
            "no:cacheprovider",
        )
        storage = [
            r for r in server.requests if r.messages[0]["content"].startswith("You are a helpful chat assistant")
        ]
        answers = [r for r in server.requests if r.messages[0]["content"].startswith("You are an intelligent memory")]
    records = json.loads(report.read_text())["records"]
    assert len(records) == 8 and all(r["detail"]["judge"] == "llm" and r["answer"] == "yes" for r in records)
    assert all(
        r["detail"]["attribution"] == "llm_judge" and r["detail"]["stored_turns"] == "user+assistant" for r in records
    )
    assert {r["stage"] for r in records} == {
        "correct",
        "reasoning",
    }  # the LLM judge says the facts were all fine
    assert {r["gold"] for r in records if r["stage"] == "correct"} == {"yes"}
    # every essay was a storage turn the model answered, and the store (context) holds both turns
    assert len(storage) == 8 and all(
        r.messages[0]["content"].endswith(r.messages[0]["content"].split("User: ", 1)[1]) for r in storage
    )
    assert "- Noted, I will remember that." in answers[0].messages[0]["content"]
    result.assert_outcomes(passed=sum(r["correct"] for r in records), failed=sum(not r["correct"] for r in records))
