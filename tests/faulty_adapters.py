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


# --- what an adapter returns, checked at the guard (tests/test_bad_input.py) ---------------


class StatsSet(ContextMemory):
    def ingest_stats(self, namespace: str) -> dict:
        return {"added": {1, 2}}


class StatsDatetime(ContextMemory):
    def ingest_stats(self, namespace: str) -> dict:
        import datetime

        return {"when": datetime.datetime(2026, 1, 1)}


class StatsList(ContextMemory):
    def ingest_stats(self, namespace: str) -> list:
        return ["added", 3]


class StatsNaN(ContextMemory):
    """Non-finite numbers among the statistics: converted to null, the items scored."""

    def ingest_stats(self, namespace: str) -> dict:
        return {"added": 3, "rate": float("nan"), "cost": float("inf"), "per_session": (1, 2.5)}


class _Retouched(ContextMemory):
    """Returns what the context store returns, each memory changed by `retouch`."""

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        import dataclasses

        return [dataclasses.replace(m, **self.retouch(i)) for i, m in enumerate(super().retrieve(namespace, query, k))]

    def retouch(self, index: int) -> dict:
        raise NotImplementedError


class NaNScore(_Retouched):
    def retouch(self, index: int) -> dict:
        return {"score": (float("nan"), float("inf"), float("-inf"))[index % 3]}


class StringScore(_Retouched):
    def retouch(self, index: int) -> dict:
        return {"score": "0.9"}


class IntegerId(_Retouched):
    """Integer ids are converted to strings (chroma-like stores number their rows)."""

    def retouch(self, index: int) -> dict:
        return {"id": index, "score": index}


class DictId(_Retouched):
    def retouch(self, index: int) -> dict:
        return {"id": {"row": index}}


class MetadataSet(_Retouched):
    def retouch(self, index: int) -> dict:
        return {"metadata": {"tags": {"a", "b"}}}


class MetadataList(_Retouched):
    def retouch(self, index: int) -> dict:
        return {"metadata": ["not", "a", "mapping"]}


class SourcesOfNumbers(_Retouched):
    def retouch(self, index: int) -> dict:
        return {"sources": (1, 2)}


class EscapesInErrors(ContextMemory):
    """An exception whose message clears the screen and forges a pytest result line."""

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        raise RuntimeError("\x1b[2J\x1b[H\x1b]0;pwned\x07\r============ 216 passed in 1.00s ============\x1b[0m")


# --- adapters that hang, leave threads behind or kill their worker ----------------------------


class HangsForever(ContextMemory):
    """Never returns from retrieve (a dead socket without a timeout)."""

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        import threading

        threading.Event().wait()
        raise AssertionError("unreachable")


class LeavesAThread(ContextMemory):
    """Starts a non-daemon thread that never ends (a poller an SDK forgot to stop)."""

    def __init__(self) -> None:
        import threading

        super().__init__()
        threading.Thread(target=threading.Event().wait, name="sdk-poller", daemon=False).start()


class CrashesOnce(ContextMemory):
    """Kills its process (an xdist worker) in the first retrieve about a city of the run;
    later calls, on a fresh worker, work. MEMEVAL_CRASH_MARK names a file that records the crash."""

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        import os

        mark = os.environ["MEMEVAL_CRASH_MARK"]
        if "city" in query and not os.path.exists(mark):
            with open(mark, "w") as handle:
                handle.write(query)
            os._exit(7)
        return super().retrieve(namespace, query, k)


class CrashesOnEveryCity(ContextMemory):
    """Kills its process in every retrieve about a city."""

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        import os

        if "city" in query:
            os._exit(7)
        return super().retrieve(namespace, query, k)


class CrashesOnOnePet(ContextMemory):
    """Kills its process in every retrieve about the pet of p3 (one item of the wide toy suite)."""

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        import os

        if "pet of p3" in query:
            os._exit(7)
        return super().retrieve(namespace, query, k)


class NamesItsProcess(ContextMemory):
    """Writes its process id to MEMEVAL_VICTIM_PID at its first retrieve in the run (for a
    test that kills that xdist worker from outside while its calls are upstream)."""

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        import os

        path = os.environ["MEMEVAL_VICTIM_PID"]
        if not os.path.exists(path):
            with open(path + ".tmp", "w") as handle:
                handle.write(str(os.getpid()))
            os.replace(path + ".tmp", path)
        return super().retrieve(namespace, query, k)
