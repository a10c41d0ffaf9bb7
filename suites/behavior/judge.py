"""The offline judge: the paper's 1-5 rubric applied to the behaviour a response predicts.

Approximate by design (the faithful path is the LLM panel, see `llm`): it reads the
response's first 1,500 characters, as the paper's judges do, finds the behaviour it
predicts with the public lexicon and compares it with the held-out decision:

    5  the same behaviour                      (predicts specific outcome)
    4  the same pole, another or no behaviour  (general direction correct)
    3  the same principle, the other pole      (right domain, wrong outcome)
    2  a behaviour of another principle        (wrong prediction)
    1  an abstention, or nothing recognisable  (refuses or off-base)

A behaviour phrase is found verbatim (what the offline reader writes), or, in free text,
as a phrase of at least three content words most of which the response uses.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

from pytest_memeval.types import Answer, Item, Memory, Trace, Verdict

from .evidence import PHRASES, Key, normalize, phrase_matches
from .lexicon import AXES

CUT = 1500
JUDGE_LABEL = "offline (approximate: rubric mapped from the predicted behaviour)"
#: share of a phrase's content words a free-text response must use to count as predicting it
FUZZY_RECALL = 0.75
FUZZY_MIN_WORDS = 3
#: phrases of refusal (after the paper's abstention audit, App. D.3.1)
ABSTENTION = re.compile(
    r"\b(i cannot say|i can't say|i don't have (specific|enough|any) information|there is no (explicit|specific) (information|record|account)"
    r"|i cannot confirm|i am not certain|i'm not certain|would need additional context|my training data does not"
    r"|nothing i have to go on|not enough (information|context)|i cannot (predict|determine)|i can't (predict|determine))\b"
)
RUBRIC = {
    5: "predicts the specific outcome",
    4: "general direction correct",
    3: "right domain, wrong outcome",
    2: "wrong prediction",
    1: "refuses or off-base",
}
_STOP = frozenset(
    "a an the and or of to in on at for from with by it its is was be as that this them they their then than "
    "into up out over any anyone every all i me my we our would".split()
)


@dataclass(frozen=True)
class Recognized:
    key: Key | None
    how: str  # "verbatim", "free text", "abstention", "nothing recognised"


def _content(text: str) -> set[str]:
    words = re.findall(r"[a-z]+", text.lower())
    return {_stem(w) for w in words if w not in _STOP}


def _stem(word: str) -> str:
    for ending in ("ing", "ed", "es", "s"):
        if len(word) > len(ending) + 3 and word.endswith(ending):
            return word[: -len(ending)]
    return word


_CONTENT = {phrase: _content(phrase) for phrase in PHRASES}


def recognize(response: str) -> Recognized:
    """The behaviour `response` predicts: the first behaviour phrase, else the first direction."""
    text = response[:CUT]
    matches = phrase_matches(text)
    behaviours = [key for _, _, key in matches if key[2] >= 0]
    if behaviours or matches:
        return Recognized((behaviours or [matches[0][2]])[0], "verbatim")
    words = _content(text)
    best: tuple[float, int, str] | None = None
    for phrase, content in _CONTENT.items():
        if len(content) < FUZZY_MIN_WORDS:
            continue
        recall = len(content & words) / len(content)
        candidate = (recall, len(content), phrase)
        if recall >= FUZZY_RECALL and (best is None or candidate > best):
            best = candidate
    if best is not None:
        return Recognized(PHRASES[best[2]], "free text")
    return Recognized(None, "abstention" if ABSTENTION.search(normalize(text)) else "nothing recognised")


def rubric_score(predicted: Key | None, axis: int, pole: int, variant: int) -> int:
    if predicted is None:
        return 1
    if predicted[0] != axis:
        return 2
    if predicted[1] != pole:
        return 3
    return 5 if predicted[2] == variant else 4


def retrieved_ids(memories: tuple[Memory, ...]) -> list[str]:
    """Short digests of the retrieved texts, for the top-k overlap between systems."""
    return [hashlib.sha1(normalize(m.text).encode()).hexdigest()[:12] for m in memories]


def passes(score: float) -> bool:
    """An item passes when the prediction has at least the right direction (4 or 5)."""
    return score >= 4


class OfflineJudge:
    def score(self, item: Item, answer: Answer, trace: Trace) -> Verdict:
        recognized = recognize(answer.label or answer.raw)
        private = item.private
        score = rubric_score(recognized.key, private["axis"], private["pole"], private["variant"])
        detail: dict[str, Any] = {
            "judge": JUDGE_LABEL,
            "scores": {"offline": score},
            "recognised": recognized.how,
            "predicted": _describe(recognized.key),
        }
        if trace.memories:
            detail["retrieved"] = retrieved_ids(trace.memories)
        reason = (
            "" if passes(score) else f"{score}: {RUBRIC[score]}; the held-out decision was to {private['behaviour']}"
        )
        return Verdict(correct=passes(score), score=float(score), reason=reason, detail=detail)


def _describe(key: Key | None) -> str | None:
    if key is None:
        return None
    axis, pole = AXES[key[0]], AXES[key[0]].poles[key[1]]
    return f"{axis.key}: {pole.variants[key[2]] if key[2] >= 0 else pole.label}"
