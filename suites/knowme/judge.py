"""Judges: our deterministic diagnostics and the paper's rubric LLM judge.

`KnowmeJudge` (offline) scores T1-T5 deterministically and T6/T7 by an approximate
coverage stand-in; these are our diagnostics, never reported under the paper's metric
names. `KnowmeLLMJudge` grades all seven tasks as the paper does (rubric.py: a 0-5
rubric per task family) and keeps the diagnostic verdict beside it under
`detail["diagnostic"]`.

Every verdict scores on the paper's 0-100 table scale (`score`), says which scorer gave it
(`detail["scorer"]`) and whether that scorer is approximate (`detail["approximate"]`), and
carries the evidence recall of the retrieved memories as a diagnostic: the share of the
item's evidence units (private) found verbatim in what the memory system returned.
Released items the loader flagged carry `detail["data_flags"]`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_memeval.framework.memory_text import stored_texts
from pytest_memeval.llm.judge import JudgePanel
from pytest_memeval.types import Answer, Item, Memory, Trace, Verdict

from .rubric import Rubric
from .scoring import (
    content_words,
    coverage_band,
    cue_band,
    duration_band,
    entity_f1,
    kendall_band,
    order_band,
    parse_duration,
    parse_letters,
    parse_years,
    split_entities,
    state_band,
    text_coverage_band,
    years_band,
)

#: rubric scores at or above this count as correct (the paper's 4 "accurate but literal")
RUBRIC_PASS = 4
#: every scorer, as the summary describes it
SCORERS = {
    "entities": "entity F1 against the generated item set",
    "entity_f1_text": "entity F1 against items read out of a prose gold (approximate)",
    "abstain": "full marks only for ABSTAIN",
    "duration": "duration on the 0/3/5 bands (exact / within 20% / otherwise)",
    "years": "whole years on the 0/3/5 bands (exact / off by one / otherwise)",
    "order": "real-time order on the 0/3/5 bands (exact / one adjacent swap / otherwise)",
    "state": "state at a date on the 0/3/5 bands (right / mixed with the other state / wrong)",
    "ranking": "Kendall tau mapped to the ordering rubric (5 / 3 / 2 / 1 / 0; never 4)",
    "ranking_text": "Kendall tau after aligning a prose ranking with the gold's steps (approximate)",
    "cue": "cue match on the 0/3/5 bands (the cue / the cue with noise / otherwise)",
    "coverage_approx": "offline coverage of the gold's core elements, standing in for the rubric judge (approximate)",
    "text_coverage_approx": "offline word coverage of a prose gold, standing in for the rubric judge (approximate)",
    "rubric_llm": "the paper's 0-5 rubric of the task's family, graded by the LLM judge panel",
}
#: scorers whose verdicts are labelled approximate wherever they are reported
APPROXIMATE = frozenset(name for name, text in SCORERS.items() if text.endswith("(approximate)"))


def evidence_recall(item: Item, memories: Sequence[Memory]) -> dict[str, Any]:
    """How many evidence units the retrieved memories hold (a unit counts when its render
    is inside a memory, or its header and first field line are)."""
    renders: Sequence[str] = item.private.get("evidence_texts", ())
    if not renders:
        return {"evidence_recall": None}
    texts = stored_texts(memories)
    found = 0
    for render in renders:
        lines = render.splitlines()
        if any(render in t or (lines[0] in t and (len(lines) < 2 or lines[1] in t)) for t in texts):
            found += 1
    return {"evidence_recall": found / len(renders), "evidence_found": found, "evidence_total": len(renders)}


def score_answer(item: Item, answer: Answer) -> tuple[int | float, bool, dict[str, Any]]:
    """(points 0-100, correct, detail) for every scorer except the LLM rubric."""
    kind = item.private["scoring"]
    label = "" if answer.abstained else (answer.label or "")
    if kind == "abstain":
        return (100, True, {"rubric": 5}) if answer.abstained else (0, False, {"rubric": 0})
    if not isinstance(item.gold, dict):
        raise TypeError(f"knowme: the gold of {item.id} is not a mapping of its parts: {item.gold!r}")
    gold: Mapping[str, Any] = item.gold  # the parts the catalogue writes (entities, core, rubric, ...)
    if kind in ("entities", "entity_f1_text"):
        f1, precision, recall = entity_f1(split_entities(label), gold["entities"]) if label else (0.0, 0.0, 0.0)
        return (
            round(100 * f1, 4),
            f1 == 1.0,
            {"f1": round(f1, 6), "precision": round(precision, 6), "recall": round(recall, 6)},
        )
    if kind in ("coverage_approx", "text_coverage_approx"):
        if kind == "coverage_approx":
            band = coverage_band(label, gold["core"], gold["rubric"])
        else:
            band = text_coverage_band(label, gold["reference"])
        return 20 * band, band >= RUBRIC_PASS, {"rubric": band}
    if kind == "ranking_text":
        steps = [str(i) for i in range(len(gold["events"]))]  # the gold's steps in its order
        band, tau = kendall_band([str(i) for i in _aligned(label, gold["events"])], steps)
        return 20 * band, band == 5, {"rubric": band, "tau": tau}
    band, extra = _band(kind, gold, label)
    return 20 * band, band == 5, {"rubric": band, **extra}


def _band(kind: str, gold: Mapping[str, Any], label: str) -> tuple[int, dict[str, Any]]:
    if kind == "duration":
        seconds = parse_duration(label)
        return duration_band(seconds, gold["seconds"]), {"answer_seconds": seconds}
    if kind == "years":
        years = parse_years(label)
        return years_band(years, gold["years"]), {"answer_years": years}
    if kind == "order":
        return order_band(parse_letters(label, "".join(gold["order"])), gold["order"]), {}
    if kind == "state":
        return state_band(label, gold["value"], gold["other"]), {}
    if kind == "ranking":
        band, tau = kendall_band(parse_letters(label), gold["order"])
        return band, {"tau": tau}
    if kind == "cue":
        return cue_band(label, gold["cue"], gold["modality"], gold["distractors"]), {}
    raise ValueError(f"unknown knowme scoring kind {kind!r}")


def _aligned(answer: str, events: Sequence[str]) -> list[int]:
    """Released rankings: each answer line or step mapped to the gold event it shares most words with."""
    order: list[int] = []
    for segment in re.split(r"\n|->|→|;|\d+\.\s", answer):
        words = set(content_words(segment))
        overlaps = [len(words & set(content_words(e))) for e in events]
        if words and max(overlaps, default=0) > 0:
            best = overlaps.index(max(overlaps))
            if best not in order:
                order.append(best)
    return order


class KnowmeJudge:
    """The offline judge: deterministic for T1-T5, approximate (labelled) for T6/T7."""

    def score(self, item: Item, answer: Answer, trace: Trace) -> Verdict:
        points, correct, detail = score_answer(item, answer)
        return _verdict(item, answer, trace, points, correct, item.private["scoring"], detail)


class KnowmeLLMJudge:
    """Every task graded by its family's rubric panel, as the paper does; the offline
    verdict is kept as the item's diagnostic. An answer that declines on T1, T3-T7 gets the
    rubric's 0 ("no answer") without a call; on T2 declining is what the rubric rewards, so
    the judge reads it (as a sentence) like any other answer."""

    def __init__(self, offline: KnowmeJudge, rubric: Rubric, panels: Mapping[str, JudgePanel]) -> None:
        self.offline = offline
        self.rubric = rubric
        self.panels = dict(panels)

    def score(self, item: Item, answer: Answer, trace: Trace) -> Verdict:
        diagnostic = self.offline.score(item, answer, trace)
        task = item.strata["task"]
        family = self.rubric.family_of[task]
        declined = answer.abstained or not (answer.label or "").strip()
        if declined and task != "T2":
            rubric: float = 0.0
            graded: dict[str, Any] = {"judges": {}, "not_called": "no answer: the rubric's 0"}
        else:
            verdict = self.panels[family].score(item, answer, label=item.id)
            rubric = float(verdict.score or 0.0)
            graded = {"judges": dict(verdict.detail.get("judges", {}))}
        # the template id pins the rubric's wording (its version is a hash of the authors' text)
        detail = {
            "rubric": rubric,
            "family": family,
            "rubric_template": self.rubric.prompts[family].template.id,
            **graded,
            "diagnostic": _diagnostic(diagnostic),
        }
        return _verdict(item, answer, trace, round(20 * rubric, 4), rubric >= RUBRIC_PASS, "rubric_llm", detail)

    def close(self) -> None:
        for panel in self.panels.values():
            panel.close()


def _diagnostic(verdict: Verdict) -> dict[str, Any]:
    """The offline verdict as a diagnostic beside the judge's (evidence recall stays on top)."""
    kept = {k: v for k, v in verdict.detail.items() if not k.startswith("evidence_") and k != "data_flags"}
    return {**kept, "score": verdict.score, "correct": verdict.correct}


def _verdict(
    item: Item, answer: Answer, trace: Trace, points: float, correct: bool, scorer: str, detail: Mapping[str, Any]
) -> Verdict:
    approximate = scorer in APPROXIMATE
    label = f"{scorer} (approximate)" if approximate else scorer
    reason = "" if correct else f"{label}: {points:g}/100, gold {item.gold!r}"
    flags = tuple(item.private.get("flags") or ())
    full = {
        "scorer": scorer,
        "approximate": approximate,
        **detail,
        **evidence_recall(item, trace.memories),
        **({"data_flags": list(flags)} if flags else {}),
    }
    return Verdict(correct=correct, score=points, reason=reason, detail=full)
