"""The knowme LLM path against a loopback OpenAI-compatible server: the strict answer
parser and prompts that carry nothing private (the rubric judge: test_knowme_judge.py)."""

from __future__ import annotations

import json
import re

import pytest
from llm_server import LLMServer, Request
from pytest_memeval.suites.knowme.llm import KnowmePrompt, parse_answer

from pytest_memeval.types import ItemView, Memory


@pytest.mark.parametrize(
    "text, form, label, abstained",
    [
        ('{"answer": "saffron; lemons"}', "extract", "saffron; lemons", False),
        ('{"answer": ["saffron", "lemons"]}', "extract", "saffron; lemons", False),
        ('{"answer": ["B", "A", "C"]}', "rank", "B > A > C", False),
        ('{"answer": "ABSTAIN"}', "extract", "ABSTAIN", True),
        ('{"answer": "abstain."}', "duration", "ABSTAIN", True),
    ],
)
def test_answers_are_read_strictly(text: str, form: str, label: str, abstained: bool) -> None:
    answer = parse_answer(text, form)
    assert (answer.label, answer.abstained, answer.valid) == (label, abstained, True)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "saffron",
        '```json\n{"answer": "x"}\n```',
        '{"answer": "x", "why": "y"}',
        '{"answer": 3}',
        '{"answer": ""}',
        '["x"]',
    ],
)
def test_anything_else_is_invalid_and_kept(text: str) -> None:
    answer = parse_answer(text, "extract")
    assert not answer.valid and answer.label is None and answer.raw == text


def test_the_prompt_carries_question_format_and_memories() -> None:
    view = ItemView(
        "knowme", "duration", "How long?", extra={"slots": {}, "answer_format": "the duration with its units"}
    )
    system, user = KnowmePrompt().messages(view, [Memory("2010-01-02 10:00:00 | the pier\nAction: I fish.")])
    assert (
        "Question: How long?" in system["content"]
        and "Answer format: the duration with its units." in system["content"]
    )
    assert user["content"] == "2010-01-02 10:00:00 | the pier\nAction: I fish."


def _run(pytester: pytest.Pytester, base_url: str, *args: str) -> tuple[pytest.RunResult, dict]:
    report = pytester.path / "report.json"
    report.unlink(missing_ok=True)
    result = pytester.runpytest_subprocess(
        "--memsystem=context",
        "--memeval-suite=knowme",
        f"--memeval-base-url={base_url}",
        "--memeval-llm-cache=off",
        f"--memeval-report={report}",
        "-p",
        "no:cacheprovider",
        *args,
    )
    return result, json.loads(report.read_text()) if report.exists() else {}


QUESTION = re.compile(r"^Question: (.*)$", re.M)


def responder_script(request: Request) -> str:
    question = QUESTION.search(request.messages[0]["content"]).group(1)  # type: ignore[union-attr]
    if question.startswith("On ") and "what did" in question:
        return '{"answer": "ABSTAIN"}'
    if question.startswith("Rank"):
        return '{"answer": ["A", "B", "C"]}'
    return "I would rather not say."


PRIVATE = re.compile(r"\b(T[1-7]|trap|evidence|dataset\d|s2026|life\d\d|entity_swap|false_causality|spatiotemporal)\b")


@pytest.mark.slow
def test_an_llm_responder_sees_only_public_text(suite_pytester: pytest.Pytester) -> None:
    with LLMServer(responder_script) as server:
        result, report = _run(
            suite_pytester,
            server.base_url,
            "--memeval-responder=openai:reader-model",
            "--memeval-max-errors=100",
            "-k",
            "life00",
        )
        requests = server.requests
    run = report["runs"][0]
    assert run["n_items"] == 21 and len(requests) == 21
    assert run["metrics"]["t1_entity_f1"]["value"] == 0 and run["metrics"]["t2_abstain_exact"]["value"] == 100
    assert run["n_invalid"] == 21 - 9  # prose for every form but extract and rank
    for request in requests:
        assert not PRIVATE.search(request.text), PRIVATE.search(request.text)
        assert "| " in request.messages[1]["content"]  # the stream, as stored
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # T1 items fail their check
