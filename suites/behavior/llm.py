"""The LLM path: the response prompt, the paper's 1-5 judge prompt and its panel.

The response model gets the question and the condition's context block (documents of the
view, then the retrieved memories) and answers in free text; an empty reply is invalid.
Each judge of the panel gets the verbatim held-out passage and the response cut to 1,500
characters and must reply with a digit; the first digit is the score, and a reply with
none (or an out-of-range first digit) is recorded as that judge's parse failure. The
item's score is the mean of the judges that gave one (the summary aggregates per judge,
questions -> judges -> subjects); with no readable score at all the item is an error.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Sequence
from typing import Any

from ...llm.calls import Completion
from ...llm.judge import InvalidOutput, JudgeFailure, JudgeOutputError, JudgePanel, TemplateJudgePrompt, cut
from ...llm.templates import PromptTemplate, load_template
from ...types import Answer, Item, ItemView, Memory, Trace, Verdict
from .evidence import normalize
from .judge import ABSTENTION, CUT, RUBRIC, passes, retrieved_ids

RESPONSE_TEMPLATE = "behavior_response"
JUDGE_TEMPLATE = "behavior_judge"
JUDGE_LABEL = "llm panel"
HEADINGS = {"facts": "Known facts", "corpus": "Autobiography", "spec": "Behavioral specification"}
_DIGIT = re.compile(r"\d")


def context_block(view: ItemView, memories: Sequence[Memory]) -> str:
    """The condition's context: retrieved memories, then the view's documents; "" for none."""
    parts = []
    texts = [m.text.strip() for m in memories if m.text.strip()]
    if texts:
        parts.append("Retrieved memories:\n" + "\n".join(f"- {t}" for t in texts))
    for key, heading in HEADINGS.items():
        if view.extra.get(key):
            parts.append(f"{heading}:\n{str(view.extra[key]).strip()}")
    return "".join(part + "\n\n" for part in parts)


class BehaviorPrompt:
    """The `ResponsePrompt` of the behavior suite."""

    def __init__(self, template: PromptTemplate | None = None) -> None:
        self.template = template or load_template(RESPONSE_TEMPLATE)

    def messages(self, view: ItemView, memories: Sequence[Memory]) -> list[dict[str, str]]:
        return self.template.render({"context": context_block(view, memories), "question": view.question})

    def parse(self, completion: Completion, view: ItemView) -> Answer:
        text = (completion.content or "").strip()
        if not text:
            return Answer(None, valid=False, raw=completion.content or "", detail={"invalid": "empty output"})
        return Answer(text, abstained=ABSTENTION.search(normalize(text)) is not None, raw=text)


def parse_digit(text: str) -> Verdict:
    """The paper's parse: the first digit of the reply, which must be 1..5."""
    match = _DIGIT.search(text)
    if match is None:
        raise InvalidOutput("no digit in the reply")
    score = int(match.group())
    if not 1 <= score <= 5:
        raise InvalidOutput(f"first digit {score} is not in 1..5")
    return Verdict(correct=passes(score), score=float(score), detail={"score": score})


def judge_prompt(template: PromptTemplate | None = None) -> TemplateJudgePrompt:
    return TemplateJudgePrompt(
        template or load_template(JUDGE_TEMPLATE),
        lambda item, answer: {"held_out": str(item.gold), "response": cut(answer.label or answer.raw, CUT)},
        parse_digit,
    )


class PanelJudge:
    """A `Judge` over a panel of LLM judges (one model is a panel of one)."""

    def __init__(self, panel: JudgePanel) -> None:
        self.panel = panel

    @classmethod
    def build(cls, panel_factory: Callable[[TemplateJudgePrompt], JudgePanel]) -> PanelJudge:
        return cls(panel_factory(judge_prompt()))

    def score(self, item: Item, answer: Answer, trace: Trace) -> Verdict:
        results = self.panel.verdicts(item, answer, label=item.id)
        scores: dict[str, float | None] = {}
        failures: dict[str, dict[str, str]] = {}
        for name, result in results.items():
            if isinstance(result, JudgeFailure):
                scores[name] = None
                failures[name] = {"reason": result.reason, "raw": result.raw[:200]}
            else:
                scores[name] = result.score
        valid = [s for s in scores.values() if s is not None]
        if not valid:
            raw = "; ".join(f"{n}: {f['raw'][:60]!r}" for n, f in failures.items())
            raise JudgeOutputError("panel", f"none of {len(results)} judges replied with a digit 1-5", raw, item.id)
        mean = statistics.fmean(valid)
        detail: dict[str, Any] = {"judge": JUDGE_LABEL, "scores": scores, "parse_failures": failures}
        if trace.memories:
            detail["retrieved"] = retrieved_ids(trace.memories)
        reason = "" if passes(mean) else f"panel mean {mean:.2f} (4 = {RUBRIC[4]})"
        return Verdict(correct=passes(mean), score=mean, reason=reason, detail=detail)

    def close(self) -> None:
        self.panel.close()
