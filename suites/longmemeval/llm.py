"""The LLM path of the longmemeval suite: the paper's reading prompt and the official judge.

Reading (`--memeval-responder=openai:MODEL`): the step-by-step template of the paper's
default reading method (prompts/longmemeval_answer.toml says where it comes from), its
history the retrieved memories laid out as run_generation.py lays out retrieved sessions:
sorted by date, one "### Session i" block each with its date and its turn as JSON. A memory
that does not carry the suite's date stamp (a memory system that rewrites what it stores)
keeps its text as is, after the dated ones. The reply is free text; the judge reads all of it.

Judging (`--memeval-judge=openai:gpt-4o-2024-08-06`): evaluate_qa.py's prompt for the
question's type (abstention questions have their own), at temperature 0 with max_tokens 10;
correct when the reply contains "yes". Each prompt is an ordinary judge prompt, so a panel
of several models uses it like any other.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from pytest_memeval.framework.suite import JudgeOption
from pytest_memeval.llm.calls import Completion
from pytest_memeval.llm.judge import ProtocolPrompt, TemplateJudgePrompt
from pytest_memeval.llm.strict_json import InvalidOutput
from pytest_memeval.llm.templates import PromptTemplate, load_template
from pytest_memeval.types import Answer, Item, ItemView, Memory, Verdict

from .catalog import split_dated

ANSWER_TEMPLATE = "longmemeval_answer"
#: evaluate_qa.py's prompts: one for three types, one each for the others and for abstention
JUDGE_TEMPLATES = {
    "standard": "longmemeval_judge_standard",
    "temporal-reasoning": "longmemeval_judge_temporal",
    "knowledge-update": "longmemeval_judge_knowledge_update",
    "single-session-preference": "longmemeval_judge_preference",
    "abstention": "longmemeval_judge_abstention",
}
#: the official judge's model and call settings (evaluate_qa.py, print_qa_metrics.py)
OFFICIAL_JUDGE_MODEL = "gpt-4o-2024-08-06"
JUDGE_CALL: dict[str, float | int] = {"temperature": 0.0, "max_tokens": 10}
#: the official judge as a judge prompt any suite may name (`--memeval-judge openai:MODEL@longmemeval`)
LONGMEMEVAL = "longmemeval"
LONGMEMEVAL_OPTION = JudgeOption(
    "LongMemEval's judge (evaluate_qa.py): its prompt for the question's type, correct when the reply says "
    "yes; strict on wording (other suites' questions take its standard prompt)",
    model=OFFICIAL_JUDGE_MODEL,
)
#: the official reading setup's generation length with step-by-step reading (run_generation.py)
READING_MAX_TOKENS = 800


def judge_prompt_key(item: Item) -> str:
    """Which official prompt grades the item."""
    if item.private.get("abstention"):
        return "abstention"
    task = item.view.task
    return task if task in JUDGE_TEMPLATES else "standard"


def history(memories: Sequence[Memory]) -> str:
    """The retrieved memories as run_generation.py writes retrieved sessions (JSON format)."""
    dated: list[tuple[str, str]] = []
    plain: list[str] = []
    for memory in memories:
        parts = split_dated(memory.text.strip())
        if parts is None:
            plain.append(memory.text.strip())
        else:
            date, role, content = parts
            dated.append((date, json.dumps([{"role": role, "content": content.strip()}])))
    dated.sort(key=lambda entry: entry[0])  # the paper sorts retrieved sessions by their date strings
    blocks: list[tuple[str | None, str]] = [*dated, *((None, text) for text in plain if text)]
    out = ""
    for number, (day, text) in enumerate(blocks, start=1):
        dated_line = f"Session Date: {day}\n" if day is not None else ""
        out += f"\n### Session {number}:\n{dated_line}Session Content:\n\n{text}\n"
    return out


class LongMemEvalPrompt:
    """A `ResponsePrompt`: the paper's reading prompt; any non-empty reply is the answer."""

    def __init__(self, template: PromptTemplate | None = None) -> None:
        self.template = template or load_template(ANSWER_TEMPLATE)

    def messages(self, view: ItemView, memories: Sequence[Memory]) -> list[dict[str, str]]:
        return self.template.render(
            {
                "history": history(memories),
                "question_date": str(view.extra.get("question_date", "")),
                "question": view.question,
            }
        )

    def parse(self, completion: Completion, view: ItemView) -> Answer:
        text = (completion.content or "").strip()
        if not text:
            reason = "empty output" + (" (cut at max_tokens)" if completion.truncated else "")
            return Answer(None, valid=False, raw=completion.content or "", detail={"invalid": reason})
        # a reply cut at max_tokens is still the hypothesis, as run_generation.py keeps it
        return Answer(text, raw=text, detail={"truncated": True} if completion.truncated else {})


def parse_yes(text: str) -> Verdict:
    """evaluate_qa.py's rule: correct when "yes" is in the lower-cased reply."""
    reply = text.strip()
    if not reply:
        raise InvalidOutput("empty output")  # evaluate_qa.py would count it "no"; here it is an error
    correct = "yes" in reply.lower()
    return Verdict(correct=correct, score=1.0 if correct else 0.0, reason=reply[:200], detail={"reply": reply})


def judge_values(item: Item, answer: Answer) -> dict[str, str]:
    # str() of the released answer: what evaluate_qa.py's str.format writes for a number
    return {"question": item.view.question, "answer": str(item.gold), "response": answer.label or ""}


def judge_prompt(key: str) -> TemplateJudgePrompt:
    """One official prompt (a key of JUDGE_TEMPLATES), an ordinary judge prompt."""
    return TemplateJudgePrompt(load_template(JUDGE_TEMPLATES[key]), judge_values, parse_yes)


def judge_prompts() -> dict[str, TemplateJudgePrompt]:
    """The official prompts, one ordinary judge prompt each (a panel can use any of them)."""
    return {key: judge_prompt(key) for key in JUDGE_TEMPLATES}


def official_protocol(key: str) -> ProtocolPrompt:
    """An official prompt with the official call settings."""
    return ProtocolPrompt(judge_prompt(key), JUDGE_CALL)
