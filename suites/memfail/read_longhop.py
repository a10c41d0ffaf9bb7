"""The offline reader for Long-Hop: follow the chain from the question's head anchor.

Every retrieved sentence that names two known anchors is an edge from cause to effect
("I tend to B right after I A" names the effect first). From the head the reader follows
edges while it can; the option naming where it stops is the answer. A chain broken by a
missing memory stops early, at an anchor no option names, and the reader does not guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from pytest_memeval.types import Answer

from .longhop_data import ANCHORS, EFFECT_FIRST
from .phrases import PRONOUNS, Person, render
from .text import contains, normalize, sentences, third_person


@lru_cache(maxsize=1)
def _forms_by_first_word() -> dict[str, tuple[tuple[tuple[str, ...], str], ...]]:
    """Every way an anchor is written (base or third person, any possessive), as word tuples,
    indexed by their first word."""
    pairs = set()
    for anchor in ANCHORS:
        bases = [anchor.format(pos="my", refl="myself")] + [render(anchor, Person("x", p)) for p in PRONOUNS]
        for base in bases:
            for form in (base, third_person(base)):
                pairs.add((tuple(normalize(form).split()), anchor))
    index: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for words, anchor in sorted(pairs, key=lambda pair: (-len(pair[0]), pair)):
        index.setdefault(words[0], []).append((words, anchor))
    return {first: tuple(forms) for first, forms in index.items()}


#: sentences up to this long are remembered (at most 65,536 of them: 32 M characters);
#: a memory system may return megabytes in one sentence, which is read but not kept
CACHED_SENTENCE_CHARS = 512


def anchors_in(normalized: str) -> tuple[str, ...]:
    """Known anchors in a normalised sentence, in the order they appear."""
    return _cached_anchors(normalized) if len(normalized) <= CACHED_SENTENCE_CHARS else _anchors(normalized)


def _anchors(normalized: str) -> tuple[str, ...]:
    words = normalized.split()
    index = _forms_by_first_word()
    found: list[str] = []
    for position, word in enumerate(words):
        for form, anchor in index.get(word, ()):
            if tuple(words[position : position + len(form)]) == form and anchor not in found:
                found.append(anchor)
                break
    return tuple(found)


_cached_anchors = lru_cache(maxsize=65536)(_anchors)


def read(question: str, options: Sequence[str], memories: Sequence[str]) -> Answer:
    heads = anchors_in(normalize(question))
    if len(heads) != 1:
        return Answer(None, abstained=True, detail={"unknown": "the question names no single known anchor"})
    edges: dict[str, str] = {}
    for text in memories:
        for sentence in sentences(text):
            said = normalize(sentence)
            found = anchors_in(said)
            if len(found) != 2:
                continue
            cause, effect = reversed(found) if any(contains(said, cue) for cue in EFFECT_FIRST) else found
            edges.setdefault(cause, effect)
    current, seen = heads[0], {heads[0]}
    while current in edges and edges[current] not in seen:
        current = edges[current]
        seen.add(current)
    detail = {"hops_followed": len(seen) - 1}
    for option in options:
        if anchors_in(normalize(option)) == (current,) and current != heads[0]:
            return Answer(option, detail=detail)
    return Answer(None, abstained=True, detail={**detail, "unknown": "the chain stops at an anchor no option names"})
