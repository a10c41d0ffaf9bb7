"""The LLM path of the locomo suite: Mem0's answer prompt and Mem0's J judge prompt.

The responder answers in free text, as in Mem0's evaluation (the message content is the
answer); an empty reply, or one cut at max_tokens, is invalid. A category-5 question's
reply is mapped to an option as the official scripts map it: a reply of one character, or
of three like "(a)", picks option a when it contains "a" ("(a)"), else option b; a longer
reply is kept as it is (lower-cased, as theirs). The J judge must reply exactly
{"label": "CORRECT"} or {"label": "WRONG"}; anything else is invalid judge output.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from pytest_memeval.framework.suite import JudgeOption
from pytest_memeval.llm.calls import Completion
from pytest_memeval.llm.judge import ProtocolPrompt, TemplateJudgePrompt
from pytest_memeval.llm.strict_json import InvalidOutput, read_object
from pytest_memeval.llm.templates import PromptTemplate, load_template
from pytest_memeval.types import Answer, Item, ItemView, Memory, Verdict

ANSWER_TEMPLATE = "locomo_answer"
JUDGE_TEMPLATE = "locomo_judge_j"
LABELS = ("CORRECT", "WRONG")
#: Mem0's J as a judge prompt any suite may name (`--memeval-judge openai:MODEL@mem0-j`)
MEM0_J = "mem0-j"
MEM0_J_OPTION = JudgeOption(
    "Mem0's J, the Mem0 paper's LLM judge: a JSON label CORRECT or WRONG, generous on wording", model="gpt-4o-mini"
)


def memories_block(memories: Sequence[Memory]) -> str:
    """The retrieved texts as Mem0's search step renders its memories: a JSON list, indent 4."""
    return json.dumps([m.text for m in memories], indent=4)


def option_answer(reply: str, options: Sequence[str]) -> str:
    """A category-5 reply as the official scripts read it."""
    text = reply.strip().lower()
    if len(text) == 1:
        return options[0] if "a" in text else options[1]
    if len(text) == 3:
        return options[0] if "(a)" in text else options[1]
    return text


class LocomoPrompt:
    """A `ResponsePrompt`: Mem0's answer prompt; the reply's text is the answer."""

    def __init__(self, template: PromptTemplate | None = None) -> None:
        self.template = template or load_template(ANSWER_TEMPLATE)

    def messages(self, view: ItemView, memories: Sequence[Memory]) -> list[dict[str, str]]:
        return self.template.render({"memories": memories_block(memories), "question": view.question})

    def parse(self, completion: Completion, view: ItemView) -> Answer:
        raw = completion.content or ""
        if completion.truncated:
            return Answer(None, valid=False, raw=raw, detail={"invalid": "output cut at max_tokens"})
        if not raw.strip():
            return Answer(None, valid=False, raw=raw, detail={"invalid": "empty output"})
        options = view.extra.get("options")
        return Answer(option_answer(raw, options) if options else raw.strip(), raw=raw)


def read_label(text: str) -> Verdict:
    label = read_object(text, {"label"})["label"]
    if label not in LABELS:
        raise InvalidOutput(f"label {label!r} is not CORRECT or WRONG")
    correct = label == "CORRECT"
    return Verdict(correct=correct, score=1.0 if correct else 0.0, detail={"label": label})


def j_values(item: Item, answer: Answer) -> dict[str, str]:
    """The judge's placeholders: the public question, the gold as text, the answer."""
    return {"question": item.view.question, "gold_answer": str(item.gold), "generated_answer": answer.label or ""}


def j_prompt(template: PromptTemplate | None = None) -> TemplateJudgePrompt:
    return TemplateJudgePrompt(template or load_template(JUDGE_TEMPLATE), j_values, read_label)


def j_protocol() -> ProtocolPrompt:
    """Mem0's J with the call settings of Mem0's evaluation (temperature 0)."""
    return ProtocolPrompt(j_prompt(), {"temperature": 0.0})
