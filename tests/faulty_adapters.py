"""Memory systems that misbehave on purpose, to test how failures are reported."""

from __future__ import annotations

from typing import Sequence

from pytest_memeval.memory.context import ContextMemory
from pytest_memeval.types import Memory, Message


class FailingRetrieve(ContextMemory):
    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        raise ConnectionError("store unreachable\nsecond line of detail")


class FailingIngest(ContextMemory):
    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        raise RuntimeError("disk full")


class WrongType(ContextMemory):
    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:  # type: ignore[override]
        return ["a string is not a Memory"]  # type: ignore[list-item]


class CountingContext(ContextMemory):
    """Records how often each namespace is filled, in a file shared by all workers."""

    log_path = None

    def reset(self, namespace: str) -> None:
        import os

        with open(os.environ["MEMEVAL_FILL_LOG"], "a") as log:
            log.write(namespace + "\n")
        super().reset(namespace)
