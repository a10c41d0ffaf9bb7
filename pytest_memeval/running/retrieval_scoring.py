"""One item's retrieval scored against its gold evidence, on the worker (docs/statistics.md,
"Retrieval metrics").

A memory maps to the evidence messages it was made from: through its provenance
(`Memory.sources`, the message ids) when its system declares `keeps_sources` and the memory
names some; otherwise through the text-overlap rule (`text_covers`). Only the counts and
scores leave this module (`RetrievalScore`); which ids were gold does not.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from ..framework.memory_text import message_text
from ..results.retrieval import RetrievalScore
from ..types import Evidence, Memory, Message

#: a word of the text-overlap rule: letters or digits, at least this many characters
MIN_WORD_CHARS = 3
#: the share of an evidence message's words that a memory must hold to map to it
TEXT_OVERLAP = 0.5

_WORD = re.compile(r"\w+")


def words(text: str) -> frozenset[str]:
    """The distinct words of `text` that the text-overlap rule compares, casefolded."""
    return frozenset(w for w in _WORD.findall(text.casefold()) if len(w) >= MIN_WORD_CHARS)


def text_covers(memory_words: frozenset[str], message: Message) -> bool:
    """The text-overlap rule: a memory maps to an evidence message when it holds at least
    TEXT_OVERLAP of the message's distinct words of MIN_WORD_CHARS or more characters. A
    message without such words ("Ok.") maps to no memory by its text."""
    wanted = words(message.content)
    if not wanted:
        return False
    return len(wanted & memory_words) >= TEXT_OVERLAP * len(wanted)


def score_retrieval(evidence: Evidence, memories: Sequence[Memory], k: int, keeps_sources: bool) -> RetrievalScore:
    """Recall, NDCG and reciprocal rank of `memories` (best first) against `evidence`.

    NDCG gives a memory gain 1 when it maps to an evidence message that no memory above it
    mapped to (a second chunk of one message earns nothing), discounted by log2(rank + 1),
    over the ideal of one new evidence message per rank down to min(evidence, depth), where
    the depth is k or, for a system that returns more (the `context` ceiling), what it returned.
    """
    ids = evidence.ids
    covered: set[str] = set()
    dcg, reciprocal_rank, by_sources = 0.0, 0.0, 0
    for rank, memory in enumerate(memories, start=1):
        if keeps_sources and memory.sources:
            by_sources += 1
            # most memories map to nothing: `context` returns a whole context for each item
            if ids.isdisjoint(memory.sources):
                continue
            maps_to = ids.intersection(memory.sources)
        else:
            held = words(message_text(memory))
            maps_to = frozenset(m.id for m in evidence.messages if m.id and text_covers(held, m))
            if not maps_to:
                continue
        if not reciprocal_rank:
            reciprocal_rank = 1.0 / rank
        if not maps_to <= covered:
            dcg += 1.0 / math.log2(rank + 1)
            covered |= maps_to
    depth = max(k, len(memories))
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(ids), depth) + 1))
    return RetrievalScore(
        evidence=len(ids),
        found=len(covered),
        ndcg=dcg / ideal,
        reciprocal_rank=reciprocal_rank,
        memories=len(memories),
        by_sources=by_sources,
    )
