"""The offline reader of the halumem suite: a floor, not HaluMem's protocol.

HaluMem's answers are free text written by an LLM. This reader answers with the one line of
the retrieved memories that shares the most words with the question (the later line on a
tie), or abstains where no line shares any; the offline judge then reads that line
(judge.py). It recognises the sample's wording of a fact ("my <attribute> is <value>",
sample.py): memories without one line in that wording are unreadable to it
(framework.unreadable), and the run says so. On the generated sample it answers what a plain
store holds; on the release it is a floor.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pytest_memeval.framework.memory_text import message_text
from pytest_memeval.framework.unreadable import marked
from pytest_memeval.types import Answer, ItemView, Memory

from .words import words

#: the sample's wording of a fact about the user
FACT = re.compile(r"\bmy [a-z ]+? is \S", re.IGNORECASE)


class HaluMemReader:
    def answer(self, view: ItemView, memories: Sequence[Memory]) -> Answer:
        name = str(view.extra.get("user", ""))
        asked = words(view.question, name)
        best, best_shared, recognised = "", 0, 0
        for memory in memories:
            for line in message_text(memory).split("\n"):
                shared = len(asked & words(line, name))
                recognised += FACT.search(line) is not None
                if shared and shared >= best_shared:
                    best, best_shared = line.strip(), shared
        answer = Answer(best, raw=best) if best else Answer(None, abstained=True)
        return marked(answer, memories, recognised)
