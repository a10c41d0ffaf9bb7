"""The LLM path of the knowme suite: the response prompt (the judge's prompts are in rubric.py).

The responder must return exactly {"answer": <string>} (a list of strings is joined the
way the question's form writes lists). "ABSTAIN" is the abstention token. Anything else
is an invalid answer that keeps the raw text; nothing is coerced.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_memeval.llm.calls import Completion
from pytest_memeval.llm.multisource import memory_document
from pytest_memeval.llm.strict_json import InvalidOutput, cut_off, read_object
from pytest_memeval.llm.templates import PromptTemplate, load_template
from pytest_memeval.types import Answer, ItemView, Memory

from .tasks import ABSTAIN, ANSWER_FORMATS

ANSWER_TEMPLATE = "knowme_answer"
_JOIN = {"extract": "; ", "order": " > ", "rank": " > "}


class KnowmePrompt:
    """A `ResponsePrompt`: messages from the public view and memories, an Answer from the reply."""

    def __init__(self, template: PromptTemplate | None = None) -> None:
        self.template = template or load_template(ANSWER_TEMPLATE)

    def messages(self, view: ItemView, memories: Sequence[Memory]) -> list[dict[str, str]]:
        return self.template.render(
            {
                "question": view.question,
                "answer_format": str(view.extra.get("answer_format") or ANSWER_FORMATS["open"]),
                "memories": memory_document(memories),
            }
        )

    def schema(self, view: ItemView) -> dict[str, Any] | None:
        return self.template.schema()

    def parse(self, completion: Completion, view: ItemView) -> Answer:
        return cut_off(parse_answer(completion.content, view.task), completion.truncated)


def parse_answer(text: str | None, form: str) -> Answer:
    raw = text or ""

    def invalid(reason: str) -> Answer:
        return Answer(None, valid=False, raw=raw, detail={"invalid": reason})

    try:
        value = read_object(raw, {"answer"})["answer"]
    except InvalidOutput as exc:
        return invalid(str(exc))
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        value = _JOIN.get(form, " ").join(v.strip() for v in value)
    if not isinstance(value, str) or not value.strip():
        return invalid("answer is not a non-empty string")
    if value.strip().strip(".").upper() == ABSTAIN:
        return Answer(ABSTAIN, abstained=True, raw=raw)
    return Answer(value.strip(), raw=raw)
