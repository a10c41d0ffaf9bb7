"""The data of one model call: the request (and its content address) and the completion.

A request is everything that can change the output: model, messages, output parameters
and the prompt template's name@version. Its key is the SHA-256 of a canonical JSON form;
the API key, base URL, timeouts and retry settings are deliberately not part of it, so
a cache recorded against one server replays for a team using another.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..repetition import current_repeat
from .settings import LLMSettings

#: bump when the key's canonical form or the stored completion format changes
KEY_FORMAT = 1


@dataclass(frozen=True)
class ChatRequest:
    model: str
    messages: tuple[Mapping[str, str], ...]
    params: Mapping[str, Any]
    #: "name@version" of the prompt template the messages came from ("" when none)
    template: str = ""
    #: which repeat of the item asks (--memeval-repeat); 0 leaves the key as it always was
    repeat: int = 0

    @classmethod
    def build(cls, settings: LLMSettings, messages: Sequence[Mapping[str, str]], template: str = "") -> "ChatRequest":
        """The request, keyed to the repeat of the item being run (see pytest_memeval.repetition)."""
        frozen = tuple({"role": str(m["role"]), "content": str(m["content"])} for m in messages)
        return cls(settings.model, frozen, settings.output_params(), template, current_repeat())

    def canonical(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": KEY_FORMAT,
            "model": self.model,
            "messages": [dict(m) for m in self.messages],
            "params": dict(self.params),
            "template": self.template,
        }
        if self.repeat:
            data["repeat"] = self.repeat
        return data

    def key(self) -> str:
        text = json.dumps(self.canonical(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class TokenLogprob:
    """One generated token, its log-probability, and the top alternatives the server gave."""

    token: str
    logprob: float
    top: tuple[tuple[str, float], ...] = ()

    @property
    def prob(self) -> float:
        return math.exp(self.logprob)

    def top_probs(self) -> dict[str, float]:
        return {token: math.exp(lp) for token, lp in self.top}


@dataclass(frozen=True)
class Completion:
    """What the model returned. `logprobs` is None when the endpoint gave none."""

    content: str | None
    finish_reason: str | None = None
    logprobs: tuple[TokenLogprob, ...] | None = None
    model: str | None = None
    usage: Mapping[str, int] = field(default_factory=dict)
    #: how it was obtained (not stored in the cache)
    cached: bool = False
    attempts: int = 0

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"

    def to_json(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "finish_reason": self.finish_reason,
            "logprobs": None
            if self.logprobs is None
            else [[t.token, t.logprob, [list(alt) for alt in t.top]] for t in self.logprobs],
            "model": self.model,
            "usage": dict(self.usage),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], *, cached: bool = False) -> "Completion":
        raw = data.get("logprobs")
        logprobs = (
            None
            if raw is None
            else tuple(TokenLogprob(tok, float(lp), tuple((a, float(alp)) for a, alp in top)) for tok, lp, top in raw)
        )
        return cls(
            content=data.get("content"),
            finish_reason=data.get("finish_reason"),
            logprobs=logprobs,
            model=data.get("model"),
            usage=dict(data.get("usage") or {}),
            cached=cached,
        )
