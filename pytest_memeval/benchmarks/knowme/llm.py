"""The LLM path of the knowme suite: the response prompt and the rubric judge prompts.

The responder must return exactly {"answer": <string>} (a list of strings is joined the
way the question's form writes lists). "ABSTAIN" is the abstention token. Anything else
is an invalid answer that keeps the raw text; nothing is coerced.
"""

from __future__ import annotations

from typing import Any, Sequence

from ...models.calls import Completion
from ...models.judge import TemplateJudgePrompt, cut, parse_score
from ...models.strict_json import InvalidOutput, read_object
from ...models.multisource import memory_document
from ...models.templates import PromptTemplate, load_template
from ...types import Answer, Item, ItemView, Memory, Verdict
from .tasks import ABSTAIN, ANSWER_FORMATS

ANSWER_TEMPLATE = "knowme_answer"
INSIGHT_TEMPLATE = "knowme_judge_insight"
VALUE_TEMPLATE = "knowme_judge_value"
#: how much of an answer a judge reads
JUDGE_CHARS = 2000
FAMILIES = {
    "T6": "mind-body interaction: how the narrator's outward behaviour relates to an inner state it hides or expresses",
    "T7": "a lasting principle of the narrator: the motive behind choices, and where it comes from",
}
_JOIN = {"extract": "; ", "order": " > ", "rank": " > "}


class KnowmePrompt:
    """A `ResponsePrompt`: messages from the public view and memories, an Answer from the reply."""

    def __init__(self, template: PromptTemplate | None = None) -> None:
        self.template = template or load_template(ANSWER_TEMPLATE)

    def messages(self, view: ItemView, memories: Sequence[Memory]) -> list[dict[str, str]]:
        return self.template.render({
            "question": view.question,
            "answer_format": str(view.extra.get("answer_format") or ANSWER_FORMATS["open"]),
            "memories": memory_document(memories),
        })

    def schema(self, view: ItemView) -> dict[str, Any] | None:
        return self.template.schema()

    def parse(self, completion: Completion, view: ItemView) -> Answer:
        answer = parse_answer(completion.content, view.task)
        if not answer.valid and completion.truncated:
            return Answer(None, valid=False, raw=answer.raw, detail={"invalid": f"output cut at max_tokens ({answer.detail['invalid']})"})
        return answer


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


def insight_judge_prompt() -> TemplateJudgePrompt:
    """T6/T7 (and released prose golds of those tasks) on the 0-5 insight rubric."""
    return TemplateJudgePrompt(
        load_template(INSIGHT_TEMPLATE),
        lambda item, answer: {
            "family": FAMILIES.get(item.strata.get("task", ""), FAMILIES["T7"]),
            **_values(item, answer),
        },
        lambda text: parse_score(text, low=0, high=5),
    )


def value_judge_prompt() -> TemplateJudgePrompt:
    """Released T3/T5 prose golds on the 0/3/5 bands."""
    return TemplateJudgePrompt(load_template(VALUE_TEMPLATE), _values, _parse_band)


def _values(item: Item, answer: Answer) -> dict[str, str]:
    return {"question": item.view.question, "reference": str(item.gold["reference"]), "answer": cut(answer.label or "", JUDGE_CHARS)}


def _parse_band(text: str) -> Verdict:
    verdict = parse_score(text, low=0, high=5)
    if verdict.score not in (0.0, 3.0, 5.0):
        raise InvalidOutput(f"score {verdict.score:g} is not one of 0, 3, 5")
    return verdict
