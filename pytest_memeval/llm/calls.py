"""The data of one model call: the request (and its content address) and the completion.

A request is everything that can change the output: model, messages, output parameters,
the prompt template's name@version and, when structured output is on, the answer schema
and the structured-output mode. Its key is the SHA-256 of a canonical JSON form;
the API key, base URL, timeouts and retry settings are deliberately not part of it, so
a cache recorded against one server replays for a team using another.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..config.llm_settings import LLMSettings
from .repetition import current_repeat
from .secret import Secret

#: bump when the key's canonical form or the stored completion format changes
KEY_FORMAT = 1
#: finish reasons that say the server gave no answer (a filter stopped it)
FAILED_FINISH_REASONS = frozenset({"content_filter"})


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
    def build(
        cls,
        settings: LLMSettings,
        messages: Sequence[Mapping[str, str]],
        template: str = "",
        schema: Mapping[str, Any] | None = None,
    ) -> ChatRequest:
        """The request, keyed to the repeat of the item being run (see pytest_memeval.llm.repetition).
        `schema`: the answer's JSON schema, sent unless structured output is off (the
        completions API has no response_format, so it is not sent there either)."""
        frozen = tuple({"role": str(m["role"]), "content": str(m["content"])} for m in messages)
        params = settings.output_params()
        if schema is not None and settings.structured != "off" and settings.api == "chat":
            # as text, in its own key order: a server's grammar follows the properties' order
            text = json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
            params["structured"] = {"mode": settings.structured, "schema": text}
        return cls(settings.model, frozen, params, template, current_repeat())

    @property
    def structured(self) -> tuple[str, dict[str, Any]] | None:
        """(mode, schema) when the request asks for structured output."""
        spec = self.params.get("structured")
        return None if spec is None else (spec["mode"], json.loads(spec["schema"]))

    def text(self) -> str:
        """Every message's content, in order (what a token count measures)."""
        return "\n".join(m["content"] for m in self.messages)

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
    #: the structured-output form the server was asked for (json_schema, json_object), if any
    structured: str | None = None
    #: how it was obtained (not stored in the cache)
    cached: bool = False
    attempts: int = 0

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"

    @property
    def answered(self) -> bool:
        """Whether the model answered: a completion without content (null) or stopped by a
        content filter is a failure of the call, never cached (a later run asks again)."""
        return self.content is not None and self.finish_reason not in FAILED_FINISH_REASONS

    def to_json(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "finish_reason": self.finish_reason,
            "logprobs": None
            if self.logprobs is None
            else [[t.token, t.logprob, [list(alt) for alt in t.top]] for t in self.logprobs],
            "model": self.model,
            "usage": dict(self.usage),
            "structured": self.structured,
        }

    def scrubbed(self, secret: Secret) -> Completion:
        """Every text the server sent with the pieces of `secret` removed (a server may echo
        the API key in any field: the content, the model name, the finish reason, or spread
        over the log-prob tokens or the alternatives of each rank, which are scrubbed joined)."""

        def text(value: str | None) -> str | None:
            return None if value is None else secret.scrub(value)

        return replace(
            self,
            content=text(self.content),
            finish_reason=text(self.finish_reason),
            logprobs=None if self.logprobs is None else _scrubbed_logprobs(self.logprobs, secret),
            model=text(self.model),
            structured=text(self.structured),
        )

    @classmethod
    def from_json(cls, data: Mapping[str, Any], *, cached: bool = False) -> Completion:
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
            structured=data.get("structured"),
            cached=cached,
        )


def _scrubbed_logprobs(logprobs: Sequence[TokenLogprob], secret: Secret) -> tuple[TokenLogprob, ...]:
    """The tokens scrubbed as one text; an alternative equal to its position's token becomes
    that token as scrubbed, then the alternatives of each rank are scrubbed as one text."""
    tokens = secret.scrub_joined([t.token for t in logprobs])
    tops = [[tokens[i] if alt == t.token else alt for alt, _ in t.top] for i, t in enumerate(logprobs)]
    for rank in range(max((len(top) for top in tops), default=0)):
        positions = [i for i, top in enumerate(tops) if len(top) > rank]
        for i, alt in zip(positions, secret.scrub_joined([tops[i][rank] for i in positions]), strict=True):
            tops[i][rank] = alt
    return tuple(
        TokenLogprob(token, t.logprob, tuple((alt, lp) for alt, (_, lp) in zip(top, t.top, strict=True)))
        for token, top, t in zip(tokens, tops, logprobs, strict=True)
    )


def plain_prompt(messages: Sequence[Mapping[str, str]]) -> str:
    """The messages as one text for a base model on the completions API (`api` completions/1):
    each message's content, separated by blank lines, then "Answer:" so that the next token
    is the answer (e.g. " A" for a multiple-choice probe read from log-probabilities)."""
    return "\n\n".join(str(m["content"]) for m in messages) + "\n\nAnswer:"
