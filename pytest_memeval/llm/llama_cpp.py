"""What llama-cpp-python's server (the local model's) refuses in a chat request that the
OpenAI API takes, and the nearest request it takes.

- A `response_format` of OpenAI's form, `{"type": "json_schema", "json_schema": {...}}`:
  HTTP 500 naming response_format. Its own form: `{"type": "json_object", "schema": ...}`.
- An assistant message that carries `tool_calls` with `content: null` (how an agent's history
  records a call without words; Letta sends one at every step): HTTP 500 "Input should be a
  valid string". The nearest: `content: ""`.
- `tool_choice: "required"` (or "any"), which its `chatml-function-calling` handler does not
  know (HTTP 500 with an empty message), and a missing `tool_choice` beside tools, with
  which it drops the tools: the nearest is the one tool by name when there is one, else
  `"auto"` (the model may then answer in text; OpenAI's default with tools is "auto").

And one thing it takes but does not bound: with `tool_choice` "auto" that handler generates a
tool's arguments without `max_tokens`, so a small model looping inside a JSON string fills
the whole context window (4,783 tokens in one LangMem call). `with_bounded_tool_strings`
gives a tool's string parameters a `maxLength`, which the handler's grammar enforces (an
adapter's `llm_tool_string_chars`); its free-text answer under "auto" stays bounded only by
the window.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .structured import JSON_OBJECT, JSON_SCHEMA, refuses_schema_form

#: what the server answers (HTTP 500) to an assistant message with tool_calls and null content
NULL_CONTENT_REFUSAL = ("'ChatCompletionRequestAssistantMessage', 'content')", "Input should be a valid string")


def refuses_null_content(sent: Mapping[str, Any], status: int, answer: str) -> bool:
    """Whether the server refused `sent` for a null content beside tool calls."""
    return status >= 400 and has_null_tool_call_content(sent) and all(part in answer for part in NULL_CONTENT_REFUSAL)


def refuses_json_schema(sent: Mapping[str, Any], status: int, answer: str) -> bool:
    """Whether the server refused `sent`'s json_schema response_format (it may take json_object)."""
    return asks_json_schema(sent) and refuses_schema_form(status, answer)


def asks_json_schema(body: Mapping[str, Any]) -> bool:
    form = body.get("response_format")
    return isinstance(form, dict) and form.get("type") == JSON_SCHEMA


def with_json_object_schema(body: Mapping[str, Any]) -> dict[str, Any]:
    """`body` with a json_schema response_format in the server's own json_object form."""
    if not asks_json_schema(body):
        return dict(body)
    schema = (body["response_format"].get("json_schema") or {}).get("schema")
    return {**body, "response_format": {"type": JSON_OBJECT, **({"schema": schema} if schema else {})}}


def has_null_tool_call_content(body: Mapping[str, Any]) -> bool:
    messages = body.get("messages")
    return isinstance(messages, list) and any(_null_beside_tool_calls(m) for m in messages)


def with_empty_tool_call_content(body: Mapping[str, Any]) -> dict[str, Any]:
    """`body` with `content: ""` on each assistant message that carries tool calls and a null content."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return dict(body)
    return {**body, "messages": [{**m, "content": ""} if _null_beside_tool_calls(m) else m for m in messages]}


def with_tool_choice(body: Mapping[str, Any]) -> dict[str, Any]:
    """`body` with a tool_choice the server's function-calling handler takes."""
    out = dict(body)
    tools = out.get("tools")
    if tools and out.get("tool_choice") is None:
        out["tool_choice"] = "auto"  # OpenAI's default with tools; the handler drops the tools without it
    elif tools and out.get("tool_choice") in ("required", "any"):
        if len(tools) == 1:
            out["tool_choice"] = {"type": "function", "function": {"name": tools[0]["function"]["name"]}}
        else:
            out["tool_choice"] = "auto"  # the nearest the handler takes: the model may also answer in text
    return out


def with_bounded_tool_strings(body: Mapping[str, Any], max_chars: int) -> dict[str, Any]:
    """`body` with a `maxLength` of `max_chars` on each string parameter (at any depth) of its
    non-strict tools that has none; strict tools (OpenAI's structured outputs, which refuse
    the keyword) are left as they are."""
    tools = body.get("tools")
    if not isinstance(tools, list):
        return dict(body)
    return {**body, "tools": [_bounded_tool(tool, max_chars) for tool in tools]}


def _bounded_tool(tool: Any, limit: int) -> Any:
    function = tool.get("function") if isinstance(tool, dict) else None
    if not isinstance(function, dict) or function.get("strict") or not isinstance(function.get("parameters"), dict):
        return tool
    return {**tool, "function": {**function, "parameters": _bounded_strings(function["parameters"], limit)}}


def _bounded_strings(schema: Any, limit: int) -> Any:
    if isinstance(schema, list):
        return [_bounded_strings(part, limit) for part in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: _bounded_strings(value, limit) for key, value in schema.items()}
    if schema.get("type") == "string" and "maxLength" not in schema and "enum" not in schema:
        out["maxLength"] = limit
    return out


def _null_beside_tool_calls(message: Any) -> bool:
    return (
        isinstance(message, dict)
        and message.get("role") == "assistant"
        and bool(message.get("tool_calls"))
        and message.get("content") is None
    )
