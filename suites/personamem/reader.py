"""The offline reader: a deterministic multiple-choice baseline over the retrieved memories.

It is not a language model and reads no gold: it picks the option whose distinguishing
content words (those not shared by every option) occur most, as a share of them, in the
retrieved memories and the ongoing conversation the view carries. A tie at the top, or no
word found, abstains, which the official rule scores as wrong. It cannot tell an old
preference from a new one, so it is a floor for the memory system's retrieval, not the
benchmark's number: PersonaMem's numbers come from a language model (the LLM path).

A memory it reads is one with PersonaMem's own wording in it: a speaker label ("User:",
"Assistant:", "Therapist") or the persona's system message. Memories came back and none
was such (a system that rewrote what it stored): the answer is marked unreadable.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pytest_memeval.framework.memory_text import message_text, stored_text
from pytest_memeval.framework.unreadable import marked
from pytest_memeval.types import Answer, ItemView, Memory

from ..knowme.scoring import content_words
from .released import PERSONA_PREFIX

_OWN_WORDING = re.compile(r"\b(?:User|Assistant|Therapist)\b[^:\n]{0,20}:|" + re.escape(PERSONA_PREFIX))
_OPTION_LETTER = re.compile(r"^\s*\(([a-z])\)\s*")


def option_text(option: str) -> str:
    """An option without its "(x) " label."""
    return _OPTION_LETTER.sub("", option, count=1)


def letter_of(index: int) -> str:
    return chr(ord("a") + index)


def option_scores(options: Sequence[str], texts: Sequence[str]) -> list[float]:
    """Each option's share of its distinguishing content words found in `texts`."""
    words = [set(content_words(option_text(o))) for o in options]
    shared = set.intersection(*words) if words else set()
    seen = set(content_words("\n".join(texts)))
    scores = []
    for own in words:
        distinct = own - shared
        scores.append(len(distinct & seen) / len(distinct) if distinct else 0.0)
    return scores


class PersonaMemReader:
    """A `ResponseModel`: the option the memories support best, as the reply "<final_answer>(x)"."""

    def answer(self, view: ItemView, memories: Sequence[Memory]) -> Answer:
        options = list(view.extra.get("options", ()))
        conversation = [content for _, content in view.extra.get("conversation", ())]
        recognised = sum(1 for m in memories if _OWN_WORDING.search(stored_text(m)))
        scores = option_scores(options, [message_text(m) for m in memories] + conversation)
        detail = {"scores": {f"({letter_of(i)})": round(s, 4) for i, s in enumerate(scores)}}
        best = max(scores, default=0.0)
        if best == 0.0 or scores.count(best) > 1:
            return marked(Answer(None, abstained=True, raw="", detail=detail), memories, recognised)
        label = f"({letter_of(scores.index(best))})"
        return marked(Answer(label, raw=f"<final_answer>{label}", detail=detail), memories, recognised)
