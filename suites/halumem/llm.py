"""The LLM path of the halumem suite: the official answer prompt and the four judge prompts.

The responder answers with PROMPT_MEMZERO (eval/prompts.py), its context Mem0's TEMPLATE_MEM0
("Memories for user NAME:" and the retrieved memories as a JSON list, indent 4), in free text;
an empty reply, or one cut at max_tokens, is invalid. The judges are asked with the prompts of
eval/eval_tools.py at temperature 0 and read as the official parser reads them (scoring.py):
no structured-output schema is sent, since the reply must carry a ```json fence.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from pytest_memeval.config.judge_specs import JudgeOption
from pytest_memeval.llm.calls import Completion
from pytest_memeval.llm.judge import ProtocolPrompt
from pytest_memeval.llm.strict_json import InvalidOutput
from pytest_memeval.llm.templates import PromptTemplate, load_template
from pytest_memeval.types import Answer, Item, ItemView, Memory, Verdict

from .scoring import UnreadableReply, reply_object

ANSWER_TEMPLATE = "halumem_answer"
#: stage -> its judge template
JUDGE_TEMPLATES = {
    "integrity": "halumem_judge_integrity",
    "accuracy": "halumem_judge_accuracy",
    "update": "halumem_judge_update",
    "qa": "halumem_judge_question",
}
#: Mem0's context template in eval_memzero.py, as str.format fills it
TEMPLATE_MEM0 = "Memories for user {user_id}:\n\n    {memories}\n"
HALUMEM = "halumem"
OFFICIAL_JUDGE_MODEL = "gpt-4o"
HALUMEM_OPTION = JudgeOption(
    "HaluMem's judge prompts (eval/eval_tools.py), one per stage, read from their ```json block",
    model=OFFICIAL_JUDGE_MODEL,
)


def mem0_context(user: str, memories: Sequence[Memory]) -> str:
    return TEMPLATE_MEM0.format(user_id=user, memories=json.dumps([m.text for m in memories], indent=4))


class HaluMemPrompt:
    """A `ResponsePrompt`: PROMPT_MEMZERO; the reply's text is the answer."""

    def __init__(self, template: PromptTemplate | None = None) -> None:
        self.template = template or load_template(ANSWER_TEMPLATE)

    def messages(self, view: ItemView, memories: Sequence[Memory]) -> list[dict[str, str]]:
        context = mem0_context(str(view.extra.get("user", "")), memories)
        return self.template.render({"context": context, "question": view.question})

    def parse(self, completion: Completion, view: ItemView) -> Answer:
        raw = completion.content or ""
        if completion.truncated:
            return Answer(None, valid=False, raw=raw, detail={"invalid": "output cut at max_tokens"})
        if not raw.strip():
            return Answer(None, valid=False, raw=raw, detail={"invalid": "empty output"})
        return Answer(raw.strip(), raw=raw)


class ReplyPrompt:
    """A `JudgePrompt` for one stage: the template filled with the fields the judge hands
    over (`Answer.detail["fields"]`); the verdict carries the reply's object, which the
    suite's judge reads by the official rules. A reply without a readable ```json block is
    invalid output."""

    def __init__(self, stage: str) -> None:
        self.template = load_template(JUDGE_TEMPLATES[stage])

    def messages(self, item: Item, answer: Answer) -> list[dict[str, str]]:
        fields: Mapping[str, str] = answer.detail["fields"]
        return self.template.render(fields)

    def parse(self, completion: Completion, item: Item) -> Verdict:
        try:
            reply = reply_object(completion.content)
        except UnreadableReply as exc:
            raise InvalidOutput(str(exc)) from None
        return Verdict(correct=None, detail={"reply": reply})


def judge_protocols() -> dict[str, ProtocolPrompt]:
    """Each stage's prompt with the official call settings (temperature 0)."""
    return {stage: ProtocolPrompt(ReplyPrompt(stage), {"temperature": 0.0}) for stage in JUDGE_TEMPLATES}
