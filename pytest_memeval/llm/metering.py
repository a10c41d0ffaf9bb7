"""What one caller of the gateway spent, attributed to the namespace being filled.

A `Meter` belongs to one caller (a memory system's route through the gateway). The runner
opens `meter.scope(namespace)` around each call that fills a namespace (`ingest`); every
exchange the gateway serves on that route meanwhile, from whatever client or process the
system uses, adds its `LLMUsage` to the namespace. The adapter guard runs one call of a
system at a time, so at most one scope per meter is open. A replay miss inside a scope is
kept there, so the runner can fail the item with the gateway's one line even when the
system swallows the failed call.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from ..results.usage import Tokens
from .caller import ReplayMissError
from .repetition import current_repeat


@dataclass(frozen=True)
class LLMUsage:
    """LLM calls counted by the run's gateway (llm/gateway.py) for one scope, e.g. what a
    memory system's own LLM spent filling one context: `calls` made (`cached_calls` of them
    answered from the recording, which reports the tokens recorded), the tokens the endpoint
    reported (`prompt_tokens`, `completion_tokens`; 0 where it reported none) and `seconds`,
    the wall time of the calls as the system waited for them (summed; calls in parallel
    overlap)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    cached_calls: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: LLMUsage) -> LLMUsage:
        return LLMUsage(
            self.calls + other.calls,
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.seconds + other.seconds,
            self.cached_calls + other.cached_calls,
        )


@dataclass
class Scope:
    """One open scope: the namespace, the item's repeat (part of the key), what it spent."""

    namespace: str
    repeat: int = 0
    usage: LLMUsage = field(default_factory=LLMUsage)
    #: the same calls per model, as a record's `llm_tokens` counts them (usage.py)
    tokens: dict[str, Tokens] = field(default_factory=dict)
    misses: list[str] = field(default_factory=list)

    def raise_miss(self) -> None:
        """Raise the first replay miss of the scope, if any (one line)."""
        if self.misses:
            more = f" (and {len(self.misses) - 1} more)" if len(self.misses) > 1 else ""
            raise ReplayMissError(self.misses[0] + more)


class Meter:
    """The usage of one caller, per namespace since its last `forget`; thread-safe."""

    def __init__(self, caller: str) -> None:
        self.caller = caller
        self._lock = threading.Lock()
        self._open: Scope | None = None
        self._namespaces: dict[str, LLMUsage] = {}
        #: the same calls per model, as a record's `llm_tokens` counts them
        self._tokens: dict[str, dict[str, Tokens]] = {}
        #: calls outside any scope (construction, retrieval)
        self.unscoped = LLMUsage()

    @contextmanager
    def scope(self, namespace: str) -> Iterator[Scope]:
        opened = Scope(namespace, current_repeat())
        with self._lock:
            self._open = opened
        try:
            yield opened
        finally:
            with self._lock:
                self._open = None
                self._namespaces[namespace] = self._namespaces.get(namespace, LLMUsage()) + opened.usage
                into = self._tokens.setdefault(namespace, {})
                for model, tokens in opened.tokens.items():
                    into[model] = into.get(model, Tokens()) + tokens

    def repeat(self) -> int:
        """The repeat of the open scope (0 outside one)."""
        with self._lock:
            return 0 if self._open is None else self._open.repeat

    def add(self, usage: LLMUsage, model: str = "") -> None:
        """Count one call of `model` (`usage` of one exchange)."""
        with self._lock:
            if self._open is not None:
                self._open.usage = self._open.usage + usage
                call = Tokens.of_call(usage.prompt_tokens, usage.completion_tokens, cached=usage.cached_calls > 0)
                self._open.tokens[model] = self._open.tokens.get(model, Tokens()) + call
            else:
                self.unscoped = self.unscoped + usage

    def missed(self, message: str) -> None:
        with self._lock:
            if self._open is not None:
                self._open.misses.append(message)

    def usage(self, namespace: str) -> LLMUsage:
        with self._lock:
            return self._namespaces.get(namespace, LLMUsage())

    def tokens(self, namespace: str) -> dict[str, Tokens]:
        """The namespace's calls since its last `forget`, per model."""
        with self._lock:
            return dict(self._tokens.get(namespace, {}))

    def forget(self, namespace: str) -> None:
        with self._lock:
            self._namespaces.pop(namespace, None)
            self._tokens.pop(namespace, None)
