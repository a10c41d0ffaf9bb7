"""The LLM path: the response prompt, the paper's 1-5 judge prompt and its panel.

The response model gets the question and the condition's context block (documents of the
view, then the retrieved memories) and answers in free text; an empty reply is invalid.
Each judge of the panel gets the verbatim held-out passage and the response cut to 1,500
characters, sent as the authors' judge scripts send it (`JUDGE_CALL`: max_tokens 8,
temperature 0, no answer schema), and must reply with a digit; the first digit is the
score, and a reply with none (or an out-of-range first digit) is recorded as that judge's
parse failure. `behavior.judge_call=schema` constrains the reply to a digit by a JSON schema
instead (the run's max_tokens, temperature 0), for judge models that cannot follow the
bare prompt: not the authors' call, so it is a setting, and part of the fingerprint. The
item's score is the mean of the judges that gave one (the summary aggregates per judge,
questions -> judges -> subjects); with no readable score at all the item is an error.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Sequence
from typing import Any

from pytest_memeval.errors import ConfigError
from pytest_memeval.llm.calls import Completion
from pytest_memeval.llm.judge import InvalidOutput, JudgeFailure, JudgeOutputError, JudgePanel, TemplateJudgePrompt, cut
from pytest_memeval.llm.templates import PromptTemplate, load_template
from pytest_memeval.types import Answer, Item, ItemView, Memory, Trace, Verdict

from .evidence import normalize
from .judge import ABSTENTION, CUT, RUBRIC, passes, retrieved_ids

RESPONSE_TEMPLATE = "behavior_response"
JUDGE_TEMPLATE = "behavior_judge"
JUDGE_LABEL = "llm panel"
#: the judge call of the authors' scripts (scripts/judge_hamerton_5judge.py `call_openai` and
#: `call_anthropic`, run_global_subjects.py `judge_haiku`): 8 tokens at temperature 0, free text
JUDGE_CALL: dict[str, float | int] = {"max_tokens": 8, "temperature": 0.0}
#: how the judge is called (--memeval-suite-option behavior.judge_call), the default first
JUDGE_CALLS = {
    "authors": "the authors' call: max_tokens 8, temperature 0, free text, its first digit read",
    "schema": "the reply constrained to a digit 1-5 by a JSON schema, with the run's max_tokens and temperature 0, "
    "for judge models that cannot follow the bare prompt (small local ones); not the paper's call",
}
#: the template's schema variant that `schema` sends
DIGIT_SCHEMA = "digit"
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


def judge_call_setting(raw: str | None) -> str:
    """--memeval-suite-option behavior.judge_call (None: the default, the authors' call)."""
    call = "authors" if raw is None else raw
    if call not in JUDGE_CALLS:
        raise ConfigError(f"--memeval-suite-option behavior.judge_call={call}: one of {', '.join(JUDGE_CALLS)}")
    return call


class DigitJudgePrompt(TemplateJudgePrompt):
    """The judge prompt whose reply a JSON schema constrains to a digit (judge_call=schema)."""

    def schema(self, item: Item) -> dict[str, Any] | None:
        return self.template.schema(variant=DIGIT_SCHEMA)


def judge_prompt(template: PromptTemplate | None = None, call: str = "authors") -> TemplateJudgePrompt:
    kind = DigitJudgePrompt if call == "schema" else TemplateJudgePrompt
    return kind(template or load_template(JUDGE_TEMPLATE), _judge_values, parse_digit)


def _judge_values(item: Item, answer: Answer) -> dict[str, str]:
    return {"held_out": str(item.gold), "response": cut(answer.label or answer.raw, CUT)}


class PanelJudge:
    """A `Judge` over a panel of LLM judges (one model is a panel of one)."""

    def __init__(self, panel: JudgePanel) -> None:
        self.panel = panel

    @classmethod
    def build(cls, panel_factory: Callable[..., JudgePanel], call: str = "authors") -> PanelJudge:
        """`call`: how each judge is called (JUDGE_CALLS)."""
        settings = JUDGE_CALL if call == "authors" else {"temperature": 0.0}
        return cls(panel_factory(judge_prompt(call=call), **settings))

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
