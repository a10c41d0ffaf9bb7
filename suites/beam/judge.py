"""Judges of the beam suite.

`OfficialJudge` grades as run_evaluation.py and compute_metrics.py do (llm.py: the prompts;
scoring.py: the rules): one judge call per rubric item, the points averaged; event
ordering's score from the response's lines aligned to the rubric by the judge's YES/NO.
Its extract_facts call, whose result the official code discards, is not made.
`OfflineJudge` runs without an LLM and is not the official metric: a rubric item is met
when the answer contains its text ("LLM response should state: X": X, normalised; a "not"
or "avoid" item when it does not), and event ordering aligns a line to an item that it
contains.

A question's score is its `llm_judge_score` (event ordering: `tau_norm`, under the
corrected scoring `tau_norm * F1`); the item counts as correct when it is 1 (full
compliance). The retrieval metrics come from the plugin, on each item's evidence.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from pytest_memeval.errors import ResponseError
from pytest_memeval.llm.judge import JudgePanel
from pytest_memeval.types import Answer, Item, Trace, Verdict

from .llm import PAIR, RUBRIC_ITEM
from .scoring import EVENT_ORDERING, Ordering, ordering_score, question_score

_PREFIX = re.compile(r"^LLM response should (?P<verb>(?:not )?[a-z]+(?: with)?):\s*", re.IGNORECASE)


def normalise(text: str) -> str:
    return " ".join(text.lower().translate(str.maketrans("", "", string.punctuation)).split())


def rubric_text(entry: str) -> tuple[bool, str]:
    """(whether the item asks for something to be absent, the text it names)."""
    found = _PREFIX.match(entry)
    if not found:
        return False, entry
    verb = found.group("verb").lower()
    return verb.startswith(("not ", "avoid")), entry[found.end() :]


def met_offline(entry: str, response: str) -> bool:
    negative, text = rubric_text(entry)
    present = f" {normalise(text)} " in f" {normalise(response)} "
    return present != negative


def same_offline(entry: str, line: str) -> bool:
    return bool(line.strip()) and normalise(rubric_text(entry)[1]) in normalise(line)


def _score(item: Item, points: list[float] | None, ordering: Ordering | None) -> float:
    scoring = item.private["scoring"]
    score = ordering.reported(scoring) if ordering is not None else question_score(points or [])
    if math.isnan(score):
        # the official report would carry NaN for the conversation; here the item is an error
        raise ResponseError(f"{item.id}: Kendall's tau-b is undefined for this rubric and response (one item)")
    return score


def _ordering_detail(ordering: Ordering) -> dict[str, Any]:
    return {
        "precision": ordering.precision,
        "recall": ordering.recall,
        "f1": ordering.f1,
        "tau_norm": ordering.tau_norm,
        "final_score": ordering.final_score,
    }


def _verdict(item: Item, score: float, scorer: str, detail: Mapping[str, Any]) -> Verdict:
    correct = score >= 1.0
    reason = "" if correct else f"{scorer}: {score:.3g} of the rubric ({len(item.private['rubric'])} items)"
    return Verdict(correct=correct, score=score, reason=reason, detail={"scorer": scorer, **detail})


class OfflineJudge:
    """Without an LLM: the rubric's texts looked up in the answer (not the official metric)."""

    def score(self, item: Item, answer: Answer, trace: Trace) -> Verdict:
        rubric, response = item.private["rubric"], answer.label or ""
        if item.view.task == EVENT_ORDERING:
            ordering = ordering_score(rubric, response, same_offline)
            return _verdict(item, _score(item, None, ordering), "offline", _ordering_detail(ordering))
        points = [float(met_offline(entry, response)) for entry in rubric]
        return _verdict(item, _score(item, points, None), "offline", {"points": points})


class OfficialJudge:
    """compute_metrics.py's judge, asked of a panel of models: a rubric item's points are the
    panel's mean (one model: its points); two snippets are the same event when the panel's
    majority says yes."""

    def __init__(self, rubric: JudgePanel, equivalence: JudgePanel) -> None:
        self.rubric, self.equivalence = rubric, equivalence

    def score(self, item: Item, answer: Answer, trace: Trace) -> Verdict:
        rubric, response = item.private["rubric"], answer.label or ""
        points: list[float] = []
        judges: dict[str, list[float]] = {}
        failed: set[str] = set()
        for n, entry in enumerate(rubric):
            verdict = self.rubric.score(_asking(item, RUBRIC_ITEM, entry), answer, label=f"{item.id} rubric {n + 1}")
            points.append(float(verdict.score or 0.0))
            for name, given in verdict.detail.get("judges", {}).items():
                if given.get("score") is None:
                    failed.add(name)  # an invalid reply of one judge of a panel that had enough valid ones
                else:
                    judges.setdefault(name, []).append(float(given["score"]))
        detail: dict[str, Any] = {"points": points, "llm_judge_score": question_score(points)}
        ordering = None
        if item.view.task == EVENT_ORDERING:
            ordering = ordering_score(rubric, response, self._same(item, answer))
            detail |= _ordering_detail(ordering)
        score = _score(item, points, ordering)
        # each judge's own rubric score, for the judges' agreement (event ordering's alignment is the panel's)
        detail["judges"] = {
            name: {"score": question_score(given), "correct": question_score(given) >= 1.0}
            for name, given in judges.items()
            if name not in failed
        }
        return _verdict(item, score, "official", detail)

    def _same(self, item: Item, answer: Answer) -> Callable[[str, str], bool]:
        asked = 0

        def same(entry: str, line: str) -> bool:
            nonlocal asked
            asked += 1
            verdict = self.equivalence.score(
                _asking(item, PAIR, (entry, line)), answer, label=f"{item.id} pair {asked}"
            )
            return bool(verdict.correct)

        return same

    def close(self) -> None:
        self.rubric.close()
        self.equivalence.close()


def _asking(item: Item, key: str, value: Any) -> Item:
    """The item as one judge call sees it: with the rubric item or the pair it asks about."""
    return replace(item, private={**item.private, key: value})
