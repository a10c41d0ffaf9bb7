"""HaluMem's scoring rules, as eval/evaluation.py and eval/llms.py apply them (MemTensor/HaluMem).

What the judges are shown:
- integrity (recall): the session's extracted memories joined by newlines, and one gold
  memory point; an empty extraction is scored 0 without asking a judge (for an interference
  point that is a success: the distractor was not stored);
- accuracy (precision): the session's dialogue, one line `[timestamp]role: content` per message
  and an empty line after every assistant message, the session's gold points that are not
  interference, and one extracted memory;
- update: what the probe retrieved (the gold updated memory as the query), the updated memory
  and its original memories; a point is an update item when `is_update` is the string "True"
  and the probe returned something, else an integrity item;
- question answering: the question, the reference answer, the evidence memory points and the
  system's response.

What is read of a judge's reply: a fenced ```json block, mandatory (plain JSON is no verdict),
its object parsed as JSON; then `int(score)` (integrity), `int(accuracy_score)` and
`is_included_in_golden_memories` (accuracy: a memory is a target only where that is the string
"true" or "True", so a JSON `true` is not; a failed parse leaves it "false"), and
`evaluation_result` (update: one of Correct, Hallucination, Omission, Other; QA: Correct,
Hallucination, Omission, compared exactly). A reply that cannot be read is no score, and the
item counts in the (all) denominators but not in the (valid) ones.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from .released import MemoryPoint, Turn

#: the official parser's pattern (llms.py, llm_request_for_json)
JSON_BLOCK = re.compile(r"```json\s*(\{.*?\})\s*```", re.DOTALL)
UPDATE_LABELS = ("Correct", "Hallucination", "Omission", "Other")
QA_LABELS = ("Correct", "Hallucination", "Omission")
TARGET = ("true", "True")


class UnreadableReply(ValueError):
    """A judge's reply without a ```json block, or whose block is not JSON."""


def reply_object(content: str | None) -> dict[str, Any]:
    """The object in the reply's ```json block, as the official parser reads it."""
    found = JSON_BLOCK.search(content or "")
    if found is None:
        raise UnreadableReply("no ```json block in the reply")
    try:
        value = json.loads(found.group(1).strip())
    except ValueError as exc:
        raise UnreadableReply(f"the ```json block is not JSON ({exc})") from None
    if not isinstance(value, dict):  # the pattern only matches braces, but a list could never be read
        raise UnreadableReply("the ```json block is not an object")
    return value


def as_int(value: Any) -> int | None:
    """Python's `int(value)`, None where it raises (the official `int(result.get(...))`
    inside a try: "2" and 2.9 read as 2, True as 1, "2.0" and "2|1|0" as nothing)."""
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return None


def integrity_score(reply: dict[str, Any]) -> int | None:
    return as_int(reply.get("score"))


def accuracy_result(reply: dict[str, Any]) -> tuple[int | None, bool, str]:
    """(accuracy score, whether the memory is a target, is_included as text); a score that
    cannot be read leaves the memory outside the targets, as the official except-branch does."""
    score = as_int(reply.get("accuracy_score"))
    if score is None:
        return None, False, "false"
    included = reply.get("is_included_in_golden_memories", "false")
    return score, is_target(included), json_text(included)


def label_of(reply: dict[str, Any]) -> str | None:
    """`evaluation_result` as its text (valid or not; None where absent)."""
    value = reply.get("evaluation_result")
    return None if value is None else json_text(value)


def json_text(value: Any) -> str:
    """A JSON value as text: a string as it is, anything else as JSON (so `true` stays
    distinct from "true")."""
    return value if isinstance(value, str) else json.dumps(value)


def is_target(included: Any) -> bool:
    """`included in ["true", "True"]`: the strings only (a JSON `true` is no target)."""
    return isinstance(included, str) and included in TARGET


def valid_label(label: str | None, labels: Sequence[str]) -> bool:
    return label is not None and label in labels


def routes_to_update(point: MemoryPoint, probe: Sequence[str] | None) -> bool:
    """evaluation.py's routing: an update item, else an integrity item."""
    return point.is_update == "True" and bool(probe)


def memories_text(memories: Iterable[str]) -> str:
    return "\n".join(memories)


def is_empty_extraction(extracted: str) -> bool:
    return extracted.strip() == ""


def dialogue_text(turns: Iterable[Turn]) -> str:
    lines = []
    for turn in turns:
        lines.append(f"[{turn.timestamp}]{turn.role}: {turn.content}")
        if turn.role == "assistant":
            lines.append("")
    return "\n".join(lines)


def golden_text(points: Iterable[MemoryPoint]) -> str:
    return "\n".join(p.content for p in points if not p.interference)


def f1(precision: float, recall: float) -> float:
    """The official compute_f1: 0 where both are 0."""
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
