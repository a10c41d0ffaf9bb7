"""The LLM calls of one item, counted where the item receives each completion.

The runner opens `tallying()` around an item; whoever hands the item a completion counts it
with `count(phase, model, completion)`: the responder when it returns an answer (prefetched
or not, so a prefetched call counts for the item that uses it), each judge of a panel (its
threads run in a copy of the item's context), a suite's storage conversation while the
item's context is filled. Tokens are the endpoint's `usage` (for a cached completion, as
recorded when the call was made); a call whose endpoint reported none counts with 0 tokens.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from ..results.usage import Tokens
from .calls import Completion

_CURRENT: ContextVar[Tally | None] = ContextVar("memeval_tally", default=None)


class Tally:
    """Tokens per phase and model; thread-safe (a judge panel adds from its threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tokens: dict[str, dict[str, Tokens]] = {}

    def add(self, phase: str, model: str, completion: Completion) -> None:
        usage = completion.usage
        call = Tokens.of_call(
            int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0)), completion.cached
        )
        self.add_tokens(phase, model, call)

    def add_tokens(self, phase: str, model: str, tokens: Tokens) -> None:
        with self._lock:
            models = self._tokens.setdefault(phase, {})
            models[model] = models.get(model, Tokens()) + tokens

    def tokens(self) -> dict[str, dict[str, Tokens]]:
        with self._lock:
            return {phase: dict(models) for phase, models in self._tokens.items()}


@contextmanager
def tallying() -> Iterator[Tally]:
    tally = Tally()
    token = _CURRENT.set(tally)
    try:
        yield tally
    finally:
        _CURRENT.reset(token)


def count(phase: str, model: str, completion: Completion) -> None:
    """Count a completion for the item being evaluated (nothing outside an item)."""
    tally = _CURRENT.get()
    if tally is not None:
        tally.add(phase, model, completion)


def count_tokens(phase: str, model: str, tokens: Tokens) -> None:
    """Count calls made outside the plugin's client for the item being evaluated: a memory
    system's own LLM calls, metered by the run's gateway (nothing outside an item)."""
    tally = _CURRENT.get()
    if tally is not None:
        tally.add_tokens(phase, model, tokens)
