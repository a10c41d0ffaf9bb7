"""The three narrow interfaces everything plugs into.

A memory system stores sessions per namespace and returns ranked memories; a response
model turns a public item view plus memories into an answer; a judge turns an item and
an answer into a verdict. Adapters know nothing of benchmarks, and benchmarks nothing of
pytest.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from .types import Answer, Item, ItemView, Memory, Message, Trace, Verdict


@runtime_checkable
class MemorySystem(Protocol):
    """A store of sessions, one isolated namespace per context."""

    def reset(self, namespace: str) -> None:
        """Forget everything stored under `namespace` (a no-op when it is empty)."""

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        """Store one session under `namespace`."""

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        """Return at most `k` memories of `namespace`, best first."""

    def dump(self, namespace: str) -> list[Memory] | None:
        """Everything stored under `namespace`, or None when the system cannot list it."""

    def close(self) -> None:
        """Release resources; calling it twice is harmless."""


def keeps_sources(system: object) -> bool:
    """Whether a memory system declares `keeps_sources = True`: each memory it returns names
    the messages it was made from (`Memory.sources`). The one place this is read."""
    return getattr(system, "keeps_sources", False) is True


class ResponseModel(Protocol):
    def answer(self, view: ItemView, memories: Sequence[Memory]) -> Answer: ...


class Judge(Protocol):
    def score(self, item: Item, answer: Answer, trace: Trace) -> Verdict: ...
