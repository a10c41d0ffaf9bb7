"""A prompt's size against the endpoint's context window, and the timeout it earns.

Before a call goes out (cache misses only) the client plans it:

- The window: `LLMSettings.context_window` when set (the local-model launcher sets it to
  its n_ctx), else what the server says, asked once per endpoint and model per process:
  `max_model_len` (vLLM), `context_length` / `context_window` / `max_context_length` in
  the model's entry of GET /models, or `n_ctx` in llama-server's GET /props. A server that
  says nothing (OpenAI, llama-cpp-python's server) gets no check.
- The prompt's tokens: every byte-level BPE token covers at least one byte, so the UTF-8
  length of the messages plus a chat-template allowance (TEMPLATE_TOKENS + MESSAGE_TOKENS
  per message, for role markers and default system prompts) bounds the count from above.
  When that bound and max_tokens fit, the call goes. Otherwise the server's tokenizer
  counts (llama-cpp-python's POST /extras/tokenize, llama-server's and vLLM's POST
  /tokenize); without one, the estimate is one token per BYTES_PER_TOKEN bytes, which errs
  towards counting too many: with SmolLM2's and Gemma 3's tokenizers the suites' prompts
  run 2.6 (multisource's records) to 4.6 bytes per token, a synthetic digit-heavy log 1.84. Prompt plus max_tokens over the window is a
  `ContextWindowError` naming the tokens needed: the item becomes an error record and no
  call is made. A server that still refuses for length is reported the same way.
- The timeout of each attempt: timeout_s plus timeout_per_1k_tokens_s per 1,000 tokens of
  prompt (counted or estimated) and max_tokens, so a slow local model gets the time a
  long prompt needs instead of being retried into failure.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from ..config.llm_settings import LLMSettings
from ..errors import ResponseError
from .calls import ChatRequest, plain_prompt
from .deadline import DeadlineExceeded, call_within
from .tls import tls_context

TEMPLATE_TOKENS = 32
MESSAGE_TOKENS = 8
BYTES_PER_TOKEN = 1.5
WINDOW_KEYS = ("max_model_len", "context_length", "context_window", "max_context_length")
#: (path under the server root, body) of the tokenizers we know, tried in order
TOKENIZE_ROUTES: tuple[tuple[str, str], ...] = (
    ("/extras/tokenize", "llama-cpp-python"),
    ("/tokenize", "llama-server"),
    ("/tokenize", "vllm"),
)
_TOO_LONG = re.compile(r"context (window|length)|maximum context|too many tokens|prompt is too long", re.IGNORECASE)


class ContextWindowError(ResponseError):
    """The prompt and the answer's token budget do not fit the endpoint's context window."""


@dataclass(frozen=True)
class Plan:
    timeout_s: float
    #: prompt tokens (None when nothing needed counting) and how they were counted
    prompt_tokens: int | None = None
    counted_by: str = ""
    window: int | None = None


def says_too_long(message: str) -> bool:
    """Whether a server's error message is about the prompt exceeding the context window."""
    return _TOO_LONG.search(message) is not None


class _Endpoints:
    """What endpoints told us, process-wide: windows per (base URL, model), tokenizer routes."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        #: held while one thread asks a server its window, so a prefetch pool asks once
        self.asking = threading.Lock()
        self.windows: dict[tuple[str, str], int | None] = {}
        self.tokenizers: dict[str, int | None] = {}  # base URL -> index into TOKENIZE_ROUTES

    def forget(self) -> None:
        with self.lock:
            self.windows.clear()
            self.tokenizers.clear()


ENDPOINTS = _Endpoints()


class PromptBudget:
    """Plans the calls of one client (thread-safe)."""

    def __init__(self, settings: LLMSettings, base_url: str | None, headers: Mapping[str, str]) -> None:
        self.settings = settings
        self.base_url = base_url.rstrip("/") if base_url else None
        self._headers = dict(headers)
        self._http: httpx.Client | None = None
        self._lock = threading.Lock()

    @property
    def active(self) -> bool:
        s = self.settings
        return s.context_window is not None or s.timeout_per_1k_tokens_s > 0 or self.base_url is not None

    def plan(self, request: ChatRequest, *, label: str | None = None) -> Plan:
        settings = self.settings
        if not self.active:
            return Plan(settings.timeout_s)
        window = self.window()
        if window is None and settings.timeout_per_1k_tokens_s == 0:
            return Plan(settings.timeout_s)
        answer = int(request.params.get("max_tokens") or 0)
        text = plain_prompt(request.messages) if settings.api == "completions" else request.text()
        allowance = TEMPLATE_TOKENS + MESSAGE_TOKENS * len(request.messages)
        size = len(text.encode("utf-8"))
        bound = size + allowance
        estimate = min(bound, math.ceil(size / BYTES_PER_TOKEN) + allowance)
        tokens, counted_by = estimate, "estimate"
        if window is not None and bound + answer > window:
            counted = self._tokenize(text, settings.attempt_timeout(estimate + answer))
            if counted is not None:
                tokens, counted_by = counted + allowance, "the server's tokenizer"
            if tokens + answer > window:
                target = f" for {label}" if label else ""
                raise ContextWindowError(
                    f"prompt{target} needs {tokens} tokens ({counted_by}, chat template included) plus "
                    f"max_tokens {answer} = {tokens + answer}, over the context window of {window} tokens of "
                    f"model {settings.model!r}; no call made (use a memory system that returns less, a smaller "
                    "k, or a model with a larger window)"
                )
        return Plan(settings.attempt_timeout(tokens + answer), tokens, counted_by, window)

    def window(self) -> int | None:
        if self.settings.context_window is not None:
            return self.settings.context_window
        if self.base_url is None:
            return None
        key = (self.base_url, self.settings.model)
        with ENDPOINTS.lock:
            if key in ENDPOINTS.windows:
                return ENDPOINTS.windows[key]
        with ENDPOINTS.asking:
            with ENDPOINTS.lock:
                if key in ENDPOINTS.windows:  # another thread asked meanwhile
                    return ENDPOINTS.windows[key]
            found = self._ask_window()
            with ENDPOINTS.lock:
                ENDPOINTS.windows[key] = found
        return found

    def close(self) -> None:
        with self._lock:
            if self._http is not None:
                self._http.close()
                self._http = None

    # -- asking the server ------------------------------------------------------------------
    def _client(self) -> httpx.Client:
        with self._lock:
            if self._http is None:
                self._http = httpx.Client(headers=self._headers, timeout=self.settings.timeout_s, verify=tls_context())
            return self._http

    def _root(self) -> str:
        assert self.base_url is not None
        return self.base_url.removesuffix("/v1")

    def _get_json(self, url: str) -> Any:
        timeout = self.settings.timeout_s
        try:
            response = call_within(timeout, lambda: self._client().get(url, timeout=timeout))
            return response.json() if response.status_code == 200 else None
        except (httpx.HTTPError, ValueError, DeadlineExceeded):
            return None

    def _ask_window(self) -> int | None:
        listing = self._get_json(f"{self.base_url}/models")
        entries = listing.get("data") if isinstance(listing, dict) else None
        if isinstance(entries, list):
            mine = [e for e in entries if isinstance(e, dict) and e.get("id") == self.settings.model]
            for entry in mine or (entries if len(entries) == 1 else []):
                for key in WINDOW_KEYS:
                    if _positive_int(entry.get(key)):
                        return int(entry[key])
        props = self._get_json(f"{self._root()}/props")
        if isinstance(props, dict):
            generation = props.get("default_generation_settings")
            for source in (generation if isinstance(generation, dict) else {}, props):
                if _positive_int(source.get("n_ctx")):
                    return int(source["n_ctx"])
        return None

    def _tokenize(self, text: str, timeout: float) -> int | None:
        assert self.base_url is not None
        with ENDPOINTS.lock:
            known = ENDPOINTS.tokenizers.get(self.base_url, -1)
        if known is None:
            return None
        routes = [known] if known >= 0 else list(range(len(TOKENIZE_ROUTES)))
        for index in routes:
            count = self._tokenize_with(index, text, timeout)
            if count is not None:
                with ENDPOINTS.lock:
                    ENDPOINTS.tokenizers[self.base_url] = index
                return count
        if known < 0:
            with ENDPOINTS.lock:
                ENDPOINTS.tokenizers[self.base_url] = None
        return None

    def _tokenize_with(self, index: int, text: str, timeout: float) -> int | None:
        path, kind = TOKENIZE_ROUTES[index]
        model = self.settings.model
        body = {"llama-cpp-python": {"input": text, "model": model}, "llama-server": {"content": text}}.get(
            kind, {"model": model, "prompt": text}
        )
        try:
            response = call_within(
                timeout, lambda: self._client().post(f"{self._root()}{path}", json=body, timeout=timeout)
            )
            data = response.json() if response.status_code == 200 else None
        except (httpx.HTTPError, ValueError, DeadlineExceeded):
            return None
        if isinstance(data, dict) and isinstance(data.get("tokens"), list):
            return len(data["tokens"])
        if isinstance(data, dict) and _positive_int(data.get("count")):
            return int(data["count"])
        return None


def _positive_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0
