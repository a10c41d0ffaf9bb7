"""The loopback LLM gateway: record, replay, misses, metering, streams, tool calls, the key,
deadlines and llama.cpp's null-content rule, driven through the openai client against the
scripted loopback server."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from harness import bounded, key_pieces
from llm_server import HeaderTrickle, LLMServer, Reply, Request

from pytest_memeval.config.llm_settings import LLMSettings
from pytest_memeval.errors import ResponseError
from pytest_memeval.llm.caller import ReplayMissError
from pytest_memeval.llm.calls import ChatRequest
from pytest_memeval.llm.client import ChatClient
from pytest_memeval.llm.gateway import LLMGateway
from pytest_memeval.llm.metering import LLMUsage

pytestmark = pytest.mark.slow  # every test starts servers

MODEL = "scripted"
CALLER = "memsystem 'toy'"
SECRET = "sk-gateway-NEVER-RECORD-0123456789"


def settings(tmp_path: Path, mode: str = "readwrite", **extra: object) -> LLMSettings:
    path = None if mode == "off" else tmp_path / "llm.sqlite"
    values: dict[str, object] = {"timeout_s": 10.0, **extra}
    return LLMSettings(model=MODEL, cache_mode=mode, cache_path=path, **values)  # type: ignore[arg-type]


@pytest.fixture
def gateway(tmp_path: Path) -> Iterator[LLMGateway]:
    with LLMGateway(settings(tmp_path)) as running:
        yield running


def client(base_url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=base_url, api_key="anything", max_retries=0, timeout=20)


def ask(base_url: str, text: str, model: str = MODEL, **extra: object) -> str | None:
    arguments: dict[str, object] = {"temperature": 0, **extra}
    reply = client(base_url).chat.completions.create(
        model=model, messages=[{"role": "user", "content": text}], **arguments
    )
    return reply.choices[0].message.content


def replayed(tmp_path: Path) -> LLMGateway:
    return LLMGateway(settings(tmp_path, "replay")).start()


def test_a_recorded_exchange_answers_again_without_the_endpoint(gateway: LLMGateway, tmp_path: Path) -> None:
    with LLMServer(lambda request: f"echo: {request.text}") as server:
        url = gateway.route(CALLER, server.base_url)
        assert ask(url, "hello") == "echo: hello"
        assert ask(url, "hello") == "echo: hello"
        assert server.count == 1, "the second, identical call must come from the recording"
    gateway.stop()
    again = replayed(tmp_path)
    try:
        assert ask(again.route(CALLER, "http://127.0.0.1:9/v1"), "hello") == "echo: hello"  # nothing there
    finally:
        again.stop()


def test_a_replay_miss_is_one_line_naming_the_caller_and_the_call(gateway: LLMGateway, tmp_path: Path) -> None:
    with LLMServer("recorded") as server:
        ask(gateway.route(CALLER, server.base_url), "the recorded prompt")
    gateway.stop()
    again = replayed(tmp_path)
    meter = again.meter(CALLER)
    try:
        with meter.scope("ns-1") as scope:
            with pytest.raises(openai.NotFoundError) as raised:
                ask(again.route(CALLER), "a changed prompt")
        message = raised.value.body["message"]  # type: ignore[index]
        assert "\n" not in message
        assert message.startswith("replay cache miss: memsystem 'toy' made an LLM call the recording does not hold")
        assert "POST /v1/chat/completions" in message and "model 'scripted'" in message
        assert "prompt 'a changed prompt'" in message
        with pytest.raises(ReplayMissError, match="memsystem 'toy' made an LLM call"):
            scope.raise_miss()
    finally:
        again.stop()


def test_a_recording_made_against_one_model_never_answers_for_another(gateway: LLMGateway, tmp_path: Path) -> None:
    with LLMServer(lambda request: f"I am {request.model}") as server:
        ask(gateway.route(CALLER, server.base_url), "who are you?", model="model-a")
    gateway.stop()
    again = replayed(tmp_path)
    try:
        url = again.route(CALLER)
        assert ask(url, "who are you?", model="model-a") == "I am model-a"
        with pytest.raises(openai.NotFoundError, match="replay cache miss.*model 'model-b'"):
            ask(url, "who are you?", model="model-b")
    finally:
        again.stop()


def test_everything_that_determines_the_answer_is_in_the_key(gateway: LLMGateway) -> None:
    with LLMServer(lambda request: "ok") as server:
        url = gateway.route(CALLER, server.base_url)
        ask(url, "same")
        ask(url, "same", max_tokens=5)
        ask(url, "same", temperature=0.5)  # overrides the default 0 sent by ask
        ask(url, "same", response_format={"type": "json_object"})
        ask(url, "same", tools=[{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}])
        assert server.count == 5


def test_tool_calls_are_recorded_and_replayed(gateway: LLMGateway, tmp_path: Path) -> None:
    tool = {"type": "function", "function": {"name": "remember", "parameters": {"type": "object"}}}
    call = Reply(content=None, tool_calls=[{"name": "remember", "arguments": '{"fact": "Ada likes tea"}'}])
    with LLMServer(lambda request: call) as server:
        first = client(gateway.route(CALLER, server.base_url)).chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "Ada likes tea"}], tools=[tool]
        )
    gateway.stop()
    again = replayed(tmp_path)
    try:
        second = client(again.route(CALLER)).chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "Ada likes tea"}], tools=[tool]
        )
    finally:
        again.stop()
    for reply in (first, second):
        (recorded,) = reply.choices[0].message.tool_calls or []
        assert (recorded.function.name, recorded.function.arguments) == ("remember", '{"fact": "Ada likes tea"}')


def test_a_client_that_asks_for_a_stream_gets_one(gateway: LLMGateway) -> None:
    tool_call = Reply(content="thinking", tool_calls=[{"name": "f", "arguments": "{}"}])
    with LLMServer(lambda request: tool_call) as server:
        stream = client(gateway.route(CALLER, server.base_url)).chat.completions.create(
            model=MODEL,
            messages=[{"role": "user", "content": "go"}],
            stream=True,
            stream_options={"include_usage": True},
        )
        chunks = list(stream)
        assert server.requests[0].body.get("stream") is None, "the endpoint is asked for the whole answer"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    calls = [t.function.name for c in chunks if c.choices for t in c.choices[0].delta.tool_calls or []]
    finish = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert (text, calls, finish) == ("thinking", ["f"], ["stop"])
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens == 1


def test_embeddings_and_completions_are_exchanges_too(gateway: LLMGateway, tmp_path: Path) -> None:
    with LLMServer(lambda request: "text", embed=lambda text: [float(len(text)), 1.0]) as server:
        url = gateway.route(CALLER, server.base_url)
        vectors = client(url).embeddings.create(model="embedder", input=["abc", "de"])
        completion = client(url).completions.create(model=MODEL, prompt="Answer:", max_tokens=3)
    gateway.stop()
    again = replayed(tmp_path)
    try:
        url = again.route(CALLER)
        assert [d.embedding for d in client(url).embeddings.create(model="embedder", input=["abc", "de"]).data] == [
            d.embedding for d in vectors.data
        ]
        assert client(url).completions.create(model=MODEL, prompt="Answer:", max_tokens=3).choices[0].text == (
            completion.choices[0].text
        )
    finally:
        again.stop()


def test_the_key_never_reaches_the_recording(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with LLMServer(lambda request: f"your key is {SECRET}") as server, LLMGateway(settings(tmp_path)) as gateway:
        answer = ask(gateway.route(CALLER, server.base_url), f"repeat {SECRET}")
        assert {r.headers["authorization"] for r in server.requests} == {f"Bearer {SECRET}"}
    assert SECRET not in (answer or "")
    with sqlite3.connect(tmp_path / "llm.sqlite") as db:
        rows = db.execute("SELECT * FROM calls").fetchall()
    assert len(rows) == 1 and SECRET not in json.dumps(rows)
    assert (tmp_path / "llm.sqlite").read_bytes().find(SECRET.encode()) == -1


def _escaped(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in text)


def test_a_key_the_endpoint_spells_in_escapes_reaches_neither_the_caller_nor_the_recording(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The endpoint answers with the key in \\u escapes: in the content, a tool call, and split
    over log-prob tokens; the scrub of the raw text let it through, the client decoded it."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    pieces = [SECRET[i : i + 4] for i in range(0, len(SECRET), 4)]
    logprobs = [{"token": _escaped(p), "logprob": -0.1, "bytes": list(p.encode()), "top_logprobs": []} for p in pieces]
    body = (
        '{"id": "c", "object": "chat.completion", "created": 0, "model": "scripted", "choices": [{"index": 0, '
        '"message": {"role": "assistant", "content": "noted: ' + _escaped(SECRET) + '", "tool_calls": [{"id": "t", '
        '"type": "function", "function": {"name": "remember", "arguments": "' + _escaped(SECRET[2:]) + '"}}]}, '
        '"finish_reason": "stop", "logprobs": {"content": ' + json.dumps(logprobs).replace("\\\\u", "\\u") + "}}]}"
    )
    assert SECRET not in body and json.loads(body)["choices"][0]["message"]["content"] == f"noted: {SECRET}"
    error = '{"error": {"message": "bad key ' + _escaped(SECRET[:-1]) + '", "type": "auth", "code": 401}}'
    pieces_of_the_key = key_pieces(SECRET)
    with (
        LLMServer(
            lambda request: (
                Reply(body=body.encode()) if "hi" in request.text else Reply(status=401, body=error.encode())
            )
        ) as server,
        LLMGateway(settings(tmp_path)) as gateway,
    ):
        url = gateway.route(CALLER, server.base_url)
        reply = client(url).chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "hi"}], logprobs=True
        )
        chunks = list(
            client(url).chat.completions.create(
                model=MODEL, messages=[{"role": "user", "content": "hi"}], logprobs=True, stream=True
            )
        )
        with pytest.raises(openai.APIStatusError) as refused:
            ask(url, "refuse me")
    message = reply.choices[0].message
    streamed = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    texts = [
        message.content or "",
        (message.tool_calls or [])[0].function.arguments,
        "".join(t.token for t in reply.choices[0].logprobs.content or []),
        bytes(b for t in reply.choices[0].logprobs.content or [] for b in t.bytes or []).decode(),
        streamed,
        refused.value.message,
    ]
    assert message.content == "noted: <redacted>" and streamed == message.content
    assert not [text for text in texts if any(piece in text for piece in pieces_of_the_key)], texts
    with sqlite3.connect(tmp_path / "llm.sqlite") as db:
        stored = [json.loads(value) for row in db.execute("SELECT request, completion FROM calls") for value in row]
    assert stored and not any(piece in json.dumps(stored, ensure_ascii=False) for piece in pieces_of_the_key)


def test_a_stream_an_endpoint_splits_the_key_over_reaches_the_caller_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A call forwarded as it is (the plugin's own models' routes) that the endpoint answers
    with server-sent events, the key split over their deltas, no delta holding 8 characters."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    deltas = [SECRET[i : i + 5] for i in range(0, len(SECRET), 5)]
    events = "".join(
        f"data: {json.dumps({'id': 'c', 'choices': [{'index': 0, 'delta': {'content': d}}]})}\n\n" for d in deltas
    )
    stream = Reply(body=(events + "data: [DONE]\n\n").encode(), headers={"Content-Type": "text/event-stream"})
    with LLMServer(lambda request: stream) as server, LLMGateway(settings(tmp_path, "off")) as gateway:
        url = gateway.route("responder", server.base_url, record=False)
        answer = httpx.post(f"{url}/chat/completions", json={"model": MODEL, "messages": []}, timeout=20)
    joined = "".join(
        json.loads(line[6:])["choices"][0]["delta"]["content"]
        for line in answer.text.split("\n\n")
        if line.startswith("data: {")
    )
    assert answer.status_code == 200 and joined == "<redacted>", answer.text
    assert not any(piece in answer.text for piece in key_pieces(SECRET))


def test_the_clients_key_is_never_forwarded(gateway: LLMGateway, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with LLMServer("ok") as server:
        ask(gateway.route(CALLER, server.base_url), "hi")  # the client sends "anything"
        assert server.requests[0].headers["authorization"] == "Bearer EMPTY"  # the local placeholder


def test_every_forwarded_call_has_a_deadline(tmp_path: Path) -> None:
    with LLMServer(Reply.slow("late", 30.0)) as server, LLMGateway(settings(tmp_path, timeout_s=1.0)) as gateway:
        started = time.monotonic()
        with pytest.raises(openai.APIStatusError) as raised:
            ask(gateway.route(CALLER, server.base_url), "slow")
        assert raised.value.status_code == 504
        assert "did not answer within" in raised.value.message
        assert time.monotonic() - started < 10


@pytest.mark.parametrize("trickle", ["body", "headers"])
def test_an_endpoint_trickling_its_answer_gets_the_504_of_the_calls_deadline(tmp_path: Path, trickle: str) -> None:
    """200, then one byte at a time: each read is quick, the whole answer is not. The deadline
    is the call's, headers and body together, not each read's (which left the call to the
    adapter timeout, 600 s by default, and retired the memory system)."""
    server = LLMServer(Reply.trickle("a slow answer " * 20, interval_s=0.05)) if trickle == "body" else HeaderTrickle()
    with server, LLMGateway(settings(tmp_path, timeout_s=1.0)) as gateway:
        started = time.monotonic()
        raised = bounded(30, lambda: ask(gateway.route(CALLER, server.base_url), "slow"))
        elapsed = time.monotonic() - started
    assert isinstance(raised, openai.APIStatusError) and raised.status_code == 504, raised
    assert "did not answer within 1 s" in raised.message
    assert elapsed < 5  # the body alone takes over 20 s, the headers for ever


def test_a_forwarded_calls_error_names_the_configured_endpoint_not_the_gateway(tmp_path: Path) -> None:
    configured = LLMSettings(model=MODEL, base_url="http://127.0.0.1:9/v1", max_attempts=1, timeout_s=5.0)
    with LLMGateway(settings(tmp_path, "off")) as gateway:
        port = gateway.base_url.removeprefix("http://")
        client = ChatClient(gateway.forwarding(configured, "responder"))
        request = ChatRequest.build(client.settings, [{"role": "user", "content": "hi"}])
        with pytest.raises(ResponseError) as raised:
            client.complete(request, label="item q1")
        client.close()
    message = str(raised.value)
    assert message.startswith("LLM call for item q1 to model 'scripted' at http://127.0.0.1:9 failed"), message
    assert port not in message  # the gateway's throwaway port is named nowhere


def test_each_call_upstream_at_once_keeps_its_connection_open(tmp_path: Path) -> None:
    """A gateway whose budget is above httpx's 20 kept-alive connections reuses a connection
    for every call it can have upstream at once, not a new one (a TLS handshake) per call."""
    budget = 24
    with LLMServer("ok", latency_s=0.3) as server, LLMGateway(settings(tmp_path, "off", concurrency=budget)) as gateway:
        caller = client(gateway.route(CALLER, server.base_url, record=False))

        def call(text: str) -> None:
            caller.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": text}])

        for round_ in range(2):  # two rounds of calls, each all upstream at once
            threads = [threading.Thread(target=call, args=(f"{round_}-{i}",)) for i in range(budget)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=20)
        assert server.count == 2 * budget
        assert server.connections_opened <= budget  # httpx's defaults: 28 or more


def test_identical_calls_in_flight_ask_the_endpoint_once(gateway: LLMGateway) -> None:
    with LLMServer(lambda request: "one answer", latency_s=0.5) as server:
        url = gateway.route(CALLER, server.base_url)
        answers: list[str | None] = []
        threads = [threading.Thread(target=lambda: answers.append(ask(url, "same question"))) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=20)
        assert answers == ["one answer"] * 3
        assert server.count == 1


def test_llama_cpps_rules_are_met_for_that_endpoint(gateway: LLMGateway) -> None:
    history = [
        {"role": "user", "content": "remember tea"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "call_0", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "call_0", "content": "done"},
    ]
    tools = [{"type": "function", "function": {"name": name, "parameters": {"type": "object"}}} for name in ("f", "g")]
    with LLMServer(lambda request: "noted", refuse_null_content=True) as server:
        openai_client = client(gateway.route(CALLER, server.base_url))
        first = openai_client.chat.completions.create(
            model=MODEL,
            messages=history,  # type: ignore[arg-type]
            tools=tools,  # type: ignore[arg-type]
            tool_choice="required",
        )
        second = openai_client.chat.completions.create(
            model=MODEL,
            messages=[*history, {"role": "user", "content": "more"}],  # type: ignore[list-item]
            tools=tools[:1],  # type: ignore[arg-type]
            tool_choice="required",
        )
        sent = [(r.messages[1]["content"], r.body.get("tool_choice")) for r in server.requests]
    assert (first.choices[0].message.content, second.choices[0].message.content) == ("noted", "noted")
    # refused once, sent again in llama-cpp-python's form, and from then on in that form at once
    named = {"type": "function", "function": {"name": "f"}}
    assert sent == [(None, "required"), ("", "auto"), ("", named)]


def test_a_schema_the_endpoint_refuses_in_openais_form_goes_in_its_own_and_replays(
    gateway: LLMGateway, tmp_path: Path
) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    openai_form = {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}
    with LLMServer(lambda request: '{"a": "x"}', refuse_json_schema=True) as server:
        url = gateway.route(CALLER, server.base_url)
        assert ask(url, "first", response_format=openai_form) == '{"a": "x"}'
        assert ask(url, "second", response_format=openai_form) == '{"a": "x"}'
        forms = [r.body["response_format"] for r in server.requests]
    # refused once, then in llama-cpp-python's form: the client never saw the refusal
    assert forms == [openai_form, {"type": "json_object", "schema": schema}, {"type": "json_object", "schema": schema}]
    gateway.stop()
    again = replayed(tmp_path)
    try:  # recorded under what the client sent, so the replay (which forwards nothing) finds it
        assert ask(again.route(CALLER), "second", response_format=openai_form) == '{"a": "x"}'
    finally:
        again.stop()


def test_a_null_content_is_left_alone_where_the_endpoint_takes_it(gateway: LLMGateway) -> None:
    history = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c", "content": "done"},
    ]
    with LLMServer("ok") as server:
        client(gateway.route(CALLER, server.base_url)).chat.completions.create(model=MODEL, messages=history)  # type: ignore[arg-type]
        assert server.requests[0].messages[0]["content"] is None


def test_usage_is_metered_per_namespace_scope(gateway: LLMGateway) -> None:
    meter = gateway.meter(CALLER)
    usage = {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}
    with LLMServer(lambda request: Reply(content="ok", usage=usage), latency_s=0.05) as server:
        url = gateway.route(CALLER, server.base_url)
        with meter.scope("ns-a"):
            ask(url, "first")
            ask(url, "second")
        with meter.scope("ns-b"):
            ask(url, "first")  # recorded by ns-a's fill: a cached call, its recorded tokens
        ask(url, "outside any scope")
    a, b = meter.usage("ns-a"), meter.usage("ns-b")
    assert (a.calls, a.prompt_tokens, a.completion_tokens, a.cached_calls) == (2, 22, 6, 0)
    assert a.seconds >= 0.1
    assert (b.calls, b.prompt_tokens, b.cached_calls) == (1, 11, 1)
    assert meter.unscoped.calls == 1
    meter.forget("ns-a")
    assert meter.usage("ns-a") == LLMUsage()


def test_the_plugins_own_models_are_forwarded_and_counted_not_recorded(gateway: LLMGateway, tmp_path: Path) -> None:
    with LLMServer("answer", models=[MODEL]) as server:
        url = gateway.route("responder", server.base_url, record=False)
        ask(url, "q")
        ask(url, "q")
        listed = client(url).models.list()
        assert server.count == 2
        assert [m.id for m in listed.data] == [MODEL]
    assert gateway.meter("responder").unscoped.calls == 2
    with sqlite3.connect(tmp_path / "llm.sqlite") as db:
        assert db.execute("SELECT count(*) FROM calls").fetchone() == (0,)


def test_each_caller_has_its_own_route(gateway: LLMGateway) -> None:
    with LLMServer("ok") as server:
        a = gateway.route("memsystem 'a'", server.base_url)
        b = gateway.route("memsystem 'b'", server.base_url)
        assert a != b and a == gateway.route("memsystem 'a'", server.base_url)
        with gateway.meter("memsystem 'b'").scope("ns"):
            ask(a, "x")
        assert gateway.meter("memsystem 'b'").usage("ns").calls == 0
        assert gateway.meter("memsystem 'a'").unscoped.calls == 1


def test_an_unknown_route_is_a_one_line_404(gateway: LLMGateway) -> None:
    with pytest.raises(openai.NotFoundError, match="no gateway route /nowhere/v1/chat/completions"):
        ask(f"{gateway.base_url}/nowhere/v1", "hi")


def test_a_repeat_is_asked_anew(gateway: LLMGateway) -> None:
    from pytest_memeval.llm.repetition import repeat_scope

    meter = gateway.meter(CALLER)
    with LLMServer(lambda request: "ok") as server:
        url = gateway.route(CALLER, server.base_url)
        for repeat in (0, 1, 1):
            with repeat_scope(repeat), meter.scope("ns"):
                ask(url, "same")
        assert server.count == 2


def test_an_endpoint_error_passes_through_and_is_not_recorded(gateway: LLMGateway) -> None:
    replies = iter([Reply.error(429, "slow down"), Reply(content="fine")])
    with LLMServer(lambda request: next(replies)) as server:
        url = gateway.route(CALLER, server.base_url)
        with pytest.raises(openai.RateLimitError, match="slow down"):
            ask(url, "q")
        assert ask(url, "q") == "fine"
        assert server.count == 2


OVERFLOW = (
    "This model's maximum context length is 8192 tokens. However, you requested 8925 tokens "
    "(8413 in the messages, 512 in the completion). Please reduce the length of the messages or completion."
)


def test_a_request_longer_than_the_context_replays_to_the_same_refusal(gateway: LLMGateway, tmp_path: Path) -> None:
    """graphiti's second episode on multisource outgrew SmolLM2's context: the endpoint's 400
    depends on the request and the model alone, so it is recorded; other errors are not."""
    replies = {"long": Reply.error(400, OVERFLOW), "bad": Reply.error(400, "'tool_choice' is not supported")}
    with LLMServer(lambda request: replies[request.text]) as server:
        url = gateway.route(CALLER, server.base_url)
        for text in ("long", "bad"):
            with pytest.raises(openai.BadRequestError):
                ask(url, text)
        with pytest.raises(openai.BadRequestError, match="maximum context length is 8192"):
            ask(url, "long")
        assert server.count == 2, "the second refusal of the long request came from the recording"
    gateway.stop()
    again = replayed(tmp_path)
    try:
        with pytest.raises(openai.BadRequestError, match="maximum context length is 8192"):
            ask(again.route(CALLER), "long")
        with pytest.raises(openai.NotFoundError, match="replay cache miss"):
            ask(again.route(CALLER), "bad")
    finally:
        again.stop()


def test_the_request_as_the_system_sent_it_is_stored_for_review(gateway: LLMGateway, tmp_path: Path) -> None:
    def scripted(request: Request) -> str:
        return "ok"

    with LLMServer(scripted) as server:
        ask(gateway.route(CALLER, server.base_url), "review me", max_tokens=7)
    with sqlite3.connect(tmp_path / "llm.sqlite") as db:
        ((model, label, request),) = db.execute("SELECT model, template, request FROM calls").fetchall()
    stored = json.loads(request)
    assert (model, label, stored["route"]) == (MODEL, "memsystem 'toy' chat/completions", "chat/completions")
    assert stored["body"]["messages"] == [{"role": "user", "content": "review me"}]
    assert stored["body"]["max_tokens"] == 7


def test_the_probe_the_gateway_and_the_client_share_one_verifying_tls_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each HTTP client built with the default verification loads the CA bundle again (80-120
    ms of CPU each here); the plugin's clients share one context, which verifies. The openai
    client's HTTP library is its own (httpx2 in this environment), so both are watched."""
    import importlib
    import ssl

    from pytest_memeval.llm import tls
    from pytest_memeval.llm.preflight import check_endpoint

    asked: list[tuple[str, object]] = []
    for library in ("httpx", "httpx2"):
        try:
            transports = importlib.import_module(f"{library}._transports.default")
        except ImportError:
            continue

        def spy(
            verify: object = True,
            *args: object,
            _real: Any = transports.create_ssl_context,
            _name: str = library,
            **kwargs: object,
        ) -> ssl.SSLContext:
            asked.append((_name, verify))
            return _real(verify, *args, **kwargs)  # type: ignore[no-any-return]

        monkeypatch.setattr(transports, "create_ssl_context", spy)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    tls.tls_context.cache_clear()
    with LLMServer(lambda request: "ok") as server:
        llm = settings(tmp_path, base_url=server.base_url)
        check_endpoint(llm, "--memeval-responder")  # a client of its own
        with LLMGateway(llm):  # the gateway's client
            ChatClient(llm).close()  # the openai client
    shared = tls.tls_context()
    assert len(asked) == 3 and all(verify is shared for _, verify in asked), asked
    assert shared.verify_mode == ssl.CERT_REQUIRED and shared.check_hostname
    # an adapter's clients for its system's LLM (memory.llm_clients) share it too
    from pytest_memeval.config.adapter_settings import AdapterLLM
    from pytest_memeval.memory.llm_clients import async_http_client, http_client

    adapter_llm = AdapterLLM(model=MODEL, base_url="https://llm.invalid/v1")
    http_client(adapter_llm).close()
    async_http_client(adapter_llm)
    assert len(asked) == 5 and all(verify is shared for _, verify in asked), asked
