"""Judges of the halumem suite: the official LLM judges, and offline rules as a floor.

Each item is judged at its stage, with what evaluation.py shows the judge (scoring.py):
- a memory point: an update item where `is_update` is "True" and its probe retrieved
  something (label Correct / Hallucination / Omission / Other), else an integrity item
  (score 0 / 1 / 2 against the session's extraction; an empty extraction is 0 without a
  judge); it passes at 2, an interference point at 0 (the distractor was not stored);
- a session: each memory it extracted is an accuracy item (score 0 / 1 / 2 and whether it
  is a target); it passes when every one scored 2;
- a question: Correct / Hallucination / Omission; it passes when Correct.
A judge's reply that cannot be read is no score: the record keeps `score`/`label` None, its
item counts in the (all) metrics and not in the (valid) ones, and its test fails saying so.

Extraction needs the memory system's `dump()`: where it returns None, the integrity and
accuracy items are n/a (`detail["na"]`), never 0, and their tests are skipped.

`OfflineRules` compares words (words.py): integrity 2 when the extraction has every word of
the point, 1 when it has half; accuracy 2 when the dialogue or the gold points have every word
of the memory, 1 when some, a target when the gold points have half; update Correct when one
retrieved memory has every word of the updated point, Hallucination when half, else Omission;
a question Correct when the response has every word of the reference answer, Omission when
some or when it abstains (Correct for a Memory Boundary question), Hallucination otherwise.
These are floors, not HaluMem's metrics. `OfficialJudge` asks the run's judges
(`--memeval-judge`) with HaluMem's prompts; with several judges the first one's reading
decides and each judge's is kept under `detail["judges"]`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_memeval.llm.judge import JudgeFailure, JudgePanel
from pytest_memeval.types import Answer, Item, Trace, Verdict

from .scoring import (
    QA_LABELS,
    UPDATE_LABELS,
    accuracy_result,
    integrity_score,
    is_empty_extraction,
    label_of,
    memories_text,
    valid_label,
)
from .words import coverage

NA_DUMP = "n/a: extraction needs the memory system's dump(), which returns None"
MEMORY_BOUNDARY = "Memory Boundary"


@dataclass(frozen=True)
class Judged:
    """One judgement: the value read by the official rules (None: unreadable), and each
    judge's reading where judges were asked."""

    value: Any
    judges: Mapping[str, Any] = field(default_factory=dict)


class StageJudge(ABC):
    """Routes an item to its stage's judgement and makes the verdict."""

    @abstractmethod
    def integrity(self, item: Item, memories: str, point: str) -> Judged: ...

    @abstractmethod
    def accuracy(self, item: Item, dialogue: str, golden: str, memory: str) -> Judged:
        """value: (score or None, whether a target, is_included as text)."""

    @abstractmethod
    def update(self, item: Item, memories: str, updated: str, original: str) -> Judged: ...

    @abstractmethod
    def question(self, item: Item, response: str, abstained: bool) -> Judged: ...

    def score(self, item: Item, answer: Answer, trace: Trace) -> Verdict:
        kind = item.private["kind"]
        if kind == "qa":
            return self._qa(item, answer)
        if kind == "session":
            return self._session(item, answer)
        return self._point(item, answer)

    def _point(self, item: Item, answer: Answer) -> Verdict:
        p = item.private
        probe, extracted = answer.detail.get("probe"), answer.detail.get("extracted")
        common = {"importance": p["importance"], "memory_type": p["memory_type"], "source": p["source"]}
        if p["is_update"] == "True" and probe:
            judged = self.update(item, memories_text(probe), p["content"], memories_text(p["original"]))
            label = judged.value
            ok = valid_label(label, UPDATE_LABELS)
            detail = {"scored_as": "update", "label": label, **common, **_judges(judged)}
            reason = "" if label == "Correct" else f"update judged {label!r}" if ok else _unreadable(judged)
            return Verdict(
                label == "Correct" if ok else None, float(label == "Correct") if ok else None, reason, detail
            )
        stage = "interference" if p["source"] == "interference" else "integrity"
        if extracted is None:
            return Verdict(None, None, NA_DUMP, {"scored_as": stage, "na": NA_DUMP, **common})
        text = memories_text(extracted)
        judged = Judged(0) if is_empty_extraction(text) else self.integrity(item, text, p["content"])
        score = judged.value
        detail = {
            "scored_as": stage,
            "score": score,
            "judged": not is_empty_extraction(text),
            **common,
            **_judges(judged),
        }
        if score is None:
            return Verdict(None, None, _unreadable(judged), detail)
        correct = score == 0 if stage == "interference" else score == 2
        reason = "" if correct else f"{stage} score {score} (passes at {0 if stage == 'interference' else 2})"
        return Verdict(correct, float(score), reason, detail)

    def _session(self, item: Item, answer: Answer) -> Verdict:
        extracted = answer.detail.get("extracted")
        if extracted is None:
            return Verdict(None, None, NA_DUMP, {"scored_as": "accuracy", "na": NA_DUMP})
        p = item.private
        memories = []
        for memory in extracted:
            judged = self.accuracy(item, p["dialogue"], p["golden"], memory)
            score, target, included = judged.value
            memories.append({"score": score, "target": target, "included": included, **_judges(judged)})
        scores = [m["score"] for m in memories]
        valid = [s for s in scores if s is not None]
        detail = {"scored_as": "accuracy", "memories": memories}
        mean = sum(0.5 * s for s in valid) / len(valid) if valid else None
        if len(valid) < len(scores):
            return Verdict(None, mean, f"{len(scores) - len(valid)} of {len(scores)} judgements unreadable", detail)
        correct = all(s == 2 for s in valid)
        reason = "" if correct else f"accuracy scores {valid} (passes when every memory scores 2)"
        return Verdict(correct, mean, reason, detail)

    def _qa(self, item: Item, answer: Answer) -> Verdict:
        judged = self.question(item, answer.label or "", answer.abstained)
        label = judged.value
        ok = valid_label(label, QA_LABELS)
        detail = {"scored_as": "qa", "label": label, **_judges(judged)}
        reason = "" if label == "Correct" else f"answer judged {label!r}" if ok else _unreadable(judged)
        return Verdict(label == "Correct" if ok else None, float(label == "Correct") if ok else None, reason, detail)


def _judges(judged: Judged) -> dict[str, Any]:
    return {"judges": dict(judged.judges)} if judged.judges else {}


def _unreadable(judged: Judged) -> str:
    why = "; ".join(str(j.get("invalid", "")) for j in judged.judges.values() if j.get("invalid"))
    return f"the judge's reply could not be read ({why or 'no value'}): counted in (all), not in (valid)"


class OfflineRules(StageJudge):
    """Word-overlap rules: a deterministic floor (see the module's docstring)."""

    def integrity(self, item: Item, memories: str, point: str) -> Judged:
        share = coverage(point, memories, item.private["name"])
        return Judged(2 if share == 1.0 else 1 if share >= 0.5 else 0)

    def accuracy(self, item: Item, dialogue: str, golden: str, memory: str) -> Judged:
        name = item.private["name"]
        support = coverage(memory, f"{dialogue}\n{golden}", name)
        target = coverage(memory, golden, name) >= 0.5
        return Judged((2 if support == 1.0 else 1 if support > 0 else 0, target, "true" if target else "false"))

    def update(self, item: Item, memories: str, updated: str, original: str) -> Judged:
        name = item.private["name"]
        best = max((coverage(updated, line, name) for line in memories.split("\n")), default=0.0)
        return Judged("Correct" if best == 1.0 else "Hallucination" if best >= 0.5 else "Omission")

    def question(self, item: Item, response: str, abstained: bool) -> Judged:
        boundary = item.private["question_type"] == MEMORY_BOUNDARY
        if abstained or not response.strip():
            return Judged("Correct" if boundary else "Omission")
        if boundary:
            return Judged("Hallucination")
        share = coverage(str(item.gold), response, item.private["name"])
        return Judged("Correct" if share == 1.0 else "Omission" if share > 0 else "Hallucination")


class OfficialJudge(StageJudge):
    """HaluMem's judge prompts, one panel per stage (llm.py's `ReplyPrompt`)."""

    def __init__(self, panels: Mapping[str, JudgePanel]) -> None:
        self.panels = panels

    def _ask(
        self, stage: str, item: Item, fields: Mapping[str, str], label: str
    ) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        """The first judge's reply object (None: unreadable) and each judge's reading."""
        results = self.panels[stage].verdicts(item, Answer(None, detail={"fields": dict(fields)}), label=label)
        judges: dict[str, Any] = {}
        first: dict[str, Any] | None = None
        for position, (name, result) in enumerate(results.items()):
            reply = None if isinstance(result, JudgeFailure) else result.detail.get("reply")
            judges[name] = {"invalid": result.reason} if isinstance(result, JudgeFailure) else {"reply": reply}
            if position == 0:
                first = reply
        return first, judges

    def integrity(self, item: Item, memories: str, point: str) -> Judged:
        reply, judges = self._ask("integrity", item, {"memories": memories, "expected_memory_point": point}, item.id)
        for reading in judges.values():
            if "reply" in reading:
                score = integrity_score(reading["reply"])
                reading["correct"] = (
                    None if score is None else score == (0 if item.private["source"] == "interference" else 2)
                )
        return Judged(None if reply is None else integrity_score(reply), judges)

    def accuracy(self, item: Item, dialogue: str, golden: str, memory: str) -> Judged:
        fields = {"dialogue": dialogue, "golden_memories": golden, "candidate_memory": memory}
        reply, judges = self._ask("accuracy", item, fields, f"{item.id} memory {memory[:40]!r}")
        return Judged((None, False, "false") if reply is None else accuracy_result(reply), judges)

    def update(self, item: Item, memories: str, updated: str, original: str) -> Judged:
        fields = {"memories": memories, "updated_memory": updated, "original_memory": original}
        reply, judges = self._ask("update", item, fields, item.id)
        return Judged(None if reply is None else label_of(reply), _with_correct(judges))

    def question(self, item: Item, response: str, abstained: bool) -> Judged:
        fields = {
            "question": item.view.question,
            "reference_answer": str(item.gold),
            "key_memory_points": memories_text(item.private["evidence"]),
            "response": response,
        }
        reply, judges = self._ask("qa", item, fields, item.id)
        return Judged(None if reply is None else label_of(reply), _with_correct(judges))

    def close(self) -> None:
        for panel in self.panels.values():
            panel.close()


def _with_correct(judges: dict[str, Any]) -> dict[str, Any]:
    """Each judge's reading with `correct` (its label is Correct), for the judge sensitivity."""
    for reading in judges.values():
        if "reply" in reading:
            reading["correct"] = label_of(reading["reply"]) == "Correct"
    return judges
