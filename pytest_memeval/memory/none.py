"""`none`: the floor. Stores nothing, so every retrieval is empty."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..types import Memory, Message
from .resources import Resources


class NoMemory:
    #: the conformance kit skips the checks that need something stored
    stores_nothing = True
    #: nothing to wait for (the guard calls it inline)
    returns_at_once = True

    @classmethod
    def from_memeval(cls, config: Mapping[str, Any], resources: Resources) -> NoMemory:
        if config:
            raise ValueError(f"none takes no settings, got {sorted(config)}")
        return cls()

    def reset(self, namespace: str) -> None:
        pass

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        pass

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        return []

    def dump(self, namespace: str) -> list[Memory] | None:
        return []

    def close(self) -> None:
        pass
