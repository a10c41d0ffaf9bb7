"""Markers of the multisource suite: conditions and targeted failure modes (spec, Table 8)."""

from __future__ import annotations

from functools import cache

from .personas import DIFFICULTIES
from .questions import FAILURE_MODES, QUESTIONS, REASONING_TYPES, Question


def marker_descriptions() -> dict[str, str]:
    markers = {
        f"type_{letter}": f"multisource reasoning type {letter} ({name})" for letter, name in REASONING_TYPES.items()
    }
    markers.update({f"difficulty_{d}": f"multisource persona difficulty class {d}" for d in DIFFICULTIES})
    markers.update({f"topic_{q.topic}": f"question topic {q.topic}" for q in QUESTIONS.values()})
    markers.update(
        {f"window_{q.window_days}d": f"question about the last {q.window_days} days" for q in QUESTIONS.values()}
    )
    markers.update(
        {
            "answer_ordinal": "ordered answer scale",
            "answer_nominal": "unordered categorical answer space",
            "edge_label": "the true answer is an edge label (no_plans, no_baseline, ...), which is an answer, not a SKIP",
            "source_unreachable": "no source's direct readout equals the true answer",
        }
    )
    markers.update({f"fm_{name}": f"targeted failure mode: {text}" for name, text in FAILURE_MODES.items()})
    return markers


# a few hundred distinct tuples for 34,560 items at full size: each item shares one, where
# strings of its own took about 15 MiB of every process that indexes the suite
@cache
def question_marks(question: Question, difficulty: str, gold: str, unreachable: bool) -> tuple[str, ...]:
    marks = [
        f"type_{question.type_letter}",
        f"difficulty_{difficulty}",
        f"topic_{question.topic}",
        f"window_{question.window_days}d",
        f"answer_{question.scale}",
    ]
    if question.failure_mode:
        marks.append(f"fm_{question.failure_mode}")
    if gold in question.edge_options:
        marks.append("edge_label")
    if unreachable:
        marks.append("source_unreachable")
    return tuple(marks)
