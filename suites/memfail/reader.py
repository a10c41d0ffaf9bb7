"""The suite's offline, deterministic response model.

It answers from the public view (the task names the kind of question; the question and,
for Long-Hop, the options) and the texts of the retrieved memories, nothing else: the same
view and memories give the same answer whichever item they came from.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

from pytest_memeval.framework.memory_text import stored_texts
from pytest_memeval.framework.unreadable import marked
from pytest_memeval.types import Answer, ItemView, Memory

from . import read_conditional, read_longhop, read_persona
from .coexisting_data import CATEGORIES
from .names import FIRST_NAMES
from .read_lists import read_coexisting, read_update
from .text import contains, normalize


class MemfailReader:
    def answer(self, view: ItemView, memories: Sequence[Memory]) -> Answer:
        texts = [text for text in stored_texts(memories) if text.strip()]
        answer = _read(view, texts)
        recognised = sum(_RECOGNISES.get(view.task, _anything)(normalize(text)) for text in texts)
        return marked(answer, memories, recognised)


def _read(view: ItemView, texts: list[str]) -> Answer:
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


# What the reader of each dataset can recognise in a memory at all, whatever the question:
# a memory that names none of the dataset's people, pets, anchors or preferences is text the
# reader cannot read (a rewriting memory), not a retrieval of the wrong facts.


@lru_cache(maxsize=1)
def _first_names() -> tuple[str, ...]:
    return tuple(normalize(name) for name, _ in FIRST_NAMES)


@lru_cache(maxsize=1)
def _preferences() -> tuple[str, ...]:
    return tuple(normalize(item) for category in CATEGORIES for item in category.items)


def _names_someone(said: str) -> bool:
    return any(contains(said, name) for name in read_conditional._names())


def _names_a_person(said: str) -> bool:
    return any(contains(said, name) for name in _first_names())


def _names_an_anchor(said: str) -> bool:
    return bool(read_longhop.anchors_in(said))


def _names_a_preference(said: str) -> bool:
    return any(contains(said, item) for item in _preferences())


def _anything(said: str) -> bool:
    return bool(said.strip())


_RECOGNISES: dict[str, Callable[[str], bool]] = {
    "conditional": _names_someone,
    "persona": _names_a_person,
    "update": _names_a_person,
    "longhop": _names_an_anchor,
    "coexisting": _names_a_preference,
}


#: why the offline reader answers no released question
CANNOT_READ_RELEASE = (
    "memfail reader: the released data is written by an LLM in words the offline reader does not "
    "know, so it cannot read it; answer with --memeval-responder=openai:MODEL"
)


class ReleaseReader:
    """The offline reader of a run on the released data: it says that it cannot read it, so
    every answer is invalid (counted, never scored) instead of a guess."""

    def answer(self, view: ItemView, memories: Sequence[Memory]) -> Answer:
        return Answer(None, valid=False, raw="", detail={"invalid": CANNOT_READ_RELEASE})
