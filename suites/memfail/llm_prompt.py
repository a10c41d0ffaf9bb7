"""The prompt an LLM responder answers memfail questions with (paper D.2), and its strict parser.

Two templates: `memfail_answer` (the default, "paper") is the paper's graded turn word for
word with an explicit JSON answer format; `memfail_answer_guided` ("guided", ours, chosen
with --memeval-suite-option memfail.prompt=guided) adds our abstention instructions.
Conditional-Facts wants {"answer": "yes"|"no", "memories_used": "..."} ("unknown" too with
the guided prompt); Long-Hop {"selected_choice": "A".."E"} (the paper's MCQ wrapper), mapped
back to the option's text; the other datasets {"answer": "<text>", "memories_used": "..."}.
Anything else (prose, fences, a missing or extra key, a letter out of range) is an invalid
answer that keeps the raw text: it is never scored.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from pytest_memeval.errors import ConfigError
from pytest_memeval.llm.calls import Completion
from pytest_memeval.llm.strict_json import InvalidOutput, cut_off, read_object
from pytest_memeval.llm.templates import PromptTemplate, load_template, prompts_dir
from pytest_memeval.types import Answer, ItemView, Memory

from .judge import ABSTENTION_CUES
from .text import normalize

#: --memeval-suite-option memfail.prompt=<variant> -> template
TEMPLATES = {"paper": "memfail_answer", "guided": "memfail_answer_guided"}
DEFAULT_VARIANT = "paper"
LETTERS = "ABCDE"
ANSWER_KEYS = frozenset({"answer", "memories_used"})


def prompt_setting(raw: str | None) -> str:
    """--memeval-suite-option memfail.prompt (None: the default variant)."""
    return prompt_variant(DEFAULT_VARIANT if raw is None else raw)


def prompt_variant(value: str) -> str:
    if value not in TEMPLATES:
        raise ConfigError(f"memfail.prompt: {value!r} is not one of {', '.join(TEMPLATES)}")
    return value


@cache
def template_tables(name: str) -> Mapping[str, Any]:
    """The extra tables of a bundled template file (e.g. [formats], [criteria])."""
    return tomllib.loads((prompts_dir() / f"{name}.toml").read_text(encoding="utf-8"))


class MemfailPrompt:
    def __init__(self, variant: str = DEFAULT_VARIANT, template: PromptTemplate | None = None) -> None:
        name = TEMPLATES[prompt_variant(variant)]
        self.variant = variant
        self.template = template or load_template(name)
        self.formats: Mapping[str, str] = template_tables(name)["formats"]

    def messages(self, view: ItemView, memories: Sequence[Memory]) -> list[dict[str, str]]:
        question = view.question
        if view.task == "longhop":
            options = "\n".join(f"{LETTERS[i]}. {option}" for i, option in enumerate(view.answer_space))
            question += f"\n\nOptions:\n{options}"
        # a graded question opens its own conversation (§5.1): its history is empty
        values = {
            "history": "",
            "memories": memory_list(memories),
            "question": f"{question}\n\n{self.formats[view.task]}",
        }
        return self.template.render(values)

    def schema(self, view: ItemView) -> dict[str, Any] | None:
        """The [schemas.<format>] of the item's answer format (Long-Hop: its option letters)."""
        letters = list(LETTERS[: len(view.answer_space)])
        return self.template.schema({"letters": letters}, variant=view.task)

    def parse(self, completion: Completion, view: ItemView) -> Answer:
        answer = parse_answer(completion.content, view, allow_unknown=self.variant == "guided")
        return cut_off(answer, completion.truncated)


def memory_list(memories: Sequence[Memory]) -> str:
    return "\n".join(f"- {m.text.strip()}" for m in memories if m.text.strip())


def parse_answer(text: str | None, view: ItemView, *, allow_unknown: bool = False) -> Answer:
    raw = text or ""

    def invalid(reason: str) -> Answer:
        return Answer(None, valid=False, raw=raw, detail={"invalid": reason})

    longhop = view.task == "longhop"
    try:
        data = read_object(raw, {"selected_choice"} if longhop else ANSWER_KEYS)
    except InvalidOutput as exc:
        return invalid(str(exc))
    for key, value in data.items():
        if not isinstance(value, str):
            return invalid(f"{key} is not a string")
    if longhop:
        letter = data["selected_choice"].strip().upper()
        if len(letter) != 1 or letter not in LETTERS[: len(view.answer_space)]:
            return invalid(f"selected_choice {data['selected_choice']!r} is not one of the options")
        return Answer(view.answer_space[LETTERS.index(letter)], raw=raw, detail={"choice": letter})
    value = data["answer"]
    if view.task == "conditional":
        labels = ("yes", "no", "unknown") if allow_unknown else ("yes", "no")
        label = value.strip().lower().rstrip(".")
        if label not in labels:
            return invalid(f"answer {value!r} is not {' or '.join(labels)}")
        return Answer(label, abstained=label == "unknown", raw=raw)
    abstained = any(cue in normalize(value) for cue in ABSTENTION_CUES) or not value.strip()
    return Answer(value.strip(), abstained=abstained, raw=raw)
