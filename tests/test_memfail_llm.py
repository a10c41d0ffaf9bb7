"""memfail's LLM path: the D.2 response prompt and its strict parser, and the staged D.3 judge
against a loopback OpenAI-compatible server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from llm_server import LLMServer, Request

from pytest_memeval.benchmarks.memfail.llm_judge import MemfailLLMJudge
from pytest_memeval.benchmarks.memfail.llm_prompt import MemfailPrompt, parse_answer
from pytest_memeval.benchmarks.memfail.model import Fact, Piece
from pytest_memeval.models import JudgePanel, LLMSettings
from pytest_memeval.models.calls import Completion
from pytest_memeval.types import Answer, Item, ItemView, Memory, Trace

OPTIONS = ("fold the laundry", "take scenic photos", "water the ferns", "read old diaries", "bake oat cookies")


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-memfail-test-0000000000")


def test_the_prompt_shows_memories_options_and_the_datasets_answer_format():
    prompt = MemfailPrompt()
    view = ItemView("memfail", "longhop", "When I call my mom, what do I end up doing?", OPTIONS)
    system, user = prompt.messages(view, [Memory("Whenever I call my mom, I plan a day trip.")])
    assert "intelligent memory assistant" in system["content"]
    assert "- Whenever I call my mom, I plan a day trip." in user["content"]
    assert "B. take scenic photos" in user["content"] and '{"selected_choice"' in user["content"]
    conditional = prompt.messages(ItemView("memfail", "conditional", "Would Sylas draw maps?", ("yes", "no")), [])
    assert "(No memories were retrieved for this question.)" in conditional[1]["content"]
    assert '"yes, no or unknown"' in conditional[1]["content"].replace("<", '"').replace(">", '"')


@pytest.mark.parametrize(
    ("task", "text", "label", "abstained"),
    [
        ("longhop", '{"selected_choice": "b"}', "take scenic photos", False),
        ("conditional", '{"answer": "No."}', "no", False),
        ("conditional", '{"answer": "unknown"}', "unknown", True),
        ("persona", '{"answer": "I don\'t have information about Noah Brooks."}', "I don't have information about Noah Brooks.", True),
        ("coexisting", '{"answer": "fedoras, beanies"}', "fedoras, beanies", False),
    ],
)
def test_valid_answers_parse(task, text, label, abstained):
    answer = parse_answer(text, ItemView("memfail", task, "q?", OPTIONS if task == "longhop" else ()))
    assert (answer.valid, answer.label, answer.abstained) == (True, label, abstained)


@pytest.mark.parametrize(
    ("task", "text"),
    [("longhop", '{"selected_choice": "F"}'), ("longhop", '{"answer": "A"}'), ("conditional", '{"answer": "maybe"}'),
     ("coexisting", "fedoras and beanies"), ("persona", '{"answer": "kiwi", "why": "essay"}'), ("update", '{"answer": 3}')],
)
def test_anything_else_is_invalid_and_keeps_the_raw_text(task, text):
    answer = parse_answer(text, ItemView("memfail", task, "q?", OPTIONS if task == "longhop" else ()))
    assert not answer.valid and answer.label is None and answer.raw == text and answer.detail["invalid"]
    cut = MemfailPrompt().parse(Completion(text, finish_reason="length"), ItemView("memfail", task, "q?", OPTIONS))
    assert cut.detail["invalid"].startswith("output cut at max_tokens")


RULE = Fact("rule", (Piece("Mira sketches floor plans only when it is raining.", ("Mira", "sketches floor plans"),
                           ("only when", "it is raining")),))


def _item(facts, dataset="cond_easy", task="conditional", gold="yes", grading=None) -> Item:
    private = {"facts": [f.to_json() for f in facts], "grading": grading or {}}
    view = ItemView("memfail", task, "It's pouring — would Mira sketch floor plans?")
    return Item(f"s42-{dataset}-000", f"s42-{dataset}", "c", view, gold, {"dataset": dataset}, private)


def _stage(request: Request) -> str:
    system = request.messages[0]["content"]
    for stage, cue in (("storage", "stored in a memory system"), ("summary", "quality of a stored"),
                       ("retrieval", "included in the memories retrieved"), ("answer", "checking whether an AI model")):
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
    assert verdict.detail["stage"] == "retrieval"
    assert verdict.reason.startswith("retrieval: rule (LLM judge): retrieval looked at it (the answer is right")
    assert verdict.detail["judge"] == "llm" and verdict.detail["answer_check"] == "deterministic"
    assert all_stages == ["storage", "summary", "retrieval", "answer"] and right.correct
    assert "[1] Mira sketches floor plans when it rains." in user and "only when it is raining" in user


def test_misleading_questions_get_the_abstention_check_and_unlisted_stores_unknown():
    with LLMServer(lambda r: json.dumps({"verdict": 0 if _stage(r) == "retrieval" else 1, "reason": "x"})) as server:
        judge = _judge(server)
        misleading = _item([], "persona", "persona", "I don't have information about Noah Brooks.", {"distractor": "Noah Brooks"})
        abstained = judge.score(misleading, Answer("I don't have information about Noah Brooks.", abstained=True), Trace())
        checked = server.requests[0].messages[0]["content"]
        unknown = judge.score(_item([RULE]), Answer("yes"), Trace((), lambda: None))
        judge.close()
    assert abstained.correct and "correctly ABSTAINED" in checked
    assert unknown.detail["stage"] == "unknown" and unknown.reason.startswith("unknown: storage unknown")


def test_an_llm_responder_and_judge_run_the_suite_through_pytest(pytester: pytest.Pytester, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MEMEVAL_CACHE_DIR", str(tmp_path / "cache"))

    def script(request: Request) -> str:
        if "intelligent memory assistant" in request.messages[0]["content"]:
            return json.dumps({"answer": "yes"})
        if _stage(request) == "answer":  # a judge that compares the answer with the ground truth
            text = request.messages[1]["content"]
            gold = text.split("GROUND TRUTH ANSWER:")[1].split("MODEL RESPONSE:")[0].strip()
            return json.dumps({"verdict": int(gold in text.split("MODEL RESPONSE:")[1]), "reason": "compared"})
        return json.dumps({"verdict": 1, "reason": "fine"})

    report = tmp_path / "report.json"
    with LLMServer(script) as server:
        result = pytester.runpytest(
            "--memsystem=context", "--memeval-suite=memfail", "--memeval-responder=openai:answerer",
            "--memeval-judge=openai:judge-a", f"--memeval-base-url={server.base_url}", f"--memeval-report={report}",
            "-m", "conditional_easy", "-p", "no:cacheprovider",
        )
    records = json.loads(report.read_text())["records"]
    assert len(records) == 8 and all(r["detail"]["judge"] == "llm" and r["answer"] == "yes" for r in records)
    assert {r["detail"]["stage"] for r in records} == {"correct", "reasoning"}  # the LLM judge says the facts were all fine
    assert {r["gold"] for r in records if r["detail"]["stage"] == "correct"} == {"yes"}
    result.assert_outcomes(passed=sum(r["correct"] for r in records), failed=sum(not r["correct"] for r in records))
