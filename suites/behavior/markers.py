"""Markers of the behavior suite: condition, ingestion, category and kind of situation."""

from __future__ import annotations

from .conditions import CONDITIONS, Condition
from .episodes import Question
from .lexicon import CATEGORIES

PREFIX = "behavior_"


def marker_descriptions() -> dict[str, str]:
    markers = {f"{PREFIX}{key}": f"behavior condition {key}: {c.title}" for key, c in CONDITIONS.items()}
    markers.update(
        {
            f"{PREFIX}direct": "behavior: a direct condition (context in the view, the memory system is not asked)",
            f"{PREFIX}controlled": "behavior: the memory system holds the subject's facts, one per write",
            f"{PREFIX}native": "behavior: the memory system ingested the raw training corpus its own way",
            f"{PREFIX}with_spec": "behavior: the subject's own Behavioral Specification is served",
            f"{PREFIX}wrong_spec": "behavior: another subject's Behavioral Specification is served",
            f"{PREFIX}two_principles": "behavior: the situation puts two principles at stake (the stronger decides)",
            f"{PREFIX}exception": "behavior: the held-out decision goes against the subject's own principle",
            f"{PREFIX}released": "behavior: a real subject of the authors' release (--memeval-data=<beyond-recall checkout>)",
        }
    )
    markers.update({f"{PREFIX}{category}": f"behavior question category {category}" for category in CATEGORIES})
    return markers


def item_marks(condition: Condition, question: Question) -> tuple[str, ...]:
    marks = [f"{PREFIX}{condition.key}", f"{PREFIX}{condition.ingestion}", f"{PREFIX}{question.category}"]
    if condition.spec == "own":
        marks.append(f"{PREFIX}with_spec")
    elif condition.spec is not None:
        marks.append(f"{PREFIX}wrong_spec")
    if question.situation.complication is not None:
        marks.append(f"{PREFIX}two_principles")
    if question.exception:
        marks.append(f"{PREFIX}exception")
    return tuple(marks)
