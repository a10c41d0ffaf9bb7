"""The offline reader: predicts a behaviour from the served context and memories alone.

It reads the view's documents (specification, facts, corpus) and the retrieved memories
with `evidence`, then

1. takes the principle of the question's category, and a second one when the question's
   wording puts it at stake too (its cue words);
2. when two are at stake, lets the one the evidence ranks higher decide: a recorded
   priority first, then the anchors' ranks; without either, the one with more evidence,
   the category's principle on a tie;
3. picks the pole with more weight and, within it, the behaviour with the most weight
   (the pole's general direction when no behaviour stands out);
4. with no evidence on the deciding principle, falls back on the common-sense expectation
   of a situation that has one (`lexicon.HeldOut.norm`), and otherwise abstains.

It answers in the subject's voice with the lexicon's phrase, so the offline judge can
read the prediction back. Nothing but the view and the memories reaches it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_memeval.framework.memory_text import stored_texts
from pytest_memeval.framework.unreadable import marked
from pytest_memeval.types import Answer, ItemView, Memory

from .evidence import Evidence, cue_axes, normalize, read_all
from .lexicon import AXES, AXIS_OF_CATEGORY
from .views import DOCUMENT_KEYS

ABSTENTION = "I cannot say what I would do here; nothing I have to go on speaks to it."
#: question wordings with a common-sense expectation, and the principle it belongs to
_NORMS = {normalize(h.ask): a for a, axis in enumerate(AXES) for h in axis.heldout if h.norm}


class BehaviorReader:
    def answer(self, view: ItemView, memories: Sequence[Memory]) -> Answer:
        from_memories = read_all(stored_texts(memories)) if memories else Evidence()
        recognised = len(from_memories.votes) + len(from_memories.wins) + len(from_memories.ranks)
        return marked(self._answer(view, memories), memories, recognised)

    def _answer(self, view: ItemView, memories: Sequence[Memory]) -> Answer:
        texts = [str(view.extra[key]) for key in DOCUMENT_KEYS if view.extra.get(key)]
        texts += stored_texts(memories)
        evidence = read_all(texts)
        primary = AXIS_OF_CATEGORY[view.task]
        others = [a for a in cue_axes(view.question) if a != primary]
        axis, basis = _deciding_axis(evidence, primary, others[0] if others else None)
        detail = {"axis": AXES[axis].key, "basis": basis, "evidence": round(evidence.weight(axis), 3)}
        pole = _pole(evidence, axis)
        if pole is None:
            return _fallback(view.question, primary, detail)
        behaviours = evidence.behaviours(axis, pole).most_common()
        chosen = AXES[axis].poles[pole]
        if behaviours and (len(behaviours) == 1 or behaviours[1][1] < behaviours[0][1]):
            phrase = chosen.variants[behaviours[0][0]]
        else:
            phrase = chosen.generic
        return Answer(label=f"I would {phrase}.", detail=dict(detail, pole=chosen.label))


def _deciding_axis(evidence: Evidence, primary: int, secondary: int | None) -> tuple[int, str]:
    if secondary is None:
        return primary, "single principle"
    ahead, behind = evidence.wins[(primary, secondary)], evidence.wins[(secondary, primary)]
    if ahead != behind:
        return (primary if ahead > behind else secondary), "recorded priority"
    ranks = evidence.ranks
    if primary in ranks and secondary in ranks:
        return (primary if ranks[primary] < ranks[secondary] else secondary), "anchor ranks"
    if evidence.weight(primary) != evidence.weight(secondary):
        return (primary if evidence.weight(primary) > evidence.weight(secondary) else secondary), "more evidence"
    return primary, "question category"


def _pole(evidence: Evidence, axis: int) -> int | None:
    scores = (evidence.pole_score(axis, 0), evidence.pole_score(axis, 1))
    if scores[0] == scores[1]:
        return None
    return 0 if scores[0] > scores[1] else 1


def _fallback(question: str, primary: int, detail: dict[str, Any]) -> Answer:
    normal = normalize(question)
    if any(ask in normal and axis == primary for ask, axis in _NORMS.items()):
        common = AXES[primary].poles[0]
        return Answer(
            label=f"Most people would {common.variants[0]}, and I suppose I would too.",
            detail=dict(detail, basis="common expectation", pole=common.label),
        )
    return Answer(label=ABSTENTION, abstained=True, detail=dict(detail, basis="nothing to go on"))
