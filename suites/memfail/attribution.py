"""Staged attribution of a graded question (paper §5.1): storage -> summary -> retrieval.

For every required fact, piece by piece:
- storage: some stored memory carries the piece's anchor spans;
- summary: some stored memory is an intact copy (anchor and critical spans);
- retrieval: an intact copy is among the retrieved memories (pieces may be spread over
  several memories, as the paper allows for the Hard rule).
A knowledge update that replaces a value is intact without its "that is over" span as long
as nothing outdated survives; once the outdated statement is stored as well, only a copy
that says the old value is over tells the two apart ("failed overwrite" if none is stored).

The question's stage is the earliest failing stage over its facts. When the memory system
cannot list what it holds, storage and summary cannot be told apart from retrieval: a fact
that is not intact in the top-k is then "unknown".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .model import Fact, Piece
from .text import contains_all, normalize

#: in pipeline order; the first failing stage labels the question
MEMORY_STAGES = ("storage", "summary", "retrieval", "unknown")
#: every label a question can get ("unattributed": a wrong answer to a released item that no
#: LLM judge attributed, see judge.py)
STAGES = ("correct", "storage", "summary", "retrieval", "reasoning", "abstention", "unknown", "unattributed")


@dataclass(frozen=True)
class FactCheck:
    label: str
    #: "ok" or one of MEMORY_STAGES
    stage: str
    reason: str = ""


@dataclass(frozen=True)
class Attribution:
    #: "ok" when every fact passed, else the earliest failing stage
    stage: str
    facts: tuple[FactCheck, ...]

    @property
    def reason(self) -> str:
        failing = next((f for f in self.facts if f.stage == self.stage), None)
        return failing.reason if failing is not None else ""


def attribute(facts: Sequence[Fact], retrieved: Sequence[str], stored: Sequence[str] | None) -> Attribution:
    """Check each fact against the retrieved texts and, when known, everything stored."""
    top = [normalize(t) for t in retrieved]
    store = None if stored is None else [normalize(t) for t in stored]
    checks = tuple(_check(fact, top, store) for fact in facts)
    failing = [c.stage for c in checks if c.stage != "ok"]
    stage = min(failing, key=MEMORY_STAGES.index) if failing else "ok"
    return Attribution(stage, checks)


def _check(fact: Fact, top: list[str], store: list[str] | None) -> FactCheck:
    quoted = _quote(fact)
    if store is not None:
        for piece in fact.pieces:
            if not any(contains_all(m, piece.anchor) for m in store):
                return FactCheck(fact.label, "storage", f"{fact.label} is not in the store: {quoted}")
        for piece in fact.pieces:
            if not _intact_in(piece, store):
                if piece.stale:
                    reason = f"failed overwrite: the outdated value survives and no stored copy of the update says it replaced it: {quoted}"
                    return FactCheck(fact.label, "storage", reason)
                missing = ", ".join(
                    repr(s) for s in piece.critical if not any(contains_all(m, (*piece.anchor, s)) for m in store)
                )
                return FactCheck(fact.label, "summary", f"{fact.label} is stored without {missing}: {quoted}")
    for piece in fact.pieces:
        if not _intact_in(piece, top):
            if store is None:
                reason = f"storage unknown (the memory system cannot list its memories), and {fact.label} is not intact in the top-k: {quoted}"
                return FactCheck(fact.label, "unknown", reason)
            return FactCheck(
                fact.label,
                "retrieval",
                f"{fact.label} is stored intact but not retrieved ({len(top)} memories retrieved): {quoted}",
            )
    return FactCheck(fact.label, "ok")


def _intact_in(piece: Piece, memories: list[str]) -> bool:
    needs_critical = not piece.stale or any(_outdated(piece, m) for m in memories)
    spans = (*piece.anchor, *piece.critical) if needs_critical else piece.anchor
    return any(contains_all(m, spans) for m in memories)


def _outdated(piece: Piece, memory: str) -> bool:
    """A memory stating the replaced value and not the new one."""
    return contains_all(memory, piece.stale) and not contains_all(memory, piece.anchor)


def _quote(fact: Fact, limit: int = 160) -> str:
    text = fact.text
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")
