"""A small correct adapter and broken variants of it, to show the conformance kit can fail.

Each broken variant breaks one promise of the protocol; tests/test_conformance.py
checks that the kit fails exactly where it should.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence

from pytest_memeval.types import Memory, Message

_WORD = re.compile(r"\w+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


class ReferenceMemory:
    """Keeps messages per namespace; ranks them by word overlap (Jaccard) with the query."""

    def __init__(self) -> None:
        self._store: dict[str, list[str]] = {}

    def reset(self, namespace: str) -> None:
        self._store.pop(namespace, None)

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        texts = [message.content for message in session]
        self._store.setdefault(namespace, []).extend(text for text in texts if text.strip())

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        asked = _words(query)
        if not asked:
            return []
        scored = []
        for i, text in enumerate(self._store.get(namespace, [])):
            words = _words(text)
            score = len(asked & words) / len(asked | words)
            if score > 0:
                scored.append((-score, i, text))
        return [Memory(text=text, score=-neg, id=str(i)) for neg, i, text in sorted(scored)[:k]]

    def dump(self, namespace: str) -> list[Memory] | None:
        return [Memory(text=text, id=str(i)) for i, text in enumerate(self._store.get(namespace, []))]

    def close(self) -> None:
        pass


class SaysWhoSaidIt(ReferenceMemory):
    """Stores each message as "user said: ...": the suites' offline readers cannot read past it."""

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        said = [Message(m.role, f"{m.role} said: {m.content}") for m in session if m.content.strip()]
        super().ingest(namespace, said)


class ClaimsSourcesItLacks(ReferenceMemory):
    """Declares keeps_sources but names no message on its memories."""

    keeps_sources = True


class SharedNamespaces(ReferenceMemory):
    """Ignores the namespace: everything lands in one store."""

    def reset(self, namespace: str) -> None:
        super().reset("all")

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        super().ingest("all", session)

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        return super().retrieve("all", query, k)

    def dump(self, namespace: str) -> list[Memory] | None:
        return super().dump("all")


class ResetForgetsNothing(ReferenceMemory):
    def reset(self, namespace: str) -> None:
        pass


class IgnoresK(ReferenceMemory):
    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        return super().retrieve(namespace, query, 10_000)


class ScoresAscending(ReferenceMemory):
    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        return list(reversed(super().retrieve(namespace, query, k)))


class SwallowsErrors(ReferenceMemory):
    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        try:
            super().ingest(namespace, session)
        except Exception:
            pass


class AsciiOnly(ReferenceMemory):
    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        clean = [Message(m.role, m.content.encode("ascii", "ignore").decode()) for m in session]
        super().ingest(namespace, clean)


class TruncatesLong(ReferenceMemory):
    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        super().ingest(namespace, [Message(m.role, m.content[:2000]) for m in session])


class EmptyQueryFails(ReferenceMemory):
    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        if not query.strip():
            raise ValueError("empty query")
        return super().retrieve(namespace, query, k)


class DumpInventsIds(ReferenceMemory):
    """dump and retrieve disagree about which id names which text."""

    def dump(self, namespace: str) -> list[Memory] | None:
        stored = super().dump(namespace) or []
        return [Memory(text=m.text, id=f"{len(stored) - 1 - int(m.id or 0)}") for m in stored]


class CloseTwiceFails(ReferenceMemory):
    def __init__(self) -> None:
        super().__init__()
        self._closed = False

    def close(self) -> None:
        if self._closed:
            raise RuntimeError("already closed")
        self._closed = True


class CannotList(ReferenceMemory):
    """Correct, but cannot enumerate a namespace (dump returns None, as the protocol allows)."""

    def dump(self, namespace: str) -> list[Memory] | None:
        return None


class DeclaresItIgnoresK(IgnoresK):
    """Returns everything, and says so, like the `context` ceiling."""

    honours_k = False


class DeduplicatesAcrossNamespaces(ReferenceMemory):
    """Keeps one copy of a text for all namespaces: resetting one namespace drops it for every one."""

    def __init__(self) -> None:
        super().__init__()
        self._owners: dict[str, set[str]] = {}

    def reset(self, namespace: str) -> None:
        for text in self._store.pop(namespace, []):
            for owner in self._owners.pop(text, set()) - {namespace}:
                self._store[owner] = [t for t in self._store.get(owner, []) if t != text]

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        for message in session:
            text = message.content
            if text.strip():
                self._owners.setdefault(text, set()).add(namespace)
                if text not in self._store.get(namespace, []):
                    self._store.setdefault(namespace, []).append(text)


class IngestsInTheBackground(ReferenceMemory):
    """Returns from ingest at once and stores the session a moment later, on a thread."""

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        texts = [message.content for message in session]
        timer = threading.Timer(
            0.3, lambda: self._store.setdefault(namespace, []).extend(t for t in texts if t.strip())
        )
        timer.daemon = True
        timer.start()
