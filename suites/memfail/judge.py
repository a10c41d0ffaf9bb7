"""The deterministic judge: answer check plus staged attribution, one verdict per question.

A question is correct only when every required fact passes storage, summary and retrieval
and the answer is right (paper §5.1). Otherwise the verdict names the failing stage, in
`Verdict.stage` and at the head of the reason, which is also the failure message:
"retrieval: hop 2 of 3 is stored intact but not retrieved (5 memories retrieved): '...'".
A right answer that no intact retrieved memory supports is still a failure (a guess).

`detail["attribution"]` says how the stages were judged: "critical_spans" (the generator's
spans, this judge), "llm_judge" (the paper's staged LLM judge), "none_needed" (the question
needs no memory: a misleading Persona question), or "unavailable": items of the released
data carry no spans, so without an LLM judge their failures stay "unattributed" and only
the answer is checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_memeval.errors import ResponseError
from pytest_memeval.framework.memory_text import stored_texts
from pytest_memeval.types import Answer, Item, Trace, Verdict

from .attribution import Attribution, attribute
from .model import Fact
from .text import contains, normalize

#: phrases that make a free-text answer an abstention (the reader abstains with a flag)
ABSTENTION_CUES = (
    "don t have information",
    "no information about",
    "don t have any information",
    "don t know",
    "don t have any memories",
    "no memories about",
    "no memories of",
)
UNAVAILABLE = (
    "failure not attributed: released items carry no critical spans, so storage, summary and retrieval "
    "are judged only by the staged LLM judge (--memeval-judge), which this run does not have"
)


def facts_of(item: Item) -> list[Fact]:
    return [Fact.from_json(f) for f in item.private["facts"]]


def has_spans(item: Item) -> bool:
    """False for released items, whose facts are texts without anchor or critical spans."""
    return bool(item.private.get("grading", {}).get("spans", True))


def storage_turns(item: Item) -> str:
    """What the stored sessions hold: user turns, or user turns and the model's replies."""
    return str(item.private.get("stored_turns", "user"))


def abstains(answer: Answer) -> bool:
    text = normalize(answer.label or answer.raw or "")
    return answer.abstained or any(cue in text for cue in ABSTENTION_CUES)


def mentions(normalized: str, value: str) -> bool:
    """Whether an answer names a value, with or without its article or plural s ("the cello"
    is named by "cello", "fedoras" by "fedora"): LLM answers rarely copy the gold exactly."""
    core = normalize(value).strip()
    for article in ("a ", "an ", "the "):
        core = core.removeprefix(article)
    forms = {core, core[:-1]} if core.endswith("s") and len(core) > 3 else {core}
    return any(contains(normalized, form) for form in forms)


def free_text_gold(item: Item) -> bool:
    """A released direct Persona question: its ground truth is prose only an LLM can compare."""
    return bool(item.private.get("grading", {}).get("free_text_gold"))


def answer_correct(item: Item, answer: Answer) -> bool:
    """Whether the answer is right, whatever the memories (the invocation check, deterministic)."""
    task, grading = item.view.task, item.private.get("grading", {})
    if free_text_gold(item):
        raise ResponseError(
            f"memfail: {item.id} has a free-text ground truth (a released Persona-Retrieval direct "
            "question) that only the staged LLM judge grades: add --memeval-judge=openai:MODEL"
        )
    text = normalize(answer.label or "")
    if task == "persona":
        if grading.get("distractor"):
            return abstains(answer)
        return not abstains(answer) and mentions(text, str(item.gold))
    if answer.abstained:
        return False
    if task in ("coexisting", "update"):
        stale = grading.get("stale", ())
        return all(mentions(text, g) for g in gold_values(item)) and not any(mentions(text, s) for s in stale)
    return text == normalize(str(item.gold))


def gold_values(item: Item) -> tuple[str, ...]:
    """The values an answer must name: a coexisting or update item's gold is a list of them."""
    gold = item.gold
    if isinstance(gold, (list, tuple)):
        return tuple(str(value) for value in gold)
    return (str(gold),)


def verdict(
    item: Item, answer: Answer, attribution: Attribution, storage_known: bool, right: bool | None, how: str
) -> Verdict:
    """The verdict from a finished attribution and answer check (shared with the LLM judge).

    `right` is None when the answer was not checked (a free-text gold after a memory stage
    failed); `how` is the attribution method (see the module docstring)."""
    misleading = bool(item.private.get("grading", {}).get("distractor"))
    if how == "unavailable":
        stage, reason = ("correct", "") if right else ("unattributed", f"the answer is wrong; {UNAVAILABLE}")
    elif attribution.stage != "ok":
        stage, reason = attribution.stage, attribution.reason
        if right:
            reason += " (the answer is right, but no intact retrieved memory supports it)"
    elif right:
        stage, reason = "correct", ""
    elif misleading:
        stage = "abstention"
        reason = f"answered about {item.private['grading']['distractor']}, whom no stored memory mentions, instead of abstaining"
    else:
        stage, reason = "reasoning", "every required memory was retrieved intact, but the answer is wrong"
    detail: dict[str, Any] = {
        "attribution": how,
        "answer_correct": right,
        "storage_known": storage_known,
        "stored_turns": storage_turns(item),
        "facts": [{"label": f.label, "stage": f.stage} for f in attribution.facts],
    }
    if how == "unavailable":
        detail["attribution_note"] = UNAVAILABLE
    return Verdict(
        correct=stage == "correct",
        score=float(stage == "correct"),
        reason=f"{stage}: {reason}" if reason else "",
        detail=detail,
        stage=stage,
    )


class MemfailJudge:
    """Staged attribution from the generator's spans (exact for memories that keep the text);
    released items, which have no spans, get the answer check only."""

    def score(self, item: Item, answer: Answer, trace: Trace) -> Verdict:
        facts = facts_of(item)
        if not facts:
            return verdict(item, answer, Attribution("ok", ()), True, answer_correct(item, answer), "none_needed")
        if not has_spans(item):
            right = answer_correct(item, answer)
            return verdict(item, answer, Attribution("ok", ()), False, right, "unavailable")
        dumped = trace.dump()
        stored: Sequence[str] | None = None if dumped is None else stored_texts(dumped)
        attribution = attribute(facts, stored_texts(trace.memories), stored)
        return verdict(item, answer, attribution, stored is not None, answer_correct(item, answer), "critical_spans")
