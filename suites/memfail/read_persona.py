"""The offline reader for Persona-Retrieval: a fact about the named person, or an abstention.

It reads the full name and the kind of fact (the slot) from the question, then looks for
a value of that kind in the retrieved memories that name the person. A person no
retrieved memory names gets "I don't have information about <name>." A memory that names
another person is never used for this one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from pytest_memeval.types import Answer

from .names import FIRST_NAMES, SURNAMES
from .persona_data import ABSTAIN, SLOTS, Slot
from .phrases import pattern
from .text import contains, normalize


@lru_cache(maxsize=1)
def _full_name() -> re.Pattern[str]:
    firsts = "|".join(sorted((re.escape(f) for f, _ in FIRST_NAMES), key=len, reverse=True))
    lasts = "|".join(sorted((re.escape(s) for s in SURNAMES), key=len, reverse=True))
    return re.compile(rf"\b({firsts}) ({lasts})\b")


def _slot(asked: str) -> Slot | None:
    for slot in SLOTS:
        if any(pattern(q.replace("{N}", "{E}")).search(asked) for q in slot.questions):
            return slot
    return None


def read(question: str, memories: Sequence[str]) -> Answer:
    found = _full_name().search(question)
    slot = _slot(normalize(question))
    if found is None or slot is None:
        return Answer(None, abstained=True, detail={"unknown": "the question names no known person and fact"})
    name = found.group(0)
    detail = {"slot": slot.name}
    about = [m for m in memories if contains(normalize(m), name)]
    # slot values are disjoint across slots, so a value names its kind of fact even when the
    # rest of the sentence was cut
    for text in about:
        said = normalize(text)
        values = [v for v in slot.values if contains(said, v)]
        if values:
            return Answer(max(values, key=len), detail={**detail, "source": "memory"})
    why = "no retrieved memory names the person" if not about else "the retrieved memories do not state this fact"
    return Answer(ABSTAIN.format(N=name), abstained=True, detail={**detail, "abstain": why})
