"""LLM judges and panels: strict parsing, no score from invalid output, per-judge results."""

from __future__ import annotations

from pathlib import Path

import pytest
from llm_server import LLMServer, Reply

from pytest_memeval.errors import ResponseError
from pytest_memeval.llm import (
    InvalidOutput,
    JudgeFailure,
    JudgeOutputError,
    JudgePanel,
    LLMJudge,
    LLMSettings,
    TemplateJudgePrompt,
    cut,
    load_template,
    parse_score,
)
from pytest_memeval.types import Answer, Item, ItemView, Verdict

ITEM = Item("b-001", "ctx", "ctx", ItemView("behavior", "t", "Did it help?"), gold="helpful reply")
ANSWER = Answer("a long answer " * 200)


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-judge-test-000000000000")


@pytest.fixture
def prompt(tmp_path: Path) -> TemplateJudgePrompt:
    (tmp_path / "rate.toml").write_text(
        'name = "rate"\nversion = "1"\n'
        "system = '''Rate 1-5. Reply {\"score\": <1-5>, \"reason\": \"...\"}'''\n"
        "user = '''Reference: $gold\nResponse: $response'''\n"
    )
    return TemplateJudgePrompt(
        load_template("rate", directory=tmp_path),
        lambda item, answer: {"gold": str(item.gold), "response": cut(answer.label or "", 1500)},
        lambda text: parse_score(text, low=1, high=5, pass_at=4),
    )


def test_parse_score_is_strict():
    assert parse_score('{"score": 4, "reason": "ok"}', low=1, high=5, pass_at=4) == Verdict(
        correct=True, score=4.0, reason="ok", detail={"score": 4}
    )
    for bad in [
        '{"score": 6, "reason": ""}',
        '{"score": 4.5, "reason": ""}',
        '{"score": true, "reason": ""}',
        '{"score": "4", "reason": ""}',
        '{"score": 4}',
        '{"score": 4, "reason": "", "x": 1}',
        "4",
        "",
        '{"score": 4, "reason": 7}',
    ]:
        with pytest.raises(InvalidOutput):
            parse_score(bad, low=1, high=5)


def test_a_judge_scores_through_the_real_client(prompt: TemplateJudgePrompt):
    with LLMServer('{"score": 5, "reason": "matches"}') as server:
        judge = LLMJudge(prompt, LLMSettings(model="judge-a", base_url=server.base_url))
        verdict = judge.score(ITEM, ANSWER)
        judge.close()
        user = server.requests[0].messages[1]["content"]
    assert verdict.score == 5.0 and verdict.correct is True and verdict.reason == "matches"
    assert verdict.detail["judge"] == "judge-a" and verdict.detail["template"] == "rate@1"
    assert user == "Reference: helpful reply\nResponse: " + (ANSWER.label or "")[:1500]


@pytest.mark.parametrize(
    "reply", ['{"score": 9, "reason": "x"}', "Score: 5", Reply('{"score": 5, "rea', finish_reason="length")]
)
def test_invalid_judge_output_is_an_error_not_a_score(prompt: TemplateJudgePrompt, reply):
    with LLMServer(reply) as server:
        judge = LLMJudge(prompt, LLMSettings(model="judge-a", base_url=server.base_url))
        with pytest.raises(JudgeOutputError) as info:
            judge.score(ITEM, ANSWER, label="b-001")
        judge.close()
    error = info.value
    assert isinstance(error, ResponseError) and "b-001" in str(error) and "judge-a" in str(error)
    assert error.raw and "\n" not in str(error)


def panel_script(request):
    return {
        "judge-a": '{"score": 4, "reason": "good"}',
        "judge-b": '{"score": 2, "reason": "weak"}',
        "judge-c": "five",
    }[request.model]


def test_a_panel_returns_each_judges_parse(prompt: TemplateJudgePrompt, tmp_path: Path):
    with LLMServer(panel_script) as server:
        settings = LLMSettings(
            model="unused", base_url=server.base_url, cache_mode="readwrite", cache_path=tmp_path / "j.sqlite"
        )
        panel = JudgePanel.from_models(prompt, settings, ["judge-a", "judge-b", "judge-c"])
        results = panel.verdicts(ITEM, ANSWER)
        with pytest.raises(JudgeOutputError, match="2 of 3 judges"):
            panel.score(ITEM, ANSWER)
        panel.close()
        assert sorted(r.model for r in server.requests) == ["judge-a", "judge-b", "judge-c"]  # second round cached
    assert results["judge-a"].score == 4.0 and results["judge-b"].score == 2.0
    assert isinstance(results["judge-c"], JudgeFailure) and results["judge-c"].raw == "five"


def test_a_panel_aggregates_valid_scores(prompt: TemplateJudgePrompt):
    with LLMServer(panel_script) as server:
        settings = LLMSettings(model="unused", base_url=server.base_url)
        panel = JudgePanel.from_models(prompt, settings, ["judge-a", "judge-b", "judge-c"], min_valid=2)
        verdict = panel.score(ITEM, ANSWER)
        panel.close()
    assert verdict.score == 3.0 and verdict.correct is False  # one pass of two
    assert verdict.detail["judges"]["judge-c"] == {"invalid": "not a JSON document", "raw": "five"}
    assert verdict.detail["judges"]["judge-a"]["score"] == 4.0


def test_panel_transport_failures_raise(prompt: TemplateJudgePrompt):
    with LLMServer(lambda r: Reply.error(500) if r.model == "judge-b" else '{"score": 4, "reason": ""}') as server:
        settings = LLMSettings(model="x", base_url=server.base_url, max_attempts=2, backoff_s=0.01)
        panel = JudgePanel.from_models(prompt, settings, ["judge-a", "judge-b"])
        with pytest.raises(ResponseError, match="judge-b"):
            panel.score(ITEM, ANSWER, label="b-001")
        panel.close()
