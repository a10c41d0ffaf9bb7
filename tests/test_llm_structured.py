"""Structured outputs, context windows, prompt-scaled timeouts and the completions API,
against the loopback server (fault injection: an endpoint refusing the OpenAI schema form,
one too small for the prompt, one that is slow)."""

from __future__ import annotations

import json
import tomllib
from dataclasses import replace

import pytest
from llm_server import LLMServer, Reply, Request
from pytest_memeval.suites.memfail.llm_prompt import MemfailPrompt

from pytest_memeval.errors import ConfigError, ResponseError
from pytest_memeval.llm import (
    ChatClient,
    ChatRequest,
    LLMResponder,
    LLMSettings,
    MultisourcePrompt,
)
from pytest_memeval.llm.budget import ENDPOINTS, ContextWindowError
from pytest_memeval.llm.structured import FORMS
from pytest_memeval.llm.templates import (
    available_templates,
    load_template,
    prompts_dir,
)
from pytest_memeval.types import ItemView, Memory

SPACE = ("fewer_than_10", "10_to_19", "20_or_more")
VIEW = ItemView("multisource", "A1", "How many nights did this person sleep 7 hours or more?", SPACE)
MEMORIES = [Memory("#### 2026-01-23 slept 7h10m")]
ANSWER = '{"answer": "10_to_19", "would_skip": false}'


@pytest.fixture(autouse=True)
def fresh_endpoints(monkeypatch: pytest.MonkeyPatch):
    """What endpoints taught one test (refused forms, windows) must not leak into the next."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-5d1f0c9a7b3e2468")  # random-like: pieces of a key are scrubbed
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    FORMS.forget()
    ENDPOINTS.forget()
    yield
    FORMS.forget()
    ENDPOINTS.forget()


def settings_for(server: LLMServer, **overrides: object) -> LLMSettings:
    values: dict = dict(
        model="m", base_url=server.base_url, timeout_s=5.0, max_attempts=3, backoff_s=5.0, backoff_max_s=5.0
    )
    values.update(overrides)
    return LLMSettings(**values)


def answer(settings: LLMSettings):
    responder = LLMResponder(MultisourcePrompt(), settings)
    try:
        return responder.answer(VIEW, MEMORIES, label="item-1")
    finally:
        responder.close()


def test_auto_falls_back_to_json_object_at_once_and_remembers_the_endpoint():
    with LLMServer(ANSWER, refuse_json_schema=True) as server:
        first = answer(settings_for(server))
        second = answer(settings_for(server, temperature=0.5))  # another request, same endpoint
        sent = [r.body.get("response_format") for r in server.requests]
    assert first.valid and first.label == "10_to_19" and first.detail["structured"] == "json_object"
    assert second.valid and second.detail["structured"] == "json_object"
    # one refused OpenAI form, then llama-cpp-python's form, with the item's labels as the enum
    assert [f["type"] for f in sent] == ["json_schema", "json_object", "json_object"]
    schema = sent[1]["schema"]
    assert schema["properties"]["answer"]["enum"] == list(SPACE) and schema["required"] == ["answer", "would_skip"]
    assert sent[0]["json_schema"]["name"] == "multisource_direct" and sent[0]["json_schema"]["strict"] is True
    assert sent[0]["json_schema"]["schema"] == schema


def test_the_openai_form_goes_to_an_endpoint_that_takes_it():
    with LLMServer(ANSWER) as server:
        result = answer(settings_for(server))
        (request,) = server.requests
    assert result.detail["structured"] == "json_schema"
    assert request.body["response_format"]["type"] == "json_schema"


def test_a_forced_form_that_the_endpoint_refuses_is_one_clear_error_without_retries():
    with LLMServer(ANSWER, refuse_json_schema=True) as server:
        with pytest.raises(ResponseError) as info:
            answer(settings_for(server, structured="json_schema"))
        assert server.count == 1
    message = str(info.value)
    assert "\n" not in message and "item-1" in message and "--memeval-structured=auto or off" in message


def test_off_sends_no_schema_and_every_mode_is_its_own_cache_key():
    with LLMServer(ANSWER) as server:
        result = answer(settings_for(server, structured="off"))
        (request,) = server.requests
    assert "response_format" not in request.body and result.detail["structured"] is None
    keys = {
        mode: LLMResponder(MultisourcePrompt(), LLMSettings(model="m", structured=mode)).request(VIEW, MEMORIES).key()
        for mode in ("auto", "json_schema", "json_object", "off")
    }
    assert len(set(keys.values())) == 4
    # the schema is part of the key: another answer space is another request
    other = replace(VIEW, answer_space=("0_to_3", "4_or_more"))
    auto = LLMResponder(MultisourcePrompt(), LLMSettings(model="m"))
    assert auto.request(other, MEMORIES).key() != keys["auto"]


def test_output_that_misses_the_schema_stays_invalid_and_keeps_its_text():
    with LLMServer('{"answer": "sometimes", "would_skip": false}') as server:  # a server that ignores schemas
        result = answer(settings_for(server))
    assert not result.valid and result.label is None and "sometimes" in result.raw
    assert "not in the answer space" in result.detail["invalid"]


def test_every_prompt_that_asks_for_json_declares_its_schema():
    with_schema = {name for name in available_templates() if load_template(name).schemas}
    free_text = {"behavior_response", "behavior_spec_layer", "behavior_spec_compose", "memfail_storage_turn"}
    # the protocols of LoCoMo (Mem0's answer prompt) and LongMemEval (its reading prompt and its
    # judge, read by "yes" in the reply) are free text
    free_text |= {"locomo_answer", "longmemeval_answer"} | {
        f"longmemeval_judge_{kind}" for kind in ("abstention", "knowledge_update", "preference", "standard", "temporal")
    }
    # HaluMem's answer prompt is free text, and its judges' replies are read from a ```json
    # fence, which a structured output would drop
    free_text |= {"halumem_answer"} | {
        f"halumem_judge_{stage}" for stage in ("integrity", "accuracy", "update", "question")
    }
    # PersonaMem's reply is read after its <final_answer> tag, as Evaluation.extract_answer reads it
    free_text |= {"personamem_answer"}
    # BEAM's judge is sent as compute_metrics.py sends it, with no response format, and its
    # reply read as parse_json_response reads it; its alignment is read by "yes", its answer is text
    free_text |= {"beam_answer", "beam_judge", "beam_equivalence"}
    log_prob_readout = {"bayes_mcq"}
    assert with_schema == set(available_templates()) - free_text - log_prob_readout
    # memfail: one schema per question type in both variants, the Long-Hop letters filled per item
    for name in ("memfail_answer", "memfail_answer_guided"):
        formats = tomllib.loads((prompts_dir() / f"{name}.toml").read_text())["formats"]
        assert {variant for variant, _ in load_template(name).schemas} == set(formats)
    conditional = ItemView("memfail", "conditional", "Is it so?", ("yes", "no"))
    assert MemfailPrompt().schema(conditional)["properties"]["answer"]["enum"] == ["yes", "no"]
    assert MemfailPrompt("guided").schema(conditional)["properties"]["answer"]["enum"] == ["yes", "no", "unknown"]
    longhop = ItemView("memfail", "longhop", "Who?", ("a", "b", "c", "d", "e"))
    assert MemfailPrompt().schema(longhop)["properties"]["selected_choice"]["enum"] == list("ABCDE")
    # the behavior judge is sent as the authors' scripts send it, free text; its digit schema
    # is a variant that behavior.judge_call=schema sends
    behavior_judge = load_template("behavior_judge")
    assert behavior_judge.schema() is None
    assert behavior_judge.schema(variant="digit") == {"type": "integer", "enum": [1, 2, 3, 4, 5]}


def test_a_schema_placeholder_without_a_value_is_an_error(tmp_path):
    (tmp_path / "t.toml").write_text(
        'name = "t"\nversion = "1"\nuser = "hi"\n\n[schema]\ntype = "object"\nproperties.a = { type = "string", enum = "$labels" }\n'
    )
    template = load_template("t", directory=tmp_path)
    with pytest.raises(ValueError, match="labels"):
        template.schema()
    assert template.schema({"labels": ["x"], "unused": 1})["properties"]["a"]["enum"] == ["x"]
    (tmp_path / "bad.toml").write_text('name = "bad"\nversion = "1"\nuser = "hi"\nschema = "not a table"\n')
    with pytest.raises(ConfigError, match="JSON schema"):
        load_template("bad", directory=tmp_path)


def test_a_prompt_over_the_window_is_an_error_naming_its_tokens_and_no_call_is_made():
    memories = [Memory("word " * 3000)]
    with LLMServer(ANSWER, window=2048, tokenize=lambda text: len(text.split()), models=("m",)) as server:
        responder = LLMResponder(MultisourcePrompt(), settings_for(server, max_tokens=100))
        try:
            with pytest.raises(ContextWindowError) as info:
                responder.answer(VIEW, memories, label="item-7")
            fits = responder.answer(VIEW, MEMORIES, label="item-8")
        finally:
            responder.close()
        chat_calls = [r for r in server.requests if r.path.endswith("/chat/completions")]
        probes = [r.path for r in server.probes]
    message = str(info.value)
    assert "item-7" in message and "over the context window of 2048 tokens" in message and "no call made" in message
    assert "the server's tokenizer" in message and "\n" not in message
    assert fits.valid and len(chat_calls) == 1  # the item that fits was asked, the other never
    assert "/v1/models" in probes and "/extras/tokenize" in probes


def test_a_server_refusing_for_length_is_a_context_window_error_not_a_retry():
    # no window known beforehand: the server's own 400 must still become the same kind of error
    with LLMServer(ANSWER, window=50) as server:
        settings = settings_for(server, context_window=None)
        client = ChatClient(settings)
        ENDPOINTS.windows[(server.base_url, "m")] = None  # the server did not say
        try:
            with pytest.raises(ContextWindowError, match="maximum context length is 50"):
                client.complete(
                    ChatRequest.build(settings, [{"role": "user", "content": "word " * 80}]), label="item-2"
                )
        finally:
            client.close()
        assert server.count == 1


def test_timeouts_grow_with_the_prompt_so_a_slow_model_is_not_retried_into_failure():
    memories = [Memory("word " * 2000)]  # ~10 KB of prompt
    with LLMServer(Reply.slow(ANSWER, 1.0)) as server:
        fixed = settings_for(server, timeout_s=0.5, max_attempts=2, backoff_s=0.0, structured="off")
        with pytest.raises(ResponseError, match="timed out after 0.50s"):
            answer_with(fixed, memories)
        scaled = replace(fixed, timeout_per_1k_tokens_s=0.2)
        assert answer_with(scaled, memories).valid
    assert scaled.attempt_timeout(5000) == pytest.approx(1.5)


def answer_with(settings: LLMSettings, memories: list[Memory]):
    responder = LLMResponder(MultisourcePrompt(), settings)
    try:
        return responder.answer(VIEW, memories, label="item-3")
    finally:
        responder.close()


def test_the_completions_api_sends_plain_text_and_reads_legacy_log_probs():
    tokens = [(" B", -0.2, [(" B", -0.2), (" A", -1.9)])]

    def script(request: Request) -> Reply:
        assert request.path == "/v1/completions"
        return Reply(" B", tokens=tokens)

    with LLMServer(script) as server:
        settings = settings_for(server, api="completions", logprobs=True, top_logprobs=5, max_tokens=1)
        request = ChatRequest.build(
            settings,
            [{"role": "system", "content": "Pick."}, {"role": "user", "content": "A or B?"}],
            "t@1",
            {"type": "object"},
        )
        client = ChatClient(settings)
        try:
            completion = client.complete(request)
        finally:
            client.close()
        (sent,) = server.requests
    assert (
        sent.body["prompt"] == "Pick.\n\nA or B?\n\nAnswer:"
        and sent.body["logprobs"] == 5
        and sent.body["max_tokens"] == 1
    )
    assert "response_format" not in sent.body and "structured" not in request.params  # no schema on /completions
    assert completion.content == " B" and completion.logprobs[0].top[0] == (" B", -0.2)
    assert request.params["api"] == "completions/1"  # the plain-text rendering is part of the key


def test_settings_refuse_infinite_or_negative_times():
    for bad in ({"timeout_s": float("inf")}, {"timeout_per_1k_tokens_s": -1.0}, {"retry_budget_s": float("nan")}):
        with pytest.raises(ConfigError):
            LLMSettings(model="m", **bad)
    with pytest.raises(ConfigError, match="structured"):
        LLMSettings(model="m", structured="xml")  # type: ignore[arg-type]
    assert json.dumps(LLMSettings(model="m", api="completions").output_params())
