"""`context`: the ceiling. Returns everything stored, newest last, up to a token budget."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..types import Memory, Message
from .resources import Resources
from .tokens import process_counter


class ContextMemory:
    """Keeps every message; `retrieve` ignores the query and k, as a long context would.

    When the stored text exceeds `token_budget`, the oldest messages are dropped first,
    like a context window that keeps the most recent turns.
    """

    #: the ceiling returns everything it holds whatever k is (the conformance kit knows)
    honours_k = False
    #: each memory names the message it holds (`Memory.sources`)
    keeps_sources = True
    #: a dict in this process: no I/O, no lock, no thread (the guard calls it inline)
    returns_at_once = True

    def __init__(self, token_budget: int = 32_000) -> None:
        self.check_settings({"token_budget": token_budget})
        self.token_budget = token_budget
        self._store: dict[str, list[tuple[str, int, str | None]]] = {}
        #: what `retrieve` returns per namespace until it changes: every item of a context
        #: gets the same memories, built once (the runner then checks them once)
        self._returned: dict[str, tuple[Memory, ...]] = {}

    @classmethod
    def check_settings(cls, settings: Mapping[str, Any]) -> None:
        """Values the constructor would refuse, checked at configure time (one ValueError line)."""
        if settings.get("token_budget", 1) < 1:
            raise ValueError(f"token_budget must be at least 1, got {settings['token_budget']}")

    @classmethod
    def from_memeval(cls, config: Mapping[str, Any], resources: Resources) -> ContextMemory:
        return cls(**config)

    def reset(self, namespace: str) -> None:
        self._store.pop(namespace, None)
        self._returned.pop(namespace, None)

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        self._returned.pop(namespace, None)
        messages = self._store.setdefault(namespace, [])
        for message in session:
            if message.content.strip():
                messages.append((message.content, process_counter(message.content), message.id))

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        returned = self._returned.get(namespace)
        if returned is None:
            stored = self._store.get(namespace, [])
            start = len(stored)
            used = 0
            while start > 0 and used + stored[start - 1][1] <= self.token_budget:
                start -= 1
                used += stored[start][1]
            returned = self._returned[namespace] = tuple(_memory(i, entry) for i, entry in enumerate(stored[start:]))
        return list(returned)

    def dump(self, namespace: str) -> list[Memory] | None:
        return [_memory(i, entry) for i, entry in enumerate(self._store.get(namespace, []))]

    def close(self) -> None:
        self._store.clear()
        self._returned.clear()


def _memory(position: int, entry: tuple[str, int, str | None]) -> Memory:
    text, _, source = entry
    return Memory(text=text, id=str(position), sources=(source,) if source is not None else ())
