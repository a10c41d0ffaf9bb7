"""How to reach an OpenAI-compatible endpoint: one model's call settings.

`LLMSettings` holds everything but the API key, so it can be logged, shipped to xdist
workers and shown in reports. The key is read from OPENAI_API_KEY only when a client is
built, kept in a `Secret` whose repr hides it (llm/secret.py).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..errors import ConfigError

CacheMode = Literal["readwrite", "replay", "off"]
CACHE_MODES: tuple[str, ...] = ("readwrite", "replay", "off")
#: how a prompt's answer schema is sent (see llm/structured.py)
StructuredMode = Literal["auto", "json_schema", "json_object", "off"]
STRUCTURED_MODES: tuple[str, ...] = ("auto", "json_schema", "json_object", "off")
#: chat: /chat/completions; completions: /completions with the messages as plain text (base models)
Api = Literal["chat", "completions"]
APIS: tuple[str, ...] = ("chat", "completions")

#: the completions API's key part; the number versions the plain-text rendering of messages
COMPLETIONS_API = "completions/1"


@dataclass(frozen=True)
class LLMSettings:
    """One model's call settings. Fields that change the output are part of the cache key
    (model, temperature, max_tokens, logprobs, top_logprobs, extra, api, and structured
    when a prompt declares a schema); the others are not."""

    model: str
    #: None: $OPENAI_BASE_URL, else the openai client's default
    base_url: str | None = None
    #: the endpoint messages name when `base_url` is a route of this process's LLM gateway
    #: (the one the user configured, never the gateway's throwaway port); None: base_url
    shown_url: str | None = None
    temperature: float = 0.0
    max_tokens: int | None = 1024
    timeout_s: float = 60.0
    #: attempts per call, the first included
    max_attempts: int = 6
    #: wall-clock budget of one call, all attempts and back-off waits included
    retry_budget_s: float = 300.0
    backoff_s: float = 1.0
    backoff_max_s: float = 30.0
    #: parallel calls per process (the prefetch pool)
    concurrency: int = 16
    #: the file of the run's slots that the xdist workers of one machine share
    #: (llm/run_slots.py): `concurrency` is then the run's whole budget, held by the workers
    #: that have work; None: `concurrency` is this process's own
    run_slots: Path | None = None
    cache_mode: CacheMode = "off"
    cache_path: Path | None = None
    #: the directory where each process logs the cache keys it uses (llm/call_log.py), for
    #: a run bundle; None: not logged
    call_log: Path | None = None
    logprobs: bool = False
    top_logprobs: int | None = None
    #: extra request fields sent as-is (e.g. {"reasoning_effort": "high"}); part of the key
    extra: Mapping[str, Any] = field(default_factory=dict)
    #: constrain answers to the prompt's JSON schema: auto tries the OpenAI form, then llama-cpp-python's
    structured: StructuredMode = "auto"
    api: Api = "chat"
    #: the endpoint's context window in tokens; None: ask the server, and skip the check if it does not say
    context_window: int | None = None
    #: seconds added to timeout_s per 1,000 tokens of prompt and max_tokens (slow local models)
    timeout_per_1k_tokens_s: float = 0.0

    def __post_init__(self) -> None:
        if not self.model:
            raise ConfigError("LLM settings: model name is empty")
        if self.temperature < 0:
            raise ConfigError(f"LLM settings: temperature must be >= 0, got {self.temperature}")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ConfigError(f"LLM settings: max_tokens must be >= 1, got {self.max_tokens}")
        for name in ("timeout_s", "retry_budget_s"):
            if not (getattr(self, name) > 0 and math.isfinite(getattr(self, name))):
                raise ConfigError(f"LLM settings: {name} must be a finite number > 0, got {getattr(self, name)}")
        for name in ("backoff_s", "backoff_max_s", "timeout_per_1k_tokens_s"):
            if not (getattr(self, name) >= 0 and math.isfinite(getattr(self, name))):
                raise ConfigError(f"LLM settings: {name} must be a finite number >= 0, got {getattr(self, name)}")
        if self.structured not in STRUCTURED_MODES:
            raise ConfigError(
                f"LLM settings: structured {self.structured!r} is not one of {', '.join(STRUCTURED_MODES)}"
            )
        if self.api not in APIS:
            raise ConfigError(f"LLM settings: api {self.api!r} is not one of {', '.join(APIS)}")
        if self.context_window is not None and self.context_window < 1:
            raise ConfigError(f"LLM settings: context_window must be >= 1, got {self.context_window}")
        for name in ("max_attempts", "concurrency"):
            if getattr(self, name) < 1:
                raise ConfigError(f"LLM settings: {name} must be >= 1, got {getattr(self, name)}")
        if self.cache_mode not in CACHE_MODES:
            raise ConfigError(f"LLM settings: cache mode {self.cache_mode!r} is not one of {', '.join(CACHE_MODES)}")
        if self.cache_mode != "off" and self.cache_path is None:
            raise ConfigError(f"LLM settings: cache mode {self.cache_mode!r} needs a cache path")
        if self.top_logprobs is not None and not (0 <= self.top_logprobs <= 20):
            raise ConfigError(f"LLM settings: top_logprobs must be in 0..20, got {self.top_logprobs}")
        if self.cache_path is not None:
            object.__setattr__(self, "cache_path", Path(self.cache_path))
        try:
            json.dumps(dict(self.extra), sort_keys=True)
        except (TypeError, ValueError):
            raise ConfigError("LLM settings: extra request fields must be JSON values") from None
        object.__setattr__(self, "extra", dict(self.extra))  # a private copy (picklable, unlike a proxy)

    def resolved_base_url(self) -> str | None:
        return self.base_url or os.environ.get("OPENAI_BASE_URL") or None

    def output_params(self) -> dict[str, Any]:
        """The request parameters that can change the output (the cache key's part)."""
        params: dict[str, Any] = {"temperature": self.temperature, "max_tokens": self.max_tokens}
        if self.logprobs:
            params["logprobs"] = True
            params["top_logprobs"] = self.top_logprobs
        if self.extra:
            params["extra"] = dict(self.extra)
        if self.api != "chat":
            params["api"] = COMPLETIONS_API
        return params

    def attempt_timeout(self, tokens: int) -> float:
        """The timeout of one attempt whose prompt and answer budget total `tokens`."""
        return self.timeout_s + self.timeout_per_1k_tokens_s * tokens / 1000
