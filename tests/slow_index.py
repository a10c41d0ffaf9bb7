"""Stand-ins for asynchronous memory systems: a store whose sessions become retrievable
`delay_s` seconds after their ingest returned, and one that never indexes them."""

from __future__ import annotations

import time
from collections.abc import Sequence

from pytest_memeval.types import Memory, Message


class IndexesAfter:
    """Keeps every message; a session is searchable `delay_s` after its ingest (never with
    None). Its calls return at once: the probe's timings carry no thread hand-off."""

    returns_at_once = True

    def __init__(self, delay_s: float | None = 0.3) -> None:
        self.delay_s = delay_s
        self.sessions: dict[str, list[tuple[float, tuple[Message, ...]]]] = {}

    def reset(self, namespace: str) -> None:
        self.sessions.pop(namespace, None)

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        self.sessions.setdefault(namespace, []).append((time.monotonic(), tuple(session)))

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        now = time.monotonic()
        indexed = [
            Memory(message.content)
            for stored, session in self.sessions.get(namespace, [])
            if self.delay_s is not None and now - stored >= self.delay_s
            for message in session
        ]
        return indexed[:k]

    def dump(self, namespace: str) -> list[Memory] | None:
        return None

    def close(self) -> None:
        pass


class NeverIndexes(IndexesAfter):
    def __init__(self) -> None:
        super().__init__(None)
