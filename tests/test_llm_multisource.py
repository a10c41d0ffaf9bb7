"""The multisource prompt (paper C.6.1, one question per call) and its strict JSON parser."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from llm_server import LLMServer, Reply

from pytest_memeval.llm import Completion, LLMResponder, LLMSettings, MultisourcePrompt, parse_answer
from pytest_memeval.types import ItemView, Memory

SPACE = ("fewer_than_10", "10_to_19", "20_or_more")
VIEW = ItemView(
    "multisource",
    "A1",
    "In the past 30 days, how many nights did this person sleep 7 hours or more?",
    SPACE,
    title="Sleep Duration Count (Sleep, 30 days)",
    label_notes={"fewer_than_10": "0-9 nights"},
)
MEMORIES = [Memory("2024-03-02 slept 7.5h (self-report)"), Memory("  "), Memory("Planner: bed by 23:00")]


from reference_data import SHARED_DIR  # noqa: E402  (the papers' text lives beside the reference data)


def paper_prompt() -> str:
    seeds = SHARED_DIR / "seeds"
    for path in sorted(seeds.glob("*.txt")) if seeds.is_dir() else []:
        text = path.read_text(encoding="utf-8", errors="replace")
        start = text.find("C.6.1 LLM-Direct System Prompt (Verbatim)\n")
        if start >= 0:
            return text[start : text.find("## A1 - Sleep Duration Count", start)]
    pytest.skip("the multisource paper text is not available")


def test_the_prompt_keeps_the_papers_principles_and_wording():
    system = MultisourcePrompt().messages(VIEW, MEMORIES)[0]["content"]
    paper = paper_prompt()
    principles = paper[paper.index("# Answering Principles") : paper.index("# Survey Questions")]
    assert principles.strip() in system  # verbatim: principles and output format
    for section in re.findall(r"^## .*\(.*\)$", paper, flags=re.M):
        assert section in system
    for step in (
        "Read the question text carefully.",
        "use your judgment to determine the most likely",
        "you MUST pick one",
        "Record this as would_skip (true/false).",
    ):
        assert step in system
    assert "18" not in system


def test_one_question_with_its_answer_space_and_memories():
    system, user = MultisourcePrompt().messages(VIEW, MEMORIES)
    assert system["role"] == "system" and user["role"] == "user"
    assert "## A1 - Sleep Duration Count (Sleep, 30 days)\n" + VIEW.question in system["content"]
    assert "- fewer_than_10 (0-9 nights)\n- 10_to_19\n- 20_or_more" in system["content"]
    assert '{"answer": <one valid label>, "would_skip": <true_or_false>}' in system["content"]
    assert user["content"] == "2024-03-02 slept 7.5h (self-report)\n\nPlanner: bed by 23:00"
    assert "No memories" in MultisourcePrompt().messages(VIEW, [])[1]["content"]


def test_valid_answers():
    answer = parse_answer('  {"would_skip": true, "answer": "10_to_19"}\n', SPACE)
    assert (answer.label, answer.abstained, answer.valid) == ("10_to_19", True, True)
    assert answer.detail == {"would_skip": True}
    assert parse_answer('{"answer": "10_to_19", "would_skip": true}', SPACE, allow_abstain=False).abstained is False


@pytest.mark.parametrize(
    "text, reason",
    [
        ("", "empty"),
        ("The answer is 10_to_19.", "not a JSON"),
        ('```json\n{"answer": "10_to_19", "would_skip": false}\n```', "not a JSON"),
        ('{"answer": "10_to_19", "would_skip": false', "not a JSON"),
        ('["10_to_19", false]', "expected an object"),
        ('{"answer": "10_to_19"}', "missing ['would_skip']"),
        ('{"answer": "10_to_19", "would_skip": false, "reasoning": "..."}', "unexpected ['reasoning']"),
        ('{"answer": "10 to 19", "would_skip": false}', "not in the answer space"),
        ('{"answer": "10_TO_19", "would_skip": false}', "not in the answer space"),
        ('{"answer": null, "would_skip": true}', "not in the answer space"),
        ('{"answer": "10_to_19", "would_skip": "false"}', "not a boolean"),
        ('{"answer": "10_to_19", "would_skip": 0}', "not a boolean"),
        ('{"answer": "fewer_than_10", "answer": "10_to_19", "would_skip": false}', "duplicate"),
    ],
)
def test_invalid_outputs_are_recorded_not_coerced(text: str, reason: str):
    answer = parse_answer(text, SPACE)
    assert answer.valid is False and answer.label is None and answer.raw == text
    assert reason in answer.detail["invalid"]


@given(st.text(max_size=80))
def test_arbitrary_text_is_never_coerced(text: str):
    answer = parse_answer(text, SPACE)
    if answer.valid:
        data = json.loads(text)
        assert data == {"answer": answer.label, "would_skip": answer.abstained} and answer.label in SPACE
    else:
        assert answer.label is None and answer.raw == text


@given(st.sampled_from(SPACE), st.booleans(), st.sampled_from(["", " ", "\n"]))
def test_every_schema_conforming_reply_is_read(label: str, skip: bool, pad: str):
    answer = parse_answer(pad + json.dumps({"answer": label, "would_skip": skip}) + pad, SPACE)
    assert answer.valid and answer.label == label and answer.abstained == skip


def test_output_cut_at_max_tokens_is_named():
    completion = Completion('{"answer": "10_to', finish_reason="length")
    answer = MultisourcePrompt().parse(completion, VIEW)
    assert not answer.valid and "max_tokens" in answer.detail["invalid"] and answer.raw == '{"answer": "10_to'


def test_through_the_real_client(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-multisource-test-000000000")
    replies = {
        "q-valid": '{"answer": "20_or_more", "would_skip": false}',
        "q-wrong-label": '{"answer": "twenty_or_more", "would_skip": false}',
        "q-cut": Reply('{"answer": "20_or', finish_reason="length"),
        "q-prose": "I think 20_or_more.",
    }

    def script(request):
        return next(reply for tag, reply in replies.items() if tag in request.text)

    with LLMServer(script) as server:
        settings = LLMSettings(model="m", base_url=server.base_url, max_tokens=64)
        responder = LLMResponder(MultisourcePrompt(), settings)
        answers = {tag: responder.answer(VIEW, [Memory(tag)]) for tag in replies}
        responder.close()
        assert server.requests[0].body["max_tokens"] == 64
    assert answers["q-valid"].valid and answers["q-valid"].label == "20_or_more"
    for tag in ("q-wrong-label", "q-cut", "q-prose"):
        assert not answers[tag].valid and answers[tag].label is None and answers[tag].raw
    assert "max_tokens" in answers["q-cut"].detail["invalid"]
    assert answers["q-valid"].detail["template"] == "multisource_direct@1"
