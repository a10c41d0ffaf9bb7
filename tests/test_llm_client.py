"""The real openai client against the loopback server: retries, bounds, errors, secrets."""

from __future__ import annotations

import json
import logging
import pickle
import time
import traceback

import pytest
from harness import bounded, key_pieces
from llm_server import HeaderTrickle, LLMServer, Reply, fail_first, sequence

from pytest_memeval.errors import ConfigError, ResponseError
from pytest_memeval.llm import ChatClient, ChatRequest, LLMSettings, ModelCaller, Secret

SECRET = "sk-test-7c1f0d9e2b4a46f8-DO-NOT-LEAK"
MESSAGES = [{"role": "user", "content": "hello"}]


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return SECRET


def settings_for(server: LLMServer, **overrides: object) -> LLMSettings:
    values: dict = dict(
        model="test-model",
        base_url=server.base_url,
        timeout_s=2.0,
        max_attempts=4,
        retry_budget_s=10.0,
        backoff_s=0.02,
        backoff_max_s=0.1,
    )
    values.update(overrides)
    return LLMSettings(**values)


def call(settings: LLMSettings, label: str | None = "item-1"):
    client = ChatClient(settings)
    try:
        return client.complete(ChatRequest.build(settings, MESSAGES, "t@1"), label=label)
    finally:
        client.close()


def failure_of(settings: LLMSettings, label: str | None = "item-1") -> tuple[ResponseError, float]:
    started = time.monotonic()
    with pytest.raises(ResponseError) as info:
        call(settings, label)
    return info.value, time.monotonic() - started


@pytest.mark.parametrize("model", ["gpt-5-mini", "gpt-5.4", "o3-mini", "openai/o4-mini", "o1"])
def test_reasoning_models_get_max_completion_tokens_and_their_default_temperature(model: str):
    with LLMServer("hi") as server:
        call(settings_for(server, model=model, max_tokens=77))
        (request,) = server.requests
    assert request.body["max_completion_tokens"] == 77
    assert "max_tokens" not in request.body and "temperature" not in request.body


@pytest.mark.parametrize("model", ["gpt-4o", "gpt-4.1-mini", "smollm2-135m", "o-llama", "gpt-50x"])
def test_other_models_get_max_tokens_and_temperature_0(model: str):
    with LLMServer("hi") as server:
        call(settings_for(server, model=model, max_tokens=77))
        (request,) = server.requests
    assert request.body["max_tokens"] == 77 and request.body["temperature"] == 0.0


def test_plain_call_sends_the_request_and_reads_the_reply():
    with LLMServer("hi there") as server:
        completion = call(settings_for(server, max_tokens=77))
        (request,) = server.requests
    assert completion.content == "hi there" and completion.finish_reason == "stop" and completion.attempts == 1
    assert request.body["messages"] == MESSAGES
    assert request.body["temperature"] == 0.0 and request.body["max_tokens"] == 77
    assert "logprobs" not in request.body  # not asked for, not sent (some servers reject it)
    assert request.headers["authorization"] == f"Bearer {SECRET}"
    assert SECRET.encode() not in request.raw_body


def test_logprobs_are_exposed_when_the_endpoint_gives_them():
    tokens = [('{"', -0.1, [('{"', -0.1)]), ("A", -0.4, [("A", -0.4), ("B", -1.2)])]
    with LLMServer(Reply('{"A', tokens=tokens)) as server:
        completion = call(settings_for(server, logprobs=True, top_logprobs=2))
        assert server.requests[0].body["logprobs"] is True and server.requests[0].body["top_logprobs"] == 2
    assert completion.logprobs is not None
    assert completion.logprobs[1].token == "A" and completion.logprobs[1].logprob == pytest.approx(-0.4)
    assert completion.logprobs[1].top_probs() == pytest.approx({"A": 0.6703, "B": 0.3012}, abs=1e-3)


def test_missing_logprobs_are_reported_as_none():
    with LLMServer("x", supports_logprobs=False) as server:
        assert call(settings_for(server, logprobs=True, top_logprobs=2)).logprobs is None


@pytest.mark.parametrize(
    "failure",
    [Reply.error(429), Reply.error(500), Reply.error(503), Reply.malformed_body(), Reply.truncated_body("x")],
    ids=["429", "500", "503", "malformed-body", "truncated-body"],
)
def test_transient_failures_are_retried(failure: Reply):
    with LLMServer(fail_first(2, failure, "ok")) as server:
        completion = call(settings_for(server))
        assert server.count == 3
    assert completion.content == "ok" and completion.attempts == 3


def test_retry_after_is_honoured():
    with LLMServer(fail_first(1, Reply.error(429, retry_after=0.4), "ok")) as server:
        started = time.monotonic()
        call(settings_for(server))
        first, second = server.requests
    assert second.received - first.received >= 0.38
    assert time.monotonic() - started < 2.0


def test_retries_stop_after_max_attempts():
    with LLMServer(Reply.error(500)) as server:
        error, elapsed = failure_of(settings_for(server, max_attempts=4, backoff_s=0.05, backoff_max_s=1.0))
        assert server.count == 4
    # jittered back-off 0.05, 0.1, 0.2 times U(0.5, 1]
    assert 0.17 <= elapsed < 1.5
    message = str(error)
    assert "\n" not in message and "item-1" in message and "4 attempts" in message and "HTTP 500" in message


def test_retries_stop_when_the_time_budget_is_spent():
    with LLMServer(Reply.error(429, retry_after=0.2)) as server:
        error, elapsed = failure_of(settings_for(server, max_attempts=1000, retry_budget_s=1.0))
        attempts = server.count
    # retried (about five times at 0.2 s apart, fewer on a loaded machine), then stopped: a
    # budget ignored would retry 1,000 times for 200 s; the margins are for load, not precision
    assert 2 <= attempts <= 6
    assert elapsed < 3.0
    assert "retry budget" in str(error)


def test_a_retry_after_beyond_the_budget_gives_up_at_once():
    with LLMServer(Reply.error(429, retry_after=60)) as server:
        error, elapsed = failure_of(settings_for(server, retry_budget_s=5.0))
        assert server.count == 1
    # at once: well inside the 5 s budget, not after it (1 s was missed at load 9 with -n 2)
    assert elapsed < 3.0 and "Retry-After" in str(error)


def test_slow_responses_time_out_and_are_retried_within_bounds():
    with LLMServer(Reply.slow("late", 5.0)) as server:
        error, elapsed = failure_of(settings_for(server, timeout_s=0.2, max_attempts=3))
        assert server.count == 3
    assert 0.6 <= elapsed < 2.0
    assert "timed out" in str(error)


def test_a_slow_first_reply_then_a_fast_one_succeeds():
    with LLMServer(fail_first(1, Reply.slow("late", 3.0), "ok")) as server:
        completion = call(settings_for(server, timeout_s=0.3))
    assert completion.content == "ok" and completion.attempts == 2


def test_the_budget_also_bounds_a_slow_attempt():
    with LLMServer(Reply.slow("late", 5.0)) as server:
        _, elapsed = failure_of(settings_for(server, timeout_s=3.0, retry_budget_s=0.5, max_attempts=5))
    assert elapsed < 1.2


def test_connection_errors_are_retried_and_bounded():
    with LLMServer("x") as server:
        settings = settings_for(server, max_attempts=3)
    error, elapsed = failure_of(settings)  # the server is gone: connection refused
    assert elapsed < 2.0 and "3 attempts" in str(error) and "connection error" in str(error)


def test_client_errors_fail_at_once():
    with LLMServer(Reply.error(400, message="bad request: unknown field")) as server:
        error, _ = failure_of(settings_for(server))
        assert server.count == 1
    assert "HTTP 400" in str(error) and "1 attempt " in str(error)


def echo_key(request) -> Reply:
    """A hostile server: echoes the Authorization header in its error and its answer."""
    return Reply.error(401, message=f"invalid key {request.headers['authorization']}")


def test_the_api_key_never_appears_in_errors_or_logs(caplog: pytest.LogCaptureFixture):
    caplog.set_level(logging.DEBUG)
    errors = []
    with LLMServer(echo_key) as server:
        errors.append(failure_of(settings_for(server))[0])
    with LLMServer(sequence(Reply.error(500), Reply.error(429, retry_after=0.01), Reply.slow("x", 2))) as server:
        errors.append(failure_of(settings_for(server, timeout_s=0.2, max_attempts=3))[0])
    for error in errors:
        text = "".join(traceback.format_exception(error)) + repr(error) + str(error.args)
        assert SECRET not in text
        assert error.__cause__ is None and error.__context__ is None
    assert "<redacted>" in str(errors[0])
    assert SECRET not in caplog.text
    assert any("retrying" in record.getMessage() for record in caplog.records)


def test_an_echoed_key_in_content_is_scrubbed(tmp_path):
    with LLMServer(lambda r: f"your key is {r.headers['authorization']}") as server:
        settings = settings_for(server, cache_mode="readwrite", cache_path=tmp_path / "c.sqlite")
        caller = ModelCaller(settings)
        completion = caller.call(ChatRequest.build(settings, MESSAGES))
        caller.close()
    assert SECRET not in (completion.content or "") and "<redacted>" in (completion.content or "")


def _echo_everywhere(request) -> Reply:
    """A hostile server: the key in every text field of a completion, log-prob tokens included."""
    key = request.headers["authorization"]
    token = {
        "token": key,
        "logprob": -0.1,
        "bytes": None,
        "top_logprobs": [{"token": key, "logprob": -0.1, "bytes": None}],
    }
    body = {
        "id": "c",
        "object": "chat.completion",
        "created": 0,
        "model": f"model-{key}",
        "choices": [
            {
                "index": 0,
                "finish_reason": f"stop {key}",
                "logprobs": {"content": [token]},
                "message": {"role": "assistant", "content": f"answer {key}"},
            }
        ],
    }
    return Reply(body=json.dumps(body).encode())


def test_an_echoed_key_in_any_field_reaches_neither_the_cache_nor_the_caller(tmp_path):
    cache = tmp_path / "c.sqlite"
    with LLMServer(_echo_everywhere) as server:
        settings = settings_for(server, cache_mode="readwrite", cache_path=cache)
        caller = ModelCaller(settings)
        completion = caller.call(ChatRequest.build(settings, MESSAGES))
        caller.close()
    assert SECRET not in repr(completion) and "<redacted>" in (completion.model or "")
    assert completion.logprobs is not None and completion.logprobs[0].token.endswith("<redacted>")
    stored = b"".join(path.read_bytes() for path in tmp_path.iterdir())  # the file, and any WAL left
    assert SECRET.encode() not in stored and b"<redacted>" in stored


def test_nothing_holding_settings_shows_or_pickles_the_key():
    settings = LLMSettings(model="m", base_url="http://127.0.0.1:9/v1")
    client = ChatClient(settings)
    caller = ModelCaller(settings, client=client)
    for obj in (settings, client, caller, Secret(SECRET)):
        assert SECRET not in repr(obj) and SECRET not in str(obj) and SECRET not in f"{obj}"
    assert SECRET.encode() not in pickle.dumps(settings)
    with pytest.raises(TypeError):
        pickle.dumps(Secret(SECRET))
    client.close()


def test_base_url_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch):
    with LLMServer("from env") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        assert call(LLMSettings(model="m")).content == "from env"


def test_no_key_and_no_local_server_is_a_config_error(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        ChatClient(LLMSettings(model="m"))


@pytest.mark.parametrize(
    "bad",
    [
        dict(temperature=-1),
        dict(max_attempts=0),
        dict(concurrency=0),
        dict(timeout_s=0),
        dict(cache_mode="sometimes"),
        dict(cache_mode="replay"),
        dict(model=""),
        dict(top_logprobs=50),
    ],
)
def test_bad_settings_are_config_errors(bad: dict):
    with pytest.raises(ConfigError):
        LLMSettings(**{"model": "m", **bad})


@pytest.mark.slow
def test_a_trickling_server_cannot_hold_a_call_past_its_deadline():
    """One byte a second: every read is quick, so httpx's per-read timeout never fires; the
    call's wall-clock deadline (timeout_s per attempt, within the retry budget) does."""
    with LLMServer(Reply.trickle("a slow answer", interval_s=1.0)) as server:
        started = time.monotonic()
        error = bounded(30, lambda: call(settings_for(server, timeout_s=1.0, max_attempts=2)))
        elapsed = time.monotonic() - started
    assert isinstance(error, ResponseError), error
    assert "timed out after 1.00s" in str(error) and "2 attempts" in str(error)
    assert elapsed < 4.0  # two attempts of 1 s and a back-off of at most 0.1 s (loaded machine: margin)


@pytest.mark.slow
def test_a_server_trickling_its_headers_cannot_hold_a_call_or_a_probe():
    with HeaderTrickle() as server:
        settings = LLMSettings(
            model="m", base_url=server.base_url, timeout_s=1.0, max_attempts=1, retry_budget_s=5.0, context_window=None
        )
        started = time.monotonic()
        error = bounded(30, lambda: call(settings))
        assert isinstance(error, ResponseError) and "timed out" in str(error), error
        # the context-window probe (GET /models, /props) asks the same server first: bounded too
        assert time.monotonic() - started < 6.0


def _quota(request) -> Reply:
    body = {"error": {"message": "You exceeded your current quota.", "type": "insufficient_quota", "code": None}}
    return Reply(body=json.dumps(body).encode())


@pytest.mark.slow
def test_an_error_body_with_status_200_says_the_servers_message_and_is_not_retried():
    with LLMServer(_quota) as server:
        error, _ = failure_of(settings_for(server))
        assert server.count == 1
    assert "You exceeded your current quota." in str(error) and "insufficient_quota" in str(error)
    assert "malformed" not in str(error)


def _split_key_in_tokens(request) -> Reply:
    """Clean content; the log-prob tokens (and their first alternatives) join to the key."""
    key = request.headers["authorization"].removeprefix("Bearer ")
    pieces = [key[i : i + 3] for i in range(0, len(key), 3)]
    tokens = [(piece, -0.1, [(piece, -0.1), ("x", -3.0)]) for piece in pieces]
    return Reply(content="a clean answer", tokens=tokens)


@pytest.mark.slow
def test_a_key_split_over_logprob_tokens_reaches_neither_the_cache_nor_the_caller(tmp_path):
    cache = tmp_path / "c.sqlite"
    with LLMServer(_split_key_in_tokens) as server:
        settings = settings_for(server, cache_mode="readwrite", cache_path=cache, logprobs=True, top_logprobs=2)
        caller = ModelCaller(settings)
        completion = caller.call(ChatRequest.build(settings, MESSAGES))
        caller.close()
    assert completion.logprobs is not None and completion.content == "a clean answer"
    joined = "".join(t.token for t in completion.logprobs)
    first_alternatives = "".join(t.top[0][0] for t in completion.logprobs)
    stored = b"".join(path.read_bytes() for path in tmp_path.iterdir()).decode("utf-8", "replace")
    for text in (joined, first_alternatives, stored):
        assert not any(piece in text for piece in key_pieces(SECRET))
    assert "<redacted>" in joined


@pytest.mark.slow
def test_an_error_echoing_the_key_but_its_last_character_is_scrubbed():
    with LLMServer(Reply.error(400, message=f"bad key {SECRET[:-1]}")) as server:
        error, _ = failure_of(settings_for(server))
    text = str(error)
    assert "<redacted>" in text and not any(piece in text for piece in key_pieces(SECRET))
