"""The LLM calls of a halumem item, for the estimate before a run (`pytest --collect-only`).

Per item, as protocol.py and judge.py make them:
- a question: the responder's answer and one QA judgement;
- a memory point: an update judgement where `is_update` is "True" and the point is probed
  (it has original memories), else an integrity judgement (none for an empty extraction);
- a session: one accuracy judgement per memory it extracted.

What the run will extract and retrieve is not known before it runs, so it is assumed, in
the manner of the estimator's other assumptions (campaigns/estimate.py): a session extracts
its gold memory points that are not interference; a retrieval of n (the update probe's 10, a
question's k) returns the user's first n turns (all of them from a system that does not
honour k); the QA judge grades the reference answer.
The memory system's own calls (its extraction) are not counted here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pytest_memeval.framework.suite import PlannedCall
from pytest_memeval.types import Answer, Item, Memory

from .llm import JUDGE_TEMPLATES, HaluMemPrompt, ReplyPrompt
from .protocol import PROBE_K
from .scoring import memories_text


class CallPlanner:
    """The answer prompt and the four judge prompts, loaded once."""

    def __init__(self) -> None:
        self.answer = HaluMemPrompt()
        self.judges = {stage: ReplyPrompt(stage) for stage in JUDGE_TEMPLATES}

    def calls(
        self, item: Item, golden: Sequence[str], retrieve: Callable[[int], Sequence[Memory]], k: int
    ) -> list[PlannedCall]:
        """The calls of `item`, whose session's gold points (not interference) are `golden`."""
        p = item.private
        if p["kind"] == "qa":
            fields = {
                "question": item.view.question,
                "reference_answer": str(item.gold),
                "key_memory_points": memories_text(p["evidence"]),
                "response": str(item.gold),
            }
            return [
                PlannedCall("answer", self.answer.messages(item.view, retrieve(k))),
                self._judge("qa", item, fields),
            ]
        if p["kind"] == "session":
            fields = {"dialogue": p["dialogue"], "golden_memories": p["golden"]}
            return [self._judge("accuracy", item, {**fields, "candidate_memory": memory}) for memory in golden]
        if p["is_update"] == "True" and p["original"]:
            probe = memories_text(m.text for m in retrieve(PROBE_K))
            fields = {
                "memories": probe,
                "updated_memory": p["content"],
                "original_memory": memories_text(p["original"]),
            }
            return [self._judge("update", item, fields)]
        if not golden:
            return []  # an empty extraction is scored 0 without a judge
        return [
            self._judge("integrity", item, {"memories": memories_text(golden), "expected_memory_point": p["content"]})
        ]

    def _judge(self, stage: str, item: Item, fields: dict[str, str]) -> PlannedCall:
        return PlannedCall("judge", self.judges[stage].messages(item, Answer(None, detail={"fields": fields})))
