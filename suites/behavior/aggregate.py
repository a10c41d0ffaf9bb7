"""The locked aggregation of the paper (section 3.3.5): questions -> judges -> subjects.

For each (subject, condition) every judge's scores are averaged over the questions that
judge scored; those per-judge means are averaged over the judges; subjects are the unit
every test compares. A question's own score (for per-question shifts and anchor bands)
is the mean of its judges' scores. A judge's parse failure is missing, never a score.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pytest_memeval.results.records import Record


@dataclass(frozen=True)
class Scored:
    subject: str
    question: str
    condition: str
    category: str
    #: judge name -> score, None for a parse failure
    judges: Mapping[str, float | None]
    #: digests of the retrieved memories (memory conditions)
    retrieved: tuple[str, ...] = ()


def scored(records: Iterable[Record]) -> list[Scored]:
    out = []
    for record in records:
        detail = record.detail
        judges = detail.get("scores")
        if not judges:
            if record.score is None:
                continue
            judges = {"judge": float(record.score)}
        strata = record.strata
        out.append(
            Scored(
                subject=record.cluster,
                question=strata["question"],
                condition=strata["condition"],
                category=strata["category"],
                judges={name: None if s is None else float(s) for name, s in judges.items()},
                retrieved=tuple(detail.get("retrieved") or ()),
            )
        )
    return out


def conditions(items: Sequence[Scored]) -> list[str]:
    return sorted({s.condition for s in items})


def question_scores(items: Sequence[Scored], condition: str) -> dict[tuple[str, str], float]:
    """(subject, question) -> mean over the judges that scored it."""
    out = {}
    for s in items:
        if s.condition == condition:
            valid = [v for v in s.judges.values() if v is not None]
            if valid:
                out[(s.subject, s.question)] = statistics.fmean(valid)
    return out


def subject_scores(items: Sequence[Scored], condition: str) -> dict[str, float]:
    """subject -> mean over judges of the judge's mean over questions (the locked rule)."""
    per_judge: dict[str, dict[str, list[float]]] = {}
    for s in items:
        if s.condition != condition:
            continue
        for judge, value in s.judges.items():
            if value is not None:
                per_judge.setdefault(s.subject, {}).setdefault(judge, []).append(value)
    return {
        subject: statistics.fmean(statistics.fmean(values) for values in judges.values())
        for subject, judges in sorted(per_judge.items())
    }


def judge_matrix(items: Sequence[Scored]) -> tuple[list[str], list[list[float]]]:
    """Judges and a units x judges matrix of scores (nan where a judge failed to parse)."""
    judges = sorted({j for s in items for j in s.judges})
    rows = [[_or_nan(s.judges.get(j)) for j in judges] for s in items]
    return judges, rows


def _or_nan(score: float | None) -> float:
    return float("nan") if score is None else float(score)
