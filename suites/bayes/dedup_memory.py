"""A self-test memory that deduplicates: each distinct message text is stored once.

It stands in for memories that consolidate repeated facts ("The flip was: heads" x 60
becomes one memory), to show what that does to evidence counts: with identically worded
observations the belief collapses towards the prior, with indexed ones nothing is lost.
Retrieval returns everything it holds in storage order, ignoring the query and k, so the
deduplication is the only thing measured. Use it as
--memsystem=pytest_memeval.suites.bayes.dedup_memory:DeduplicatingMemory.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_memeval.memory.resources import Resources
from pytest_memeval.types import Memory, Message


class DeduplicatingMemory:
    honours_k = False

    def __init__(self) -> None:
        self._store: dict[str, dict[str, None]] = {}

    @classmethod
    def from_memeval(cls, config: Mapping[str, Any], resources: Resources) -> DeduplicatingMemory:
        if config:
            raise ValueError(f"DeduplicatingMemory takes no settings, got {sorted(config)}")
        return cls()

    def reset(self, namespace: str) -> None:
        self._store.pop(namespace, None)

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        texts = self._store.setdefault(namespace, {})
        for message in session:
            text = message.content.strip()
            if text:
                texts.setdefault(text, None)

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        return self.dump(namespace)

    def dump(self, namespace: str) -> list[Memory]:
        return [Memory(text=text, id=str(i)) for i, text in enumerate(self._store.get(namespace, {}))]

    def close(self) -> None:
        self._store.clear()
