"""Judges of the longmemeval suite, and the retrieval recall every verdict carries.

`OfficialJudge` grades as evaluate_qa.py does (llm.py: its prompts, one judge panel per
prompt). `OfflineJudge` runs without an LLM and is not the official metric: an answer is
correct when it contains the released answer (normalised; a rubric's quoted phrase for
preference questions; day, week, month and year counts off by one forgiven, as the
official temporal prompt forgives them), and an abstention question when the answer
declines.

Recall, as the official retrieval evaluation counts it (src/retrieval/run_retrieval.py),
over what the memory system returned for the item (`Memory.sources`): turn level, the
evidence turns on the user's side (`has_answer`); session level, the sessions holding them
(`answer_session_ids`). `_all` is 1 when every one was returned (recall_all, the metric
print_retrieval_metrics.py prints), `_any` when at least one was. Abstention questions and
questions without an evidence turn on the user's side are left out, as there. A memory
system that keeps no sources gets no recall ("not available"), never 0.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from typing import Any

from pytest_memeval.llm.judge import JudgePanel
from pytest_memeval.types import Answer, Item, Trace, Verdict

from .catalog import session_of
from .llm import judge_prompt_key

NOT_AVAILABLE = "not available: the memory system keeps no sources"
#: the detail keys `recall` derives from the trace (what was retrieved), not from the answer
RECALL_KEYS = (
    "recall",
    "turn_recall_all",
    "turn_recall_any",
    "session_recall_all",
    "session_recall_any",
    "evidence_turns",
    "evidence_turns_found",
    "evidence_sessions",
    "evidence_sessions_found",
)
#: phrases of a declined answer, for free-text answers without the LLM judge
DECLINES = (
    "not enough",
    "no information",
    "not mention",
    "n't mention",
    "not sure",
    "cannot be answered",
    "can't answer",
    "cannot answer",
    "don't know",
    "do not know",
    "unanswerable",
    "not provided",
    "no record",
)
_COUNT = re.compile(r"(\d+)\s+(day|week|month|year)s?\b")
_QUOTED = re.compile(r'"([^"]+)"')


def recall(item: Item, trace: Trace) -> dict[str, Any]:
    """Session- and turn-level recall of the item's evidence in the retrieved memories."""
    turns = set(item.private.get("evidence_turns", ()))
    if not turns:
        return {}
    if not trace.keeps_sources:
        return {"recall": NOT_AVAILABLE}
    sessions = set(item.private["evidence_sessions"])
    returned_turns = {source for memory in trace.memories for source in memory.sources}
    returned_sessions = {session_of(source) for source in returned_turns}
    found_turns, found_sessions = turns & returned_turns, sessions & returned_sessions
    return {
        "turn_recall_all": float(found_turns == turns),
        "turn_recall_any": float(bool(found_turns)),
        "session_recall_all": float(found_sessions == sessions),
        "session_recall_any": float(bool(found_sessions)),
        "evidence_turns": len(turns),
        "evidence_turns_found": len(found_turns),
        "evidence_sessions": len(sessions),
        "evidence_sessions_found": len(found_sessions),
    }


def normalise(text: str) -> str:
    text = text.lower().translate(str.maketrans("", "", string.punctuation))
    return " ".join(word for word in text.split() if word not in ("a", "an", "the"))


def declines(answer: Answer) -> bool:
    text = (answer.label or "").lower()
    return answer.abstained or any(phrase in text for phrase in DECLINES)


def offline_correct(item: Item, answer: Answer) -> bool:
    if item.private.get("abstention"):
        return declines(answer)
    if answer.abstained:
        return False
    gold = str(item.gold)
    quoted = _QUOTED.findall(gold) if item.view.task == "single-session-preference" else []
    response = normalise(answer.label or "")
    if quoted:
        return all(_contains(response, phrase) for phrase in quoted)
    if _contains(response, gold):
        return True
    counted = _COUNT.search(gold.lower())
    if item.view.task == "temporal-reasoning" and counted:
        days, unit = int(counted.group(1)), counted.group(2)
        return any(
            found.group(2) == unit and abs(int(found.group(1)) - days) <= 1
            for found in _COUNT.finditer((answer.label or "").lower())
        )
    return False


def _contains(response: str, phrase: str) -> bool:
    """Whether the normalised phrase occurs in the normalised response as whole words."""
    return f" {normalise(phrase)} " in f" {response} "


class OfflineJudge:
    """Without an LLM: containment of the released answer (not the official metric)."""

    def score(self, item: Item, answer: Answer, trace: Trace) -> Verdict:
        correct = offline_correct(item, answer)
        reason = "" if correct else f"offline check: the answer does not contain {str(item.gold)[:120]!r}"
        return Verdict(
            correct=correct, score=float(correct), reason=reason, detail={"scorer": "offline", **recall(item, trace)}
        )


class OfficialJudge:
    """evaluate_qa.py's judge: the question type's prompt, asked of a panel of models (a
    judge of the panel may name Mem0's J instead: then `official` is False)."""

    def __init__(self, panels: Mapping[str, JudgePanel], official: bool = True) -> None:
        self.panels = dict(panels)
        self.official = official

    def score(self, item: Item, answer: Answer, trace: Trace) -> Verdict:
        key = judge_prompt_key(item)
        panel = self.panels[key]
        verdict = panel.score(item, answer, label=item.id)
        correct = bool(verdict.correct)
        detail = {
            "scorer": "official" if self.official else "llm",
            "template": ",".join(dict.fromkeys(judge.prompt.template.id for judge in panel.judges)),
            "judges": dict(verdict.detail.get("judges", {})),
            **recall(item, trace),
        }
        replies = "; ".join(
            f"{name}: {v.get('reason', v.get('invalid', ''))!r}" for name, v in detail["judges"].items()
        )
        return Verdict(correct=correct, score=float(correct), reason=replies, detail=detail)

    def close(self) -> None:
        for panel in self.panels.values():
            panel.close()
