"""Memory systems that fail at one stage on purpose, to show memfail's judge names each stage.

DroppingMemory     stores only every other session            -> storage failures
TruncatingMemory   keeps the first words of every sentence    -> summary failures
RandomMemory       stores everything, retrieves at random     -> retrieval failures
UnlistableMemory   the ceiling, but cannot list its memories  -> "unknown" instead of a guess
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Sequence

from pytest_memeval.memory.context import ContextMemory
from pytest_memeval.types import Memory, Message

_SENTENCE = re.compile(r"(?<=[.!?])\s+")


class DroppingMemory(ContextMemory):
    """Like a store whose update step silently skips half of what it is given."""

    def __init__(self, token_budget: int = 32_000) -> None:
        super().__init__(token_budget)
        self._seen: dict[str, int] = {}

    def reset(self, namespace: str) -> None:
        self._seen.pop(namespace, None)
        super().reset(namespace)

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        count = self._seen.get(namespace, 0)
        self._seen[namespace] = count + 1
        if count % 2 == 0:
            super().ingest(namespace, session)


class TruncatingMemory(ContextMemory):
    """A lossy summariser: every sentence keeps its first `words` words."""

    words = 7

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        cut = [
            Message(m.role, " ".join(" ".join(s.split()[: self.words]) for s in _SENTENCE.split(m.content)))
            for m in session
        ]
        super().ingest(namespace, cut)


class RandomMemory(ContextMemory):
    """Stores everything verbatim but retrieves k memories at random (seeded by the query)."""

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        stored = self.dump(namespace) or []
        seed = int(hashlib.sha256(query.encode()).hexdigest()[:8], 16)
        return random.Random(seed).sample(stored, min(k, len(stored)))


class UnlistableMemory(ContextMemory):
    def dump(self, namespace: str) -> list[Memory] | None:
        return None
