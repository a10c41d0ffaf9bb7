"""A whole OpenAI-compatible answer told as a stream, for a client that asked for one.

The gateway always asks the endpoint for the whole answer (a recording holds answers, not
streams) and, when the client sent `stream: true`, tells it as server-sent events in the
OpenAI format: per choice one chunk with the role and content (and its log-probs), one
with the tool calls, one with the finish reason; a usage chunk when the client asked for
it (`stream_options.include_usage`); then `data: [DONE]`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

CONTENT_TYPE = "text/event-stream"


def stream_events(response: Mapping[str, Any], route: str, include_usage: bool) -> bytes:
    """The server-sent events telling `response` (a chat completion, or a completion when
    `route` is completions)."""
    chunks = _completion_chunks(response) if route == "completions" else _chat_chunks(response)
    if include_usage:
        chunks = [*chunks, _chunk(response, "chat.completion.chunk", [], usage=response.get("usage"))]
    lines = [f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n" for chunk in chunks]
    return ("".join(lines) + "data: [DONE]\n\n").encode()


def _chat_chunks(response: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        _chunk(response, "chat.completion.chunk", [choice]) for choice in _chat_choices(response.get("choices") or [])
    ]


def _chat_choices(choices: list[Any]) -> Iterator[dict[str, Any]]:
    for choice in choices:
        index = choice.get("index", 0)
        message = choice.get("message") or {}
        delta: dict[str, Any] = {"role": message.get("role", "assistant"), "content": message.get("content")}
        first: dict[str, Any] = {"index": index, "delta": delta, "finish_reason": None}
        if choice.get("logprobs") is not None:
            first["logprobs"] = choice["logprobs"]
        yield first
        calls = message.get("tool_calls") or []
        if calls:
            numbered = [{"index": i, **call} for i, call in enumerate(calls)]
            yield {"index": index, "delta": {"tool_calls": numbered}, "finish_reason": None}
        yield {"index": index, "delta": {}, "finish_reason": choice.get("finish_reason")}


def _completion_chunks(response: Mapping[str, Any]) -> list[dict[str, Any]]:
    chunks = []
    for choice in response.get("choices") or []:
        index = choice.get("index", 0)
        text = {
            "index": index,
            "text": choice.get("text") or "",
            "logprobs": choice.get("logprobs"),
            "finish_reason": None,
        }
        done = {"index": index, "text": "", "logprobs": None, "finish_reason": choice.get("finish_reason")}
        chunks += [_chunk(response, "text_completion", [text]), _chunk(response, "text_completion", [done])]
    return chunks


def _chunk(response: Mapping[str, Any], kind: str, choices: list[Any], usage: Any = None) -> dict[str, Any]:
    chunk = {
        "id": response.get("id", "memeval-gateway"),
        "object": kind,
        "created": response.get("created", 0),
        "model": response.get("model", ""),
        "choices": choices,
    }
    if usage is not None:
        chunk["usage"] = usage
    return chunk
