"""Judges of the locomo suite: every score beside the others, on every item.

`LocomoJudge` (offline) gives the official F1, Mem0's BLEU-1 and Mem0's F1 (scoring.py)
and the evidence recall of the retrieval; the item passes when the official F1 reaches
`pass_f1` (0.5 unless `locomo.pass_f1` says otherwise). `LocomoLLMJudge` adds Mem0's J:
its prompt, asked of each judge of the panel (`--memeval-judge`; a judge may name
LongMemEval's prompt instead, `@longmemeval`), and the item passes when the panel says
CORRECT. The verdict's score is the official F1 on 0-100 either way; J is `detail["j"]`
(the panel's mean of 0/1 labels; one judge: 0 or 1) and each judge's label is under
`detail["judges"]`.

Evidence recall is the share of the item's evidence dia_ids that the retrieved memories'
`sources` carry: None (shown as n/a) when the memory system keeps no provenance or the
item has no evidence turn, never 0 for not knowing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_memeval.llm.judge import JudgePanel
from pytest_memeval.types import Answer, Item, Trace, Verdict

from .scoring import bleu_tokenizer, mem0_bleu1, mem0_f1, official_f1

DEFAULT_PASS_F1 = 0.5


def evidence_recall(evidence: Sequence[str], trace: Trace) -> float | None:
    if not trace.keeps_sources or not evidence:
        return None
    carried = {source for memory in trace.memories for source in memory.sources}
    return sum(dia_id in carried for dia_id in evidence) / len(evidence)


def scores(item: Item, answer: Answer, trace: Trace) -> dict[str, Any]:
    """Each metric of one answer (0-1), with what it needs to be read."""
    prediction = answer.label or ""
    gold = item.gold
    return {
        "category": item.private["category"],
        "f1": official_f1(prediction, gold, item.private["category"]),
        "bleu1": mem0_bleu1(prediction, gold),
        "bleu_tokenizer": bleu_tokenizer(),
        "mem0_f1": mem0_f1(prediction, gold),
        "evidence_recall": evidence_recall(item.private["evidence"], trace),
        "provenance": trace.keeps_sources,
    }


class LocomoJudge:
    def __init__(self, pass_f1: float = DEFAULT_PASS_F1) -> None:
        self.pass_f1 = pass_f1

    def score(self, item: Item, answer: Answer, trace: Trace) -> Verdict:
        detail = scores(item, answer, trace)
        correct = detail["f1"] >= self.pass_f1
        reason = "" if correct else f"official F1 {detail['f1']:.3f} < {self.pass_f1:g}, gold {item.gold!r}"
        return Verdict(correct=correct, score=100 * detail["f1"], reason=reason, detail=detail)


class LocomoLLMJudge:
    """Mem0's J by a judge panel, beside the offline scores."""

    def __init__(self, offline: LocomoJudge, panel: JudgePanel) -> None:
        self.offline, self.panel = offline, panel

    def score(self, item: Item, answer: Answer, trace: Trace) -> Verdict:
        detail = scores(item, answer, trace)
        verdict = self.panel.score(item, answer, label=item.id)
        j = float(verdict.score or 0.0)
        judged = {
            **detail,
            "j": j,
            "j_template": ",".join(dict.fromkeys(judge.prompt.template.id for judge in self.panel.judges)),
            "judges": dict(verdict.detail.get("judges", {})),
        }
        correct = bool(verdict.correct)
        reason = "" if correct else f"J: WRONG ({j:g}), gold {item.gold!r}"
        return Verdict(correct=correct, score=100 * detail["f1"], reason=reason, detail=judged)

    def close(self) -> None:
        self.panel.close()
