"""The accuracy the authors report, per question type and per context length.

`accuracy` is the share of scored questions answered correctly (the mean of the official
results file's `score`), with a 95% Wilson interval at the design-effect-adjusted n, the
clusters being the personas (catalog.py). The breakdowns give the same per question type
(the paper's seven names) and per context length (when a run reads several files). The
official script leaves a question that failed (an API error) out of its results file; here
such a question is an error record, counted beside the accuracy, never in it.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_memeval.results.records import Cell, Metric, Record, SuiteSummary
from pytest_memeval.stats import clustered_wilson

from .catalog import OTHER_TYPE, QUESTION_TYPES
from .released import SIZES


def _accuracy(records: Sequence[Record]) -> Metric:
    return clustered_wilson([bool(r.correct) for r in records], [r.cluster for r in records])


def _cells(records: Sequence[Record], stratum: str, order: Sequence[str]) -> dict[str, Cell]:
    groups: dict[str, list[Record]] = {}
    for r in records:
        groups.setdefault(r.strata[stratum], []).append(r)
    return {name: Cell(len(groups[name]), {"accuracy": _accuracy(groups[name])}) for name in order if name in groups}


def summarize(records: Sequence[Record]) -> SuiteSummary:
    if not records:
        return SuiteSummary(metrics={})
    breakdown = {"question_type": _cells(records, "question_type", (*QUESTION_TYPES, OTHER_TYPE))}
    lengths = _cells(records, "context_length", SIZES)
    if len(lengths) > 1:
        breakdown["context_length"] = lengths
    notes = []
    if any(r.key.responder == "reader" for r in records):
        notes.append(
            "answered by the offline reader (option words found in the memories): a floor for retrieval, "
            "not PersonaMem's number, which a language model gives (--memeval-responder)"
        )
    return SuiteSummary(
        metrics={"accuracy": _accuracy(records)},
        breakdown=breakdown,
        note="; ".join(notes),
        extra={"question_types": {name: cell.n for name, cell in breakdown["question_type"].items()}},
    )
