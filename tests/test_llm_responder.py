"""LLMResponder: prefetching a context's items, and every item ending valid or as a counted error."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import pytest
from llm_server import LLMServer, Reply, fail_first

from pytest_memeval.errors import ResponseError
from pytest_memeval.llm import LLMResponder, LLMSettings, MultisourcePrompt
from pytest_memeval.types import ItemView, Memory

SPACE = ("low", "mid", "high")
BASE = ItemView("multisource", "A1", "?", SPACE)


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-responder-test-0000000000")


def item(i: int) -> tuple[str, ItemView, list[Memory]]:
    return f"ctx-item-{i:03d}", replace(BASE, question=f"<q{i}> how much?"), [Memory(f"memory for {i}")]


def settings_for(server: LLMServer, **overrides: object) -> LLMSettings:
    values: dict = dict(
        model="m",
        base_url=server.base_url,
        timeout_s=0.5,
        max_attempts=3,
        retry_budget_s=5.0,
        backoff_s=0.01,
        backoff_max_s=0.05,
        concurrency=8,
    )
    values.update(overrides)
    return LLMSettings(**values)


def tag_of(request) -> int:
    return int(request.text.split("<q", 1)[1].split(">", 1)[0])


VALID = '{"answer": "mid", "would_skip": false}'


def mixed(request):
    """Eight behaviours by item number; what each should end as is in EXPECTED."""
    kind = tag_of(request) % 8
    return [
        VALID,
        '{"answer": "medium", "would_skip": false}',  # wrong label -> invalid
        "```json\n" + VALID + "\n```",  # fenced -> invalid
        Reply('{"answer": "mi', finish_reason="length"),  # cut -> invalid
        Reply.error(500),  # always failing -> error
        Reply.malformed_body(),  # always unreadable -> error
        VALID,  # (429 first, see below) -> valid
        VALID,  # (slow first) -> valid
    ][kind]


def script_with_transients():
    first_429 = fail_first(1, Reply.error(429, retry_after=0.05), mixed)
    first_slow = fail_first(1, Reply.slow(VALID, 3.0), mixed)
    return lambda r: {6: first_429, 7: first_slow}.get(tag_of(r) % 8, mixed)(r)


EXPECTED = {0: "valid", 1: "invalid", 2: "invalid", 3: "invalid", 4: "error", 5: "error", 6: "valid", 7: "valid"}
#: HTTP requests per item kind: max_attempts=3 for the errors, 2 for the transients
ATTEMPTS = {0: 1, 1: 1, 2: 1, 3: 1, 4: 3, 5: 3, 6: 2, 7: 2}


def test_every_item_ends_valid_invalid_or_as_a_counted_error():
    n = 64
    items = [item(i) for i in range(n)]
    outcome: dict[int, str] = {}
    with LLMServer(script_with_transients()) as server:
        # 2 s: a plain reply never times out on a loaded machine (an extra attempt would change
        # the counts asserted below); the slow first replies (3 s) still do
        responder = LLMResponder(MultisourcePrompt(), settings_for(server, timeout_s=2.0))
        assert responder.prefetch(items) == n
        for i, (label, view, memories) in enumerate(items):
            try:
                answer = responder.answer(view, memories)
            except ResponseError as exc:
                assert label in str(exc) and "\n" not in str(exc)
                outcome[i] = "error"
            else:
                outcome[i] = "valid" if answer.valid else "invalid"
                assert answer.valid or (answer.label is None and answer.raw)
        stats = responder.stats()
        responder.close()
        per_item = {}
        for request in server.requests:
            per_item[tag_of(request)] = per_item.get(tag_of(request), 0) + 1
    assert len(outcome) == n  # nothing lost
    assert outcome == {i: EXPECTED[i % 8] for i in range(n)}
    assert per_item == {i: ATTEMPTS[i % 8] for i in range(n)}
    assert stats["calls"] == n and stats["failures"] == n // 4 and stats["pending"] == 0


def test_prefetched_calls_run_concurrently_within_the_bound():
    in_flight, peak, lock = [0], [0], threading.Lock()

    def script(request):
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
        time.sleep(0.25)
        with lock:
            in_flight[0] -= 1
        return VALID

    with LLMServer(script) as server:
        responder = LLMResponder(MultisourcePrompt(), settings_for(server, concurrency=4, timeout_s=2.0))
        items = [item(i) for i in range(12)]
        started = time.monotonic()
        responder.prefetch(items)
        answers = [responder.answer(v, m) for _, v, m in items]
        elapsed = time.monotonic() - started
        responder.close()
    assert all(a.valid for a in answers)
    assert peak[0] == 4
    # three waves of 0.25 s (0.75 s), not twelve (3 s): the margin is for a loaded machine
    assert 0.74 < elapsed < 2.4


def test_answer_without_prefetch_calls_synchronously():
    with LLMServer(VALID) as server:
        responder = LLMResponder(MultisourcePrompt(), settings_for(server))
        _, view, memories = item(1)
        assert responder.answer(view, memories).label == "mid"
        assert server.count == 1 and responder.pending == 0
        responder.close()


def test_identical_requests_are_asked_once_and_answered_for_each():
    with LLMServer(VALID) as server:
        responder = LLMResponder(MultisourcePrompt(), settings_for(server))
        _, view, memories = item(1)
        assert responder.prefetch([("a", view, memories), ("b", view, memories)]) == 1
        assert [responder.answer(view, memories).label for _ in range(2)] == ["mid", "mid"]
        assert server.count == 1 and responder.pending == 0
        responder.close()


def test_a_different_request_is_not_served_a_prefetched_answer():
    with LLMServer(lambda r: VALID if "<q1>" in r.text else '{"answer": "high", "would_skip": true}') as server:
        responder = LLMResponder(MultisourcePrompt(), settings_for(server))
        _, view, memories = item(1)
        responder.prefetch([("a", view, memories)])
        other = responder.answer(view, [Memory("other memories")])
        assert responder.answer(view, memories).label == "mid"
        responder.close()
    assert other.label == "mid"  # same question <q1>, but its own call
    assert server.count == 2


def test_logprobs_flag_for_the_report():
    with LLMServer(VALID) as server:
        responder = LLMResponder(MultisourcePrompt(), settings_for(server, logprobs=True, top_logprobs=3))
        assert responder.logprobs_supported is None
        answer = responder.answer(*item(1)[1:])
        assert responder.logprobs_supported is True and answer.detail["logprobs"] == "available"
        completion = responder.completion(*item(2)[1:])
        assert completion.logprobs and completion.logprobs[0].prob > 0.9
        responder.close()
    with LLMServer(VALID, supports_logprobs=False) as server:
        responder = LLMResponder(MultisourcePrompt(), settings_for(server, logprobs=True, top_logprobs=3))
        answer = responder.answer(*item(1)[1:])
        assert responder.logprobs_supported is False and answer.detail["logprobs"] == "unavailable"
        responder.close()


def test_close_cancels_unasked_prefetches_promptly():
    with LLMServer(VALID, latency_s=0.5) as server:
        responder = LLMResponder(MultisourcePrompt(), settings_for(server, concurrency=2, timeout_s=2.0))
        responder.prefetch([item(i) for i in range(20)])
        started = time.monotonic()
        responder.close()
        # the two calls in flight finish (0.5 s); all twenty would take 5 s: the margin is for load
        assert time.monotonic() - started < 2.5
        assert server.count <= 4
