"""Judging a record's stored answer again, with other judges (`python -m pytest_memeval
rejudge`) or against a corrected gold (errata): the record a run would have made had its
judge been that one, from what the record keeps (docs/judges.md says what it cannot keep).
"""

from __future__ import annotations

from dataclasses import replace as replace_dataclass
from typing import Any

from msgspec.structs import replace

from ..errors import ConfigError
from ..framework.suite import Suite
from ..llm.repetition import repeat_scope
from ..llm.tally import tallying
from ..protocols import Judge
from ..results.records import ANSWER_CHARS, Record, kept_text
from ..types import Answer, Gold, Trace
from .evaluation import error_message
from .runner import error_record, judged


class Keep:
    """The item's own gold (`rejudged`'s default)."""


KEEP = Keep()


def rejudged(record: Record, suite: Suite, judge: Judge, judge_name: str, gold: Gold | Keep = KEEP) -> Record:
    """The record as `judge` (named `judge_name`) grades its answer: against the item's gold,
    or against `gold` (an erratum's correction)."""
    key = replace(record.key, judge=judge_name)
    if not record.is_scored:
        return replace(record, key=key)
    answer = whole_answer(record)
    tokens = {phase: models for phase, models in record.llm_tokens.items() if phase != "judge"}
    if answer is None:
        message = (
            f"{record.id}: the record keeps {ANSWER_CHARS:,} characters of a longer answer, "
            "which a judge does not grade from its beginning: not re-judged"
        )
        return _error(record, key, message, tokens)
    item = suite.item(record.id)
    if item.view.question != record.question:
        raise ConfigError(
            f"item {record.id} asks {item.view.question[:80]!r} here, {record.question[:80]!r} in the "
            "report: the suite's data differ from the run's (give its copy with --memeval-data=DIR)"
        )
    if not isinstance(gold, Keep):
        item = replace_dataclass(item, gold=gold)
    with tallying() as tally, repeat_scope(record.repeat):
        try:
            verdict, judge_ms = judged(judge, item, answer, Trace())
        except Exception as exc:
            return _error(record, key, error_message(record.id, exc), tokens | tally.tokens())
    detail = dict(verdict.detail)
    for name in suite.trace_detail:  # what the run's trace decided: a report holds no trace
        if name in record.detail:
            detail[name] = record.detail[name]
        else:
            detail.pop(name, None)
    return replace(
        record,
        key=key,
        correct=verdict.correct,
        score=verdict.score,
        detail=detail,
        stage=verdict.stage,
        judge_reason=kept_text(verdict.reason, ANSWER_CHARS),
        judge_ms=judge_ms,
        llm_tokens=tokens | tally.tokens(),
    )


def whole_answer(record: Record) -> Answer | None:
    """The record's answer as the response model gave it; None when the record keeps only
    its beginning (`kept_text`)."""
    label = record.answer
    if label is not None and len(label) > ANSWER_CHARS and label.endswith(" characters in all]"):
        return None
    return Answer(
        label=label,
        abstained=record.abstained,
        detail=dict(record.answer_detail),
        memory_unreadable=record.memory_unreadable,
    )


def _error(record: Record, key: Any, message: str, tokens: Any) -> Record:
    failed = error_record(key, record.suite_ref, record.id, message)
    return replace(
        failed,
        context=record.context,
        cluster=record.cluster,
        task=record.task,
        strata=record.strata,
        gold=record.gold,
        question=record.question,
        repeat=record.repeat,
        llm_tokens=tokens,
    )
