"""Pieces of the API key are removed from everything a server sends back (redaction.py)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from pytest_memeval.llm.calls import Completion, TokenLogprob
from pytest_memeval.llm.redaction import MIN_REDACTED, REDACTED, redact, redact_body, redact_joined
from pytest_memeval.llm.secret import Secret

KEY = "sk-proj-Qx7vT2mNa9LcR4pW8yZb3KdF6hJs1"


def leaks(text: str, secret: str = KEY) -> bool:
    """Whether `text` holds MIN_REDACTED or more characters of `secret` in a row."""
    return any(secret[i : i + MIN_REDACTED] in text for i in range(len(secret) - MIN_REDACTED + 1))


def test_the_whole_key_a_prefix_and_a_middle_piece_are_redacted() -> None:
    text = f"bad key {KEY}; again {KEY[:-1]}; and {KEY[5:20]} then ok"
    out = redact(text, KEY)
    assert not leaks(out) and out.count(REDACTED) == 3 and out.endswith(" then ok")


def test_pieces_shorter_than_the_minimum_and_short_secrets_are_left() -> None:
    assert redact(f"the prefix {KEY[: MIN_REDACTED - 1]} stays", KEY) == f"the prefix {KEY[: MIN_REDACTED - 1]} stays"
    assert redact("EMPTY is the placeholder key", "EMPTY") == "EMPTY is the placeholder key"


def test_a_key_split_over_tokens_is_redacted_in_the_join_and_the_boundaries_kept() -> None:
    tokens = ["The key is ", *(KEY[i : i + 3] for i in range(0, len(KEY), 3)), " thanks"]
    out = redact_joined(tokens, KEY)
    assert len(out) == len(tokens) and out[0] == "The key is " and out[-1] == " thanks"
    assert "".join(out) == f"The key is {REDACTED} thanks"


@given(
    st.lists(st.text(alphabet="sk-proj-Qx7vT2mNa9 ab", max_size=12), max_size=12),
    st.integers(0, len(KEY) - MIN_REDACTED),
    st.integers(MIN_REDACTED, len(KEY)),
)
def test_redacting_the_parts_is_redacting_their_join(parts: list[str], start: int, length: int) -> None:
    piece = KEY[start : start + length]
    parts = [*parts[:3], piece[:4], piece[4:], *parts[3:]]
    out = redact_joined(parts, KEY)
    assert "".join(out) == redact("".join(parts), KEY)
    assert len(out) == len(parts) and not leaks("".join(out))


def test_a_completion_is_scrubbed_in_every_field_and_in_its_joined_tokens_and_alternatives() -> None:
    pieces = [KEY[i : i + 4] for i in range(0, len(KEY), 4)]
    logprobs = tuple(TokenLogprob(p, -0.1, ((p, -0.1), (p.upper(), -2.0))) for p in pieces)
    completion = Completion(f"content {KEY}", f"stop{KEY[:-1]}", logprobs, model=f"m-{KEY[2:]}")
    clean = completion.scrubbed(Secret(KEY))
    texts = [clean.content or "", clean.finish_reason or "", clean.model or ""]
    texts.append("".join(t.token for t in clean.logprobs or ()))
    texts.append("".join(t.top[0][0] for t in clean.logprobs or ()))
    assert not any(leaks(text) for text in texts)
    assert [lp for t in clean.logprobs or () for _, lp in t.top] == [lp for t in logprobs for _, lp in t.top]


def escaped(text: str) -> str:
    """`text` as a JSON string's content spelled in \\u escapes, every character of it."""
    return "".join(f"\\u{ord(c):04x}" for c in text)


def strings_of(value: object) -> list[str]:
    """Every string of a JSON value (keys included), in document order."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for key, item in value.items() for s in [key, *strings_of(item)]]
    if isinstance(value, list):
        return [s for item in value for s in strings_of(item)]
    return []


def test_a_key_spelled_in_json_escapes_is_redacted_in_what_the_body_decodes_to() -> None:
    body = (
        '{"id": "c1", "choices": [{"message": {"content": "your key: ' + escaped(KEY) + ' (kept)", '
        '"tool_calls": [{"function": {"arguments": "{\\"k\\": \\"' + escaped(KEY[3:19]) + '\\"}"}}]}}], '
        '"error": {"message": "' + escaped(KEY[:-1]) + '"}, "' + escaped(KEY) + '": 1}'
    )
    out = redact_body(body, KEY)
    decoded = json.loads(out)
    assert not any(leaks(s) for s in strings_of(decoded))
    assert decoded["choices"][0]["message"]["content"] == f"your key: {REDACTED} (kept)"
    assert out.startswith('{"id": "c1", "choices": [{"message": {"content": "your key: ')  # the rest as it was
    lone = redact_body('{"c": "\\ud800 caf\u00e9 ' + KEY + '"}', KEY)  # a lone surrogate, escaped
    assert lone.encode() and json.loads(lone) == {"c": f"\ud800 caf\u00e9 {REDACTED}"}


def test_a_key_split_over_a_streams_events_is_redacted_in_their_join() -> None:
    pieces = [KEY[i : i + 5] for i in range(0, len(KEY), 5)]  # each shorter than MIN_REDACTED
    events = [{"id": "c1", "choices": [{"index": 0, "delta": {"content": escaped(p)}}]} for p in pieces]
    stream = "".join(f"data: {json.dumps(e)}\n\n" for e in events).replace("\\\\u", "\\u") + "data: [DONE]\n\n"
    assert "".join(json.loads(line[6:])["choices"][0]["delta"]["content"] for line in stream.split("\n\n")[:-2]) == KEY
    out = redact_body(stream, KEY)
    chunks = [json.loads(line[6:]) for line in out.split("\n\n") if line.startswith("data: {")]
    assert len(chunks) == len(pieces) and out.endswith("data: [DONE]\n\n")
    assert not leaks("".join(c["choices"][0]["delta"]["content"] for c in chunks))


def test_a_key_split_over_log_prob_tokens_is_redacted_though_alternatives_come_between() -> None:
    pieces = [KEY[i : i + 3] for i in range(0, len(KEY), 3)]
    content = [{"token": p, "logprob": -0.1, "top_logprobs": [{"token": p.upper(), "logprob": -2.0}]} for p in pieces]
    out = json.loads(redact_body(json.dumps({"choices": [{"logprobs": {"content": content}}]}), KEY))
    tokens = out["choices"][0]["logprobs"]["content"]
    assert not leaks("".join(t["token"] for t in tokens))
    assert [t["logprob"] for t in tokens] == [-0.1] * len(pieces)


def test_a_key_in_the_bytes_of_log_prob_tokens_is_redacted_there_too() -> None:
    pieces = [KEY[i : i + 3] for i in range(0, len(KEY), 3)]
    content = [{"token": "x", "logprob": -0.1, "bytes": list(p.encode())} for p in pieces]
    out = json.loads(redact_body(json.dumps({"logprobs": {"content": content}}), KEY))
    assert not leaks(bytes(b for t in out["logprobs"]["content"] for b in t["bytes"]).decode())
    assert [t["token"] for t in out["logprobs"]["content"]] == ["x"] * len(pieces)


@given(
    st.lists(st.integers(1, 7), min_size=1, max_size=12),
    st.booleans(),
    st.text(st.characters(max_codepoint=0xFFFF, exclude_categories=("Cs",)), max_size=20),
)
def test_however_a_stream_splits_and_spells_the_key_no_piece_reaches_its_join(
    cuts: list[int], escape: bool, around: str
) -> None:
    text, pieces = around + KEY + around, []
    while text:
        size = cuts[len(pieces) % len(cuts)]
        pieces.append(text[:size])
        text = text[size:]
    spelled = [escaped(p) if escape else json.dumps(p)[1:-1] for p in pieces]
    out = redact_body("".join(f'data: {{"choices": [{{"delta": {{"content": "{p}"}}}}]}}\n\n' for p in spelled), KEY)
    joined = "".join(json.loads(line[6:])["choices"][0]["delta"]["content"] for line in out.split("\n\n") if line)
    assert not leaks(joined)


def test_a_body_without_a_piece_of_the_key_is_left_byte_for_byte() -> None:
    body = '{"a": "\\u00e9t\\u00e9",  "b": [1, 2.50, null], "c": "sk-proj"}'
    assert redact_body(body, KEY) == body
    assert redact_body("<html>upstream exploded</html>", KEY) == "<html>upstream exploded</html>"
