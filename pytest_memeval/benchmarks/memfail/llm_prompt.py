"""The prompt an LLM responder answers memfail questions with (paper D.2), and its strict parser.

Conditional-Facts wants {"answer": "yes"|"no"|"unknown"}; Long-Hop {"selected_choice":
"A".."E"} (the paper's MCQ wrapper), mapped back to the option's text; the other datasets
{"answer": "<text>"}. Anything else (prose, fences, a missing or extra key, a letter out
of range) is an invalid answer that keeps the raw text: it is never scored.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from typing import Any, Mapping, Sequence

from ...models.calls import Completion
from ...models.templates import PromptTemplate, load_template, prompts_dir
from ...types import Answer, ItemView, Memory
from ...models.strict_json import InvalidOutput, read_object
from .judge import ABSTENTION_CUES
from .text import normalize

TEMPLATE = "memfail_answer"
LETTERS = "ABCDE"
NO_MEMORIES = "(No memories were retrieved for this question.)"
_FORMAT = {"conditional": "conditional", "coexisting": "list", "update": "list", "persona": "persona", "longhop": "choice"}


@lru_cache(maxsize=None)
def template_tables(name: str) -> Mapping[str, Any]:
    """The extra tables of a bundled template file (e.g. [formats], [criteria])."""
    return tomllib.loads((prompts_dir() / f"{name}.toml").read_text(encoding="utf-8"))


class MemfailPrompt:
    def __init__(self, template: PromptTemplate | None = None) -> None:
        self.template = template or load_template(TEMPLATE)
        self.formats: Mapping[str, str] = template_tables(TEMPLATE)["formats"]

    def messages(self, view: ItemView, memories: Sequence[Memory]) -> list[dict[str, str]]:
        question = view.question
        if view.task == "longhop":
            question += "\n\n" + "\n".join(f"{LETTERS[i]}. {option}" for i, option in enumerate(view.answer_space))
        return self.template.render(
            {"memories": memory_list(memories), "question": question, "format": self.formats[_FORMAT[view.task]]}
        )

    def schema(self, view: ItemView) -> dict[str, Any] | None:
        """The [schemas.<format>] of the item's answer format (Long-Hop: its option letters)."""
        letters = list(LETTERS[: len(view.answer_space)])
        return self.template.schema({"letters": letters}, variant=_FORMAT[view.task])

    def parse(self, completion: Completion, view: ItemView) -> Answer:
        answer = parse_answer(completion.content, view)
        if not answer.valid and completion.truncated:
            return Answer(None, valid=False, raw=answer.raw, detail={"invalid": f"output cut at max_tokens ({answer.detail['invalid']})"})
        return answer


def memory_list(memories: Sequence[Memory]) -> str:
    texts = [m.text.strip() for m in memories if m.text.strip()]
    return "\n".join(f"- {t}" for t in texts) if texts else NO_MEMORIES


def parse_answer(text: str | None, view: ItemView) -> Answer:
    raw = text or ""

    def invalid(reason: str) -> Answer:
        return Answer(None, valid=False, raw=raw, detail={"invalid": reason})

    key = "selected_choice" if view.task == "longhop" else "answer"
    try:
        value = read_object(raw, {key})[key]
    except InvalidOutput as exc:
        return invalid(str(exc))
    if not isinstance(value, str):
        return invalid(f"{key} is not a string")
    if view.task == "longhop":
        letter = value.strip().upper()
        if len(letter) != 1 or letter not in LETTERS[: len(view.answer_space)]:
            return invalid(f"selected_choice {value!r} is not one of the options")
        return Answer(view.answer_space[LETTERS.index(letter)], raw=raw, detail={"choice": letter})
    if view.task == "conditional":
        label = value.strip().lower().rstrip(".")
        if label not in ("yes", "no", "unknown"):
            return invalid(f"answer {value!r} is not yes, no or unknown")
        return Answer(label, abstained=label == "unknown", raw=raw)
    abstained = any(cue in normalize(value) for cue in ABSTENTION_CUES) or not value.strip()
    return Answer(value.strip(), abstained=abstained, raw=raw)
