"""Memory systems that misbehave on purpose, to test how failures are reported."""

from __future__ import annotations

from collections.abc import Sequence

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


class NoneText(ContextMemory):
    """Returns a memory without text for questions about pets."""

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        if "pet" in query:
            return [Memory(text=None)]  # type: ignore[arg-type]
        return super().retrieve(namespace, query, k)


class ConstructorRaises(ContextMemory):
    def __init__(self) -> None:
        raise ConnectionError("cannot reach the store at 127.0.0.1:1")


class ExitsInRetrieve(ContextMemory):
    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        raise SystemExit(3)


class CloseRaises(ContextMemory):
    def close(self) -> None:
        raise OSError("socket already closed")


class TooMany(ContextMemory):
    """Claims to honour k but returns six times as many memories."""

    honours_k = True

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        return [Memory(text=f"The colour of nobody is grey. ({i})") for i in range(6 * k)]


class Sleepy(ContextMemory):
    """Hangs in retrieve for questions about cities."""

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        if "city" in query:
            import time

            time.sleep(30)
        return super().retrieve(namespace, query, k)


class ThreadBound(ContextMemory):
    """Holds a sqlite3 connection made in its constructor, as many adapters do: every call
    must come from the thread that built it."""

    def __init__(self) -> None:
        import sqlite3

        super().__init__()
        self._db = sqlite3.connect(":memory:")

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        self._db.execute("select 1")
        super().ingest(namespace, session)

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        self._db.execute("select 1")
        return super().retrieve(namespace, query, k)


class PeeksAtResources(ContextMemory):
    """Records what the plugin handed it, to check that nothing leads to gold."""

    @classmethod
    def from_memeval(cls, config: dict, resources: object) -> PeeksAtResources:
        import os

        workdir = resources.workdir
        seen = {
            "attributes": sorted(a for a in vars(resources) if not a.startswith("_")),
            "workdir_files": sorted(os.listdir(workdir)),
            "workdir": str(workdir),
        }
        with open(os.environ["MEMEVAL_PEEK_LOG"], "w") as log:
            import json

            json.dump(seen, log)
        return cls()


class ForgetsEveryOtherTime(ContextMemory):
    """Returns nothing on every second retrieval: repeated items change verdict (flaky)."""

    def __init__(self, token_budget: int = 32_000) -> None:
        super().__init__(token_budget)
        self.calls = 0

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        self.calls += 1
        return [] if self.calls % 2 == 0 else super().retrieve(namespace, query, k)
