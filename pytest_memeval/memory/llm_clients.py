"""OpenAI clients for the LLMs inside memory systems (A-MEM, Graphiti, LangMem), built on the run's settings.

Each system asks its LLM for structured output in its own way. Two things go wrong with
a local OpenAI-compatible server, and this module mends both at the HTTP layer, so the
openai SDK (sync or async) and LangChain clients all get the same behaviour:

- llama-cpp-python's server accepts JSON schemas only as `{"type": "json_object",
  "schema": ...}`, not OpenAI's `{"type": "json_schema", ...}`. A request whose
  `json_schema` format the server refuses is sent again in the server's own form, and
  every later request of that client is sent that way at once.
- Small models can loop inside a JSON grammar until the context is full. Every request
  is capped at `max_tokens` (a request asking for more is lowered to the cap), and with
  `tool_string_chars` each string argument of a tool at that many characters (llama.cpp's
  handler ignores `max_tokens` for tool arguments; see `llm.llama_cpp`).
- llama-cpp-python's tool-calling handler (`--chat_format chatml-function-calling`) drops
  the tools of a request without `tool_choice` and rejects `"required"`: the default
  (`"auto"`) is sent explicitly; `"required"` names the tool when there is one, and is
  sent as `"auto"` when there are several.

The API key comes from `$OPENAI_API_KEY` (a local server ignores it; the SDK insists on one).
"""

from __future__ import annotations

import json
import os
import threading
from typing import Any

import httpx

from ..config.adapter_settings import AdapterLLM
from ..llm.llama_cpp import (
    refuses_json_schema,
    with_bounded_tool_strings,
    with_json_object_schema,
    with_tool_choice,
)
from ..llm.tls import tls_context


class SchemaFormat:
    """Shared by the requests of one client: whether to send schemas in llama.cpp's form."""

    def __init__(self, max_tokens: int, tool_string_chars: int | None = None) -> None:
        if max_tokens < 1:
            raise ValueError(f"max_tokens must be at least 1, got {max_tokens}")
        if tool_string_chars is not None and tool_string_chars < 1:
            raise ValueError(f"tool_string_chars must be at least 1, got {tool_string_chars}")
        self.max_tokens = max_tokens
        self.tool_string_chars = tool_string_chars
        self._as_json_object = False
        self._lock = threading.Lock()

    @property
    def as_json_object(self) -> bool:
        with self._lock:
            return self._as_json_object

    def fall_back(self) -> None:
        with self._lock:
            self._as_json_object = True

    def adjust(self, body: dict[str, Any]) -> dict[str, Any]:
        out = dict(body)
        for key in ("max_tokens", "max_completion_tokens"):
            if isinstance(out.get(key), int):
                out[key] = min(out[key], self.max_tokens)
        if "max_tokens" not in out and "max_completion_tokens" not in out:
            out["max_tokens"] = self.max_tokens
        out = with_tool_choice(out)
        if self.tool_string_chars is not None:
            out = with_bounded_tool_strings(out, self.tool_string_chars)
        return with_json_object_schema(out) if self.as_json_object else out

    def refused(self, sent: dict[str, Any], status: int, content: bytes) -> bool:
        """True when the server refused a json_schema format it could take as json_object."""
        return not self.as_json_object and refuses_json_schema(sent, status, content.decode(errors="replace"))


class _Transport(httpx.HTTPTransport):
    def __init__(self, schema: SchemaFormat) -> None:
        super().__init__(verify=tls_context())
        self.schema = schema

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body = _chat_body(request)
        if body is None:
            return super().handle_request(request)
        sent = self.schema.adjust(body)
        response = super().handle_request(_with_body(request, sent))
        if response.status_code >= 400:
            content = response.read()
            if self.schema.refused(sent, response.status_code, content):
                response.close()
                self.schema.fall_back()
                return super().handle_request(_with_body(request, self.schema.adjust(body)))
        return response


class _AsyncTransport(httpx.AsyncHTTPTransport):
    def __init__(self, schema: SchemaFormat) -> None:
        super().__init__(verify=tls_context())
        self.schema = schema

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = _chat_body(request)
        if body is None:
            return await super().handle_async_request(request)
        sent = self.schema.adjust(body)
        response = await super().handle_async_request(_with_body(request, sent))
        if response.status_code >= 400:
            content = await response.aread()
            if self.schema.refused(sent, response.status_code, content):
                await response.aclose()
                self.schema.fall_back()
                return await super().handle_async_request(_with_body(request, self.schema.adjust(body)))
        return response


def _chat_body(request: httpx.Request) -> dict[str, Any] | None:
    if request.method != "POST" or not request.url.path.endswith("/chat/completions"):
        return None
    try:
        body = json.loads(request.read())
    except (ValueError, UnicodeDecodeError):
        return None
    return body if isinstance(body, dict) else None


def _with_body(request: httpx.Request, body: dict[str, Any]) -> httpx.Request:
    headers = {k: v for k, v in request.headers.items() if k.lower() != "content-length"}
    return httpx.Request(
        request.method, request.url, headers=headers, content=json.dumps(body).encode(), extensions=request.extensions
    )


def api_key() -> str:
    return os.environ.get("OPENAI_API_KEY") or "not-set"


def http_client(llm: AdapterLLM) -> httpx.Client:
    return httpx.Client(transport=_Transport(SchemaFormat(llm.max_tokens, llm.tool_string_chars)), timeout=llm.timeout)


def async_http_client(llm: AdapterLLM) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=_AsyncTransport(SchemaFormat(llm.max_tokens, llm.tool_string_chars)), timeout=llm.timeout
    )


def openai_client(llm: AdapterLLM) -> Any:
    from openai import OpenAI

    return OpenAI(
        base_url=llm.base_url,
        api_key=api_key(),
        timeout=llm.timeout,
        max_retries=llm.max_retries,
        http_client=http_client(llm),  # type: ignore[arg-type]  # openai annotates httpx2 but accepts httpx clients
    )


def async_openai_client(llm: AdapterLLM) -> Any:
    from openai import AsyncOpenAI

    return AsyncOpenAI(
        base_url=llm.base_url,
        api_key=api_key(),
        timeout=llm.timeout,
        max_retries=llm.max_retries,
        http_client=async_http_client(llm),  # type: ignore[arg-type]  # openai annotates httpx2 but accepts httpx clients
    )


def fit_prompt(prompt: str, max_chars: int) -> str:
    """Cut the longest stretches of a prompt (between tabs and newlines) until it fits.

    Systems that paste whole memories into their prompts (A-MEM's neighbours) overflow a
    small model's context on a very long memory; the memory itself is stored whole.
    """
    if len(prompt) <= max_chars:
        return prompt
    parts = _split_keeping_separators(prompt)
    excess = len(prompt) - max_chars
    while excess > 0:
        longest = max(range(len(parts)), key=lambda i: len(parts[i]))
        size = len(parts[longest])
        if size <= 64:
            break
        part = parts[longest]
        sep = part[-1] if part[-1] in "\t\n" else ""
        body = part[: len(part) - len(sep)]
        keep = max(len(body) - excess - len(_CUT), len(body) // 2)
        parts[longest] = body[:keep] + _CUT + sep
        excess -= size - len(parts[longest])
    return "".join(parts)


_CUT = " [...]"


def _split_keeping_separators(text: str) -> list[str]:
    parts, start = [], 0
    for i, ch in enumerate(text):
        if ch in "\t\n":
            parts.append(text[start : i + 1])
            start = i + 1
    parts.append(text[start:])
    return parts
