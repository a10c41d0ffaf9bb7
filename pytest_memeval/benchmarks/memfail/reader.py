"""The suite's offline, deterministic response model.

It answers from the public view (the task names the kind of question; the question and,
for Long-Hop, the options) and the texts of the retrieved memories, nothing else: the same
view and memories give the same answer whichever item they came from.
"""

from __future__ import annotations

from typing import Sequence

from ...types import Answer, ItemView, Memory
from . import read_conditional, read_longhop, read_persona
from .read_lists import read_coexisting, read_update


class MemfailReader:
    def answer(self, view: ItemView, memories: Sequence[Memory]) -> Answer:
        texts = [m.text for m in memories if m.text.strip()]
        task = view.task
        if task == "conditional":
            return read_conditional.read(view.question, texts)
        if task == "coexisting":
            return read_coexisting(view.question, texts)
        if task == "persona":
            return read_persona.read(view.question, texts)
        if task == "longhop":
            return read_longhop.read(view.question, view.answer_space, texts)
        if task == "update":
            return read_update(view.question, texts)
        return Answer(None, valid=False, raw="", detail={"invalid": f"memfail reader: unknown task {task!r}"})


#: why the offline reader answers no released question
CANNOT_READ_RELEASE = ("memfail reader: the released data is written by an LLM in words the offline reader does not "
                       "know, so it cannot read it; answer with --memeval-responder=openai:MODEL")


class ReleaseReader:
    """The offline reader of a run on the released data: it says that it cannot read it, so
    every answer is invalid (counted, never scored) instead of a guess."""

    def answer(self, view: ItemView, memories: Sequence[Memory]) -> Answer:
        return Answer(None, valid=False, raw="", detail={"invalid": CANNOT_READ_RELEASE})
