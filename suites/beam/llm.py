"""The LLM path of the beam suite: the official answer, judge and alignment prompts, as sent.

Reading (`--memeval-responder=openai:MODEL`): answer_generation_for_rag, the official RAG
baselines' prompt, its context the retrieved memories' texts one after another (a blank
line between two; the official code concatenates its retrieved chunks), filled with
str.replace, context first, as long_term_memory_methods.py does. The reply is free text.

Judging (`--memeval-judge=default`: gpt-4.1-mini, temperature 0, as src/llm.py builds it):
unified_llm_judge_base_prompt once per rubric item, filled as compute_metrics.py fills it
(str.replace of <rubric_item>, then <llm_response>; <question> left as it is under the
official scoring, filled with the question under the corrected one), sent as one user
message; event ordering also asks llm_equivalence (a system and a user message) of each
(rubric item, response line) pair it tries. The prompts' texts are byte for byte the
authors' (prompts/beam_*.toml; tests pin their sha256).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from pytest_memeval.framework.memory_text import stored_text
from pytest_memeval.framework.suite import JudgeOption
from pytest_memeval.llm.calls import Completion
from pytest_memeval.llm.judge import ProtocolPrompt
from pytest_memeval.llm.strict_json import InvalidOutput
from pytest_memeval.llm.templates import PromptTemplate, load_template
from pytest_memeval.types import Answer, Item, ItemView, Memory, Verdict

from .scoring import OFFICIAL, item_score, read_reply

ANSWER_TEMPLATE, JUDGE_TEMPLATE, EQUIVALENCE_TEMPLATE = "beam_answer", "beam_judge", "beam_equivalence"
#: the judge's model and call settings in run_evaluation.py (src/llm.py: ChatOpenAI, temperature 0)
OFFICIAL_JUDGE_MODEL = "gpt-4.1-mini"
JUDGE_CALL: dict[str, float] = {"temperature": 0.0}
BEAM = "beam"
BEAM_OPTION = JudgeOption(
    "BEAM's rubric judge (compute_metrics.py): one call per rubric item, 1, 0.5 or 0 each, averaged; event "
    "ordering aligned by the judge's YES/NO",
    model=OFFICIAL_JUDGE_MODEL,
)
#: what Item.private carries for one judge call: the rubric item, or the pair an alignment compares
RUBRIC_ITEM, PAIR = "rubric_item", "pair"


def official_text(template: PromptTemplate) -> str:
    """A one-message template's text as the source has it: the loader drops the newline it
    begins and ends with."""
    return "\n" + template.render({})[0]["content"] + "\n"


def context_block(memories: Sequence[Memory]) -> str:
    return "\n\n".join(stored_text(m).strip() for m in memories if stored_text(m).strip())


class BeamPrompt:
    """A `ResponsePrompt`: answer_generation_for_rag; the reply's text is the answer."""

    def __init__(self) -> None:
        self.template = load_template(ANSWER_TEMPLATE)
        self.text = official_text(self.template)

    def messages(self, view: ItemView, memories: Sequence[Memory]) -> list[dict[str, str]]:
        content = self.text.replace("<context>", context_block(memories)).replace("<question>", view.question)
        return [{"role": "user", "content": content}]

    def parse(self, completion: Completion, view: ItemView) -> Answer:
        raw = completion.content or ""
        if not raw.strip():
            reason = "empty output" + (" (cut at max_tokens)" if completion.truncated else "")
            return Answer(None, valid=False, raw=raw, detail={"invalid": reason})
        # kept whole, as answer_generation.py keeps it: event ordering reads its lines
        return Answer(raw, raw=raw, detail={"truncated": True} if completion.truncated else {})


class RubricPrompt:
    """A `JudgePrompt` for one rubric item (Item.private[RUBRIC_ITEM]): the judge's points."""

    def __init__(self, scoring: str = OFFICIAL) -> None:
        self.scoring = scoring
        self.template = load_template(JUDGE_TEMPLATE)
        self.text = official_text(self.template)

    def messages(self, item: Item, answer: Answer) -> list[dict[str, str]]:
        content = self.text
        if self.scoring != OFFICIAL:
            content = content.replace("<question>", item.view.question)
        response = answer.label or ""
        content = content.replace("<rubric_item>", item.private[RUBRIC_ITEM]).replace("<llm_response>", response)
        return [{"role": "user", "content": content}]

    def calls(self, item: Item, answer: Answer) -> list[list[dict[str, str]]]:
        """One call per rubric item (`AsksSeveralTimes`, for the estimate before a run)."""
        return [
            self.messages(replace(item, private={**item.private, RUBRIC_ITEM: entry}), answer)
            for entry in item.private["rubric"]
        ]

    def parse(self, completion: Completion, item: Item) -> Verdict:
        text = (completion.content or "").strip()
        if not text:
            raise InvalidOutput("empty output")
        reply = read_reply(text)
        points = item_score(reply, item.view.task, self.scoring)
        reason = reply.get("reason", "") if isinstance(reply, dict) else ""
        return Verdict(correct=None, score=points, reason=str(reason)[:500], detail={"reply_score": reply["score"]})


class EquivalencePrompt:
    """A `JudgePrompt` for one alignment pair (Item.private[PAIR]: rubric item, response
    line): the same event when "yes" is in the lower-cased reply, as llm_equivalence reads it
    (an empty reply is "no")."""

    def __init__(self) -> None:
        self.template = load_template(EQUIVALENCE_TEMPLATE)

    def messages(self, item: Item, answer: Answer) -> list[dict[str, str]]:
        first, second = item.private[PAIR]
        system, user = self.template.render({"first": first, "second": second})
        return [{"role": "system", "content": "\n" + system["content"]}, user]

    def parse(self, completion: Completion, item: Item) -> Verdict:
        text = completion.content or ""
        same = "yes" in text.lower()
        return Verdict(correct=same, score=float(same), reason=text.strip()[:200])


def rubric_protocol(scoring: str) -> ProtocolPrompt:
    return ProtocolPrompt(RubricPrompt(scoring), JUDGE_CALL)


def equivalence_protocol() -> ProtocolPrompt:
    return ProtocolPrompt(EquivalencePrompt(), JUDGE_CALL)
