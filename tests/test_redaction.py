"""Pieces of the API key are removed from everything a server sends back (redaction.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pytest_memeval.llm.calls import Completion, TokenLogprob
from pytest_memeval.llm.redaction import MIN_REDACTED, REDACTED, redact, redact_joined
from pytest_memeval.llm.settings import Secret

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
