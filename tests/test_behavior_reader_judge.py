"""The behavior reader and judges: answers from what is served alone, the rubric on hand
cases, the calibration inputs, and the LLM prompts and panel through a loopback server."""

from __future__ import annotations

from pathlib import Path

import pytest
from llm_server import LLMServer
from pytest_memeval.suites.behavior.judge import ABSTENTION, OfflineJudge, recognize, rubric_score
from pytest_memeval.suites.behavior.lexicon import AXES
from pytest_memeval.suites.behavior.llm import BehaviorPrompt, judge_prompt, parse_digit
from pytest_memeval.suites.behavior.reader import BehaviorReader
from pytest_memeval.suites.behavior.suite import BehaviorSuite

from pytest_memeval.config.judge_specs import PanelMember
from pytest_memeval.errors import ConfigError, ResponseError
from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.llm import InvalidOutput, LLMSettings
from pytest_memeval.llm.calls import Completion
from pytest_memeval.llm.judge import PanelFactory
from pytest_memeval.types import Answer, ItemView, Memory, Trace

RISK, LOYALTY = 5, 1
BOLD = AXES[RISK].poles[1]


def _suite(tmp_path: Path, size: str = "smoke", **params: str) -> BehaviorSuite:
    return BehaviorSuite(
        SuiteOptions(
            size=size, split=None, seeds=None, k=10, data_dir=None, cache_dir=tmp_path, bootstrap=200, params=params
        )
    )


def _view(question: str, task: str = "risk", **extra: object) -> ItemView:
    return ItemView("behavior", task, question, extra=extra)


QUESTION = "Faced with a proposal to invest in a brewery a neighbour is starting, what would this person do?"
TORN = "Faced with a chance to buy a struggling inn at a low price, when it would cross a long-time ally, what would this person do?"


def test_the_reader_predicts_the_behaviour_its_memories_show() -> None:
    reader = BehaviorReader()
    memories = [
        Memory(
            "One autumn, there came a scheme to ship wool to a distant port. I chose to stake everything on it at once."
        ),
        Memory(
            "Soon after my marriage, there came a cousin's plan to open a second mill. I chose to stake everything on it at once."
        ),
        Memory(
            "In my middle years, there came an invitation to buy shares in a new canal. I chose to try a small trial before risking more."
        ),
    ]
    answer = reader.answer(_view(QUESTION), memories)
    assert answer.label == "I would stake everything on it at once." and not answer.abstained
    # one vote each way on the behaviour: the direction without a specific behaviour
    answer = reader.answer(
        _view(QUESTION),
        memories[:1] + [Memory("subject | decided | to borrow to go in deeper than anyone advised (x)")],
    )
    assert answer.label == f"I would {BOLD.generic}."


def test_a_recorded_priority_decides_between_two_principles() -> None:
    reader = BehaviorReader()
    texts = [
        "subject | decided | to stake everything on it at once (faced with a)",
        "subject | decided | to turn the offer down and stay with the old partner (faced with b)",
    ]
    memories = [Memory(t) for t in texts]
    assert reader.answer(_view(TORN), memories).detail["basis"] == "question category"
    assert "stake everything" in (reader.answer(_view(TORN), memories).label or "")
    ranked = memories + [Memory("subject | prioritizes | loyalty and gain over risk")]
    assert reader.answer(_view(TORN), ranked).label == "I would turn the offer down and stay with the old partner."
    spec = "A1. LOYALTY BEFORE GAIN. Holds loyalty to old allies over personal gain. Active when: x.\nA2. FORTUNE FAVOURS THE BOLD. Holds opportunity over safety. Active when: y."
    answer = reader.answer(_view(TORN, spec=spec), [])
    assert answer.detail["basis"] == "anchor ranks" and answer.label == f"I would {AXES[LOYALTY].poles[0].generic}."


def test_without_evidence_the_reader_falls_back_on_a_norm_or_abstains() -> None:
    reader = BehaviorReader()
    normed = reader.answer(_view(QUESTION), [])  # this situation has a common expectation
    assert normed.label == f"Most people would {AXES[RISK].poles[0].variants[0]}, and I suppose I would too."
    no_norm = _view("Faced with a plan to mine coal under the family's land, what would this person do?")
    answer = reader.answer(no_norm, [Memory("I grew up in a stone house by the river.")])
    assert answer.abstained and ABSTENTION.search(answer.label.lower())


def test_the_reader_answers_from_the_view_and_memories_alone(tmp_path: Path) -> None:
    """Leakage boundary: items of different subjects asked the same question get the same
    answer from the same memories; the views and stored text carry nothing private."""
    suite = _suite(tmp_path, "small")
    reader = suite.reader()
    entries = suite.index()
    by_question: dict[tuple[str, str], list] = {}
    for entry in entries:
        if entry.id.endswith("-C1"):
            item = suite.item(entry.id)
            by_question.setdefault((item.view.question, item.view.task), []).append(item)
    shared = [items for items in by_question.values() if len(items) >= 2]
    assert shared
    memories = [Memory(m.content) for s in suite.context("s2026-p03-corpus").sessions for m in s][:12]
    for items in shared:
        first, *others = items
        assert all(other.view == first.view for other in others)
        answers = [reader.answer(item.view, memories) for item in items]
        assert all(answer == answers[0] for answer in answers)
    secrets = (
        "s2026",
        "p01",
        "q01",
        "C4a",
        "C2c",
        "exception",
        "conventionality",
        "strength",
        "signature",
        "direct",
        "corpus-",
    )
    views = [suite.item(e.id).view for e in entries[::7]]
    stored = [m.content for e in entries[::40] for s in suite.context(e.context_id).sessions for m in s]
    public = "\n".join([*(v.question + v.task + repr(dict(v.extra)) for v in views), *stored])
    for secret in secrets:
        assert secret not in public, secret
    assert not any("gold" in v.extra or "condition" in v.extra for v in views)


@pytest.mark.parametrize(
    "predicted, expected",
    [((RISK, 1, 1), 5), ((RISK, 1, 0), 4), ((RISK, 1, -1), 4), ((RISK, 0, 1), 3), ((LOYALTY, 1, 1), 2), (None, 1)],
)
def test_the_rubric_on_hand_cases(predicted, expected) -> None:  # type: ignore[no-untyped-def]
    assert rubric_score(predicted, RISK, 1, 1) == expected


def test_recognising_a_prediction() -> None:
    assert recognize("I would stake everything on it at once.").key == (RISK, 1, 0)
    assert recognize("Most people would play it safe.").key == (RISK, 0, -1)
    # a behaviour wins over a direction mentioned earlier
    assert recognize("I would take the chance: stake everything on it at once.").key == (RISK, 1, 0)
    free = recognize("Knowing myself, I would borrow and go in deeper than anyone advised me.")
    assert free.key == (RISK, 1, 1) and free.how == "free text"
    assert recognize("I cannot say what I would do.").how == "abstention"
    assert recognize("The weather was fine that year.") == recognize("") and recognize("").key is None
    assert (
        recognize("x" * 1500 + " I would stake everything on it at once.").key is None
    )  # past the 1,500-character cut


def test_calibration_inputs(tmp_path: Path) -> None:
    """The paper's four diagnostics (section 3.3.3) on the offline judge."""
    suite = _suite(tmp_path)
    judge = OfflineJudge()
    for entry in suite.index()[::11]:
        item = suite.item(entry.id)
        passage = item.gold
        score = lambda text: judge.score(item, Answer(text), Trace()).score  # noqa: E731, B023
        assert score(passage) == 5  # verbatim
        assert score(passage + " " + "I have thought about many things over the years. " * 8) == 5  # long, padded
        assert score(passage.split(". ")[0] + ".") < 5  # the first sentence only: the situation, no decision
        behaviour = item.private["behaviour"]
        assert (
            score(f"Knowing me, {behaviour.split(' ', 1)[1]}? I would {behaviour}, without a doubt.") == 5
        )  # reworded


def test_the_offline_verdict_is_labelled_approximate_and_keeps_the_retrieval(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    item = suite.item("s2026-p01-q01-C1")
    verdict = OfflineJudge().score(item, Answer("I would play it safe."), Trace((Memory("a"), Memory("b"))))
    assert "approximate" in verdict.detail["judge"] and verdict.detail["scores"] == {"offline": verdict.score}
    assert len(verdict.detail["retrieved"]) == 2 and verdict.correct == (verdict.score >= 4)


def test_the_response_prompt_shows_the_condition_only_through_its_context() -> None:
    prompt = BehaviorPrompt()
    system, user = prompt.messages(_view(QUESTION, retrieve=False), [])
    assert "predicting how the author" in system["content"] and user["content"] == f"Question: {QUESTION}"
    _, user = prompt.messages(_view(QUESTION, facts="subject | values | x", spec="A1. X"), [Memory("m1")])
    text = user["content"]
    assert (
        text.index("Retrieved memories:\n- m1")
        < text.index("Known facts:")
        < text.index("Behavioral specification:\nA1. X")
    )
    assert text.endswith(f"\n\nQuestion: {QUESTION}") and "C4a" not in text
    view = _view(QUESTION)
    assert not prompt.parse(Completion(content="  "), view).valid
    answer = prompt.parse(Completion(content="I cannot say what I would do."), view)
    assert answer.valid and answer.abstained and answer.label == "I cannot say what I would do."


def _authors_judge_prompt(held_out: str, response_text: str) -> str:
    """What the authors' judge scripts send (agulaya24/beyond-recall,
    scripts/judge_hamerton_5judge.py `judge_prompt`), written out here as the reference."""
    return (
        "You are evaluating whether a response about a person PREDICTED what actually happened.\n\n"
        "=== HELD-OUT GROUND TRUTH ===\n" + held_out + "\n\n"
        "=== RESPONSE ===\n" + response_text[:1500] + "\n\n"
        "Rate 1-5:\n"
        "5=Predicts specific outcome\n"
        "4=General direction correct\n"
        "3=Right domain wrong outcome\n"
        "2=Wrong prediction\n"
        "1=Refuses or off-base\n\n"
        "Respond with ONLY a single digit (1-5)."
    )


def test_the_judge_prompt_is_the_authors_byte_for_byte_with_the_response_cut(tmp_path: Path) -> None:
    item = _suite(tmp_path).item("s2026-p01-q01-C5")
    response = "y" * 1499 + "Z" + "tail"
    (message,) = judge_prompt().messages(item, Answer(response))
    assert message["content"] == _authors_judge_prompt(str(item.gold), response)
    assert "tail" not in message["content"] and message["role"] == "user"


@pytest.mark.parametrize("reply, score", [("4", 4), ("Score: 5/5", 5), (" 2\n", 2), ("1 - refuses", 1)])
def test_the_first_digit_is_the_score(reply: str, score: int) -> None:
    assert parse_digit(reply).score == score


@pytest.mark.parametrize("reply", ["five", "0", "7 out of 10", ""])
def test_a_reply_without_a_first_digit_in_range_is_a_parse_failure(reply: str) -> None:
    with pytest.raises(InvalidOutput):
        parse_digit(reply)


def test_a_panel_records_each_judge_and_its_parse_failures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-behavior-test-0000000000")
    item = _suite(tmp_path).item("s2026-p01-q01-C1")
    replies = {"judge-a": "5", "judge-b": "I would say 3.", "judge-c": "cannot tell"}
    with LLMServer(lambda request: replies[request.model]) as server:
        settings = LLMSettings(model="unused", base_url=server.base_url)
        judge = _suite(tmp_path).llm_judge(PanelFactory(settings, [PanelMember(name, name) for name in replies]))
        verdict = judge.score(item, Answer("I would play it safe."), Trace((Memory("m"),)))
        replies.update({"judge-a": "n/a", "judge-b": "none"})
        with pytest.raises(ResponseError, match="none of 3 judges"):
            judge.score(item, Answer("I would take the chance."), Trace())
        judge.close()
        (request,) = [r for r in server.requests if r.model == "judge-a"][:1]
    assert verdict.score == 4.0 and verdict.correct is True
    assert verdict.detail["scores"] == {"judge-a": 5.0, "judge-b": 3.0, "judge-c": None}
    assert verdict.detail["parse_failures"]["judge-c"]["reason"] == "no digit in the reply"
    assert item.gold in request.messages[0]["content"]


def test_the_judge_is_called_as_the_authors_scripts_call_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """8 tokens at temperature 0 and no answer schema, whatever the run's --memeval-max-tokens
    and --memeval-structured: the reply is free text whose first digit is read."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-behavior-test-0000000000")
    item = _suite(tmp_path).item("s2026-p01-q01-C1")
    with LLMServer(lambda request: "Rating: 4") as server:
        settings = LLMSettings(model="unused", base_url=server.base_url, max_tokens=1024, structured="json_schema")
        judge = _suite(tmp_path).llm_judge(PanelFactory(settings, [PanelMember("judge-a", "judge-a")]))
        verdict = judge.score(item, Answer("I would play it safe."), Trace())
        judge.close()
        (request,) = server.requests
    assert verdict.score == 4.0
    assert (request.body["max_tokens"], request.body["temperature"]) == (8, 0.0)
    assert "response_format" not in request.body
    assert request.messages == [{"role": "user", "content": request.messages[0]["content"]}]


def test_judge_call_schema_constrains_the_reply_to_a_digit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """behavior.judge_call=schema, for judge models that cannot follow the bare prompt: the
    digit schema, temperature 0, the run's max_tokens; the same prompt and parse."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-behavior-test-0000000000")
    suite = _suite(tmp_path, judge_call="schema")
    item = suite.item("s2026-p01-q01-C1")
    with LLMServer(lambda request: "5") as server:
        settings = LLMSettings(model="unused", base_url=server.base_url, max_tokens=160, structured="json_schema")
        judge = suite.llm_judge(PanelFactory(settings, [PanelMember("judge-a", "judge-a")]))
        verdict = judge.score(item, Answer("I would play it safe."), Trace())
        judge.close()
        (request,) = server.requests
    assert verdict.score == 5.0
    assert (request.body["max_tokens"], request.body["temperature"]) == (160, 0.0)
    assert request.body["response_format"]["json_schema"]["schema"] == {"type": "integer", "enum": [1, 2, 3, 4, 5]}
    assert request.messages[0]["content"] == _authors_judge_prompt(str(item.gold), "I would play it safe.")
    with pytest.raises(ConfigError, match="behavior.judge_call=strict: one of authors, schema"):
        _suite(tmp_path, judge_call="strict")
