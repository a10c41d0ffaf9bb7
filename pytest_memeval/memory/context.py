"""`context`: the ceiling. Returns everything stored, newest last, up to a token budget."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..types import Memory, Message
from .tokens import count_tokens


class ContextMemory:
    """Keeps every message; `retrieve` ignores the query and k, as a long context would.

    When the stored text exceeds `token_budget`, the oldest messages are dropped first,
    like a context window that keeps the most recent turns.
    """

    #: the ceiling returns everything it holds whatever k is (the conformance kit knows)
    honours_k = False

    def __init__(self, token_budget: int = 32_000) -> None:
        if token_budget < 1:
            raise ValueError(f"token_budget must be at least 1, got {token_budget}")
        self.token_budget = token_budget
        self._store: dict[str, list[tuple[str, int]]] = {}

    @classmethod
    def from_memeval(cls, config: Mapping[str, Any], resources: Any) -> ContextMemory:
        return cls(**config)

    def reset(self, namespace: str) -> None:
        self._store.pop(namespace, None)

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        messages = self._store.setdefault(namespace, [])
        for message in session:
            if message.content.strip():
                messages.append((message.content, count_tokens(message.content)))

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        kept: list[str] = []
        used = 0
        for text, tokens in reversed(self._store.get(namespace, [])):
            if used + tokens > self.token_budget:
                break
            kept.append(text)
            used += tokens
        return [Memory(text=text, id=str(i)) for i, text in enumerate(reversed(kept))]

    def dump(self, namespace: str) -> list[Memory] | None:
        return [Memory(text=t, id=str(i)) for i, (t, _) in enumerate(self._store.get(namespace, []))]

    def close(self) -> None:
        self._store.clear()
