"""The multisource response prompt: one question and its retrieved memories in, strict JSON out.

The model must return exactly {"answer": <label>, "would_skip": <bool>}. Anything else
(prose, markdown fences, a missing or extra key, a label outside the answer space, a
string "true", output cut at max_tokens) is an invalid Answer that keeps the raw text;
nothing is coerced into a label (paper C.6.3: records that fail validation are tracked
as missing-output errors).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..types import Answer, ItemView, Memory
from .calls import Completion
from .strict_json import InvalidOutput, cut_off, read_object
from .templates import PromptTemplate, load_template

TEMPLATE = "multisource_direct"
KEYS = frozenset({"answer", "would_skip"})
NO_MEMORIES = "(No memories were retrieved for this question.)"


class MultisourcePrompt:
    """Builds the messages for one item and parses the reply (a `ResponsePrompt`)."""

    def __init__(self, template: PromptTemplate | None = None) -> None:
        self.template = template or load_template(TEMPLATE)

    def messages(self, view: ItemView, memories: Sequence[Memory]) -> list[dict[str, str]]:
        return self.template.render(
            {
                "heading": heading(view),
                "question": view.question,
                "labels": labels_block(view),
                "memories": memory_document(memories),
            }
        )

    def schema(self, view: ItemView) -> dict[str, Any] | None:
        """{"answer": one of the item's labels, "would_skip": a boolean}."""
        return self.template.schema({"labels": list(view.answer_space)})

    def parse(self, completion: Completion, view: ItemView) -> Answer:
        answer = parse_answer(completion.content, view.answer_space, allow_abstain=view.allow_abstain)
        return cut_off(answer, completion.truncated)


def heading(view: ItemView) -> str:
    """ "A1 - Sleep Duration Count (Sleep, 30 days)" when the view carries a title, else "A1"."""
    return f"{view.task} - {view.title}" if view.title else view.task


def labels_block(view: ItemView) -> str:
    """One "- label" line per answer option, with the view's gloss when it has one."""
    notes = view.label_notes
    return "\n".join(f"- {label} ({notes[label]})" if notes.get(label) else f"- {label}" for label in view.answer_space)


def memory_document(memories: Sequence[Memory]) -> str:
    texts = [m.text.strip() for m in memories if m.text.strip()]
    return "\n\n".join(texts) if texts else NO_MEMORIES


def parse_answer(text: str | None, answer_space: Sequence[str], *, allow_abstain: bool = True) -> Answer:
    """Strictly parse {"answer": <label>, "would_skip": <bool>}; invalid output keeps `raw`."""
    raw = text or ""

    def invalid(reason: str) -> Answer:
        return Answer(None, valid=False, raw=raw, detail={"invalid": reason})

    try:
        data = read_object(raw, KEYS)
    except InvalidOutput as exc:
        return invalid(str(exc))
    label, skip = data["answer"], data["would_skip"]
    if not isinstance(label, str) or label not in answer_space:
        return invalid(f"answer {label!r} is not in the answer space")
    if not isinstance(skip, bool):
        return invalid(f"would_skip {skip!r} is not a boolean")
    return Answer(label, abstained=skip and allow_abstain, valid=True, raw=raw, detail={"would_skip": skip})
