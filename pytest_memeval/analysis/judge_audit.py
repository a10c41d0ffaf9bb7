"""--memeval-judge-audit N: how often a suite's LLM judges accept wrong answers and reject
right ones, on answers made from the gold, never from a model.

For the first N items of each LLM-judged suite (by id, among the run's scored records,
items whose gold reads as text), `probes` makes answers deterministically from the item's
gold, its question and the golds of the other items of its context:

    wrong      other        another item's gold from the same context (an entity, number
                            or date of the same conversation)
               negation     the gold, denied
               wrong_value  the gold with each number in it moved by one (a date, a count);
                            only where the gold holds a number
               evasive      an answer that names nothing
               everything   the gold among every other gold of its context
    correct    paraphrase   the gold, said in a sentence; the gold in lower case

Each judge of the panel grades each answer alone (its own verdict under the panel's detail,
or the verdict of a single judge); a reply that cannot be read counts in no rate and is
counted. Per judge: the false-accept rate (wrong answers it called correct) and the
false-reject rate (correct ones it called wrong), each with its Wilson interval, and the
false-accept rate per kind of wrong answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from msgspec.structs import replace

from ..errors import MemevalError
from ..framework.suite import Suite
from ..protocols import Judge
from ..results.records import DETERMINISTIC, JudgeAudit, JudgeCalibration, Metric, Record
from ..types import Answer, Item, Trace
from .judge_sensitivity import detail_verdicts
from .session_report import SessionReport

WRONG = ("other", "negation", "wrong_value", "evasive", "everything")
CORRECT = ("paraphrase", "lowercase")
#: golds of the item's context read for the wrong answers
CONTEXT_GOLDS = 20
_NUMBER = re.compile(r"\d+")


@dataclass(frozen=True)
class Probe:
    item: str
    kind: str
    text: str

    @property
    def wrong(self) -> bool:
        return self.kind in WRONG


def gold_text(item: Item) -> str | None:
    """The gold as an answer would say it; None for a gold that is not a word, number or date."""
    gold = item.gold
    if isinstance(gold, bool) or not isinstance(gold, (str, int, float)):
        return None
    text = str(gold).strip()
    return text or None


def probes(item: Item, others: Sequence[str]) -> list[Probe]:
    """The made-up answers for `item`, whose context's other golds are `others`."""
    gold = gold_text(item)
    if gold is None:
        return []
    different = [o for o in dict.fromkeys(others) if o.lower() != gold.lower() and gold.lower() not in o.lower()]
    made = {
        "negation": f"No, it was not {gold}.",
        "evasive": "I am not sure; it could have been any number of things.",
    }
    if different:
        made["other"] = different[0]
        made["everything"] = ", ".join(sorted([gold, *different[:5]]))
    if _NUMBER.search(gold):
        made["wrong_value"] = _NUMBER.sub(lambda m: str(int(m.group()) + 1).zfill(len(m.group())), gold)
    made["paraphrase"] = f"From what we talked about, I believe it was {gold}."
    if gold.lower() != gold:
        made["lowercase"] = gold.lower()
    return [Probe(item.id, kind, made[kind]) for kind in (*WRONG, *CORRECT) if kind in made]


def audit_items(records: Sequence[Record], suite: Suite, n: int) -> list[Item]:
    """The first `n` items (by id) of the suite's scored records whose gold reads as text."""
    chosen: list[Item] = []
    for item_id in sorted({r.id for r in records if r.is_scored}):
        if len(chosen) == n:
            break
        item = suite.item(item_id)
        if gold_text(item) is not None:
            chosen.append(item)
    return chosen


def context_golds(suite: Suite, item: Item) -> list[str]:
    """The golds of the first items of the item's context, as text (the item's own aside)."""
    golds: list[str] = []
    for entry in suite.index():
        if len(golds) == CONTEXT_GOLDS:
            break
        if entry.context_id == item.context_id and entry.id != item.id:
            text = gold_text(suite.item(entry.id))
            golds += [text] if text is not None else []
    return golds


def judge_audit(suite: Suite, judge: Judge, judge_name: str, items: Sequence[Item]) -> JudgeAudit:
    """Each judge's false-accept and false-reject rates on the probes of `items`."""
    made = [(item, probe) for item in items for probe in probes(item, context_golds(suite, item))]
    said: dict[str, list[tuple[Probe, bool]]] = {}
    unjudged = 0
    for item, probe in made:
        verdicts = _verdicts(judge, judge_name, item, probe)
        if verdicts is None:
            unjudged += 1
            continue
        for name, correct in verdicts.items():
            said.setdefault(name, []).append((probe, correct))
    return JudgeAudit(
        suite.name,
        len(items),
        len(made),
        tuple(calibration(name, rows) for name, rows in said.items()),
        unjudged,
    )


def _verdicts(judge: Judge, judge_name: str, item: Item, probe: Probe) -> dict[str, bool] | None:
    """Each judge's yes/no on the probe; None when no judge gave a readable one."""
    try:
        verdict = judge.score(item, Answer(label=probe.text), Trace())
    except MemevalError:  # an unreadable reply, a transport failure: counted, never a verdict
        return None
    panel = {name: v for name, v in detail_verdicts(verdict.detail).items() if v is not None}
    if panel:
        return panel
    return None if verdict.correct is None else {judge_name: verdict.correct}


def calibration(name: str, rows: Sequence[tuple[Probe, bool]]) -> JudgeCalibration:
    wrong = [accepted for probe, accepted in rows if probe.wrong]
    right = [accepted for probe, accepted in rows if not probe.wrong]
    by_kind = {
        kind: rate(sum(accepted), len(accepted))
        for kind in WRONG
        if (accepted := [a for probe, a in rows if probe.kind == kind])
    }
    return JudgeCalibration(name, rate(sum(wrong), len(wrong)), rate(len(right) - sum(right), len(right)), by_kind)


def rate(k: int, n: int) -> Metric:
    """k of n with its Wilson interval; no value where n is 0."""
    if n == 0:
        return Metric(None, n=0, no_interval="no answers of this kind")
    from ..stats.intervals import wilson_interval

    return Metric(k / n, wilson_interval(k, n), n)


def with_judge_audit(
    session: SessionReport,
    n: int,
    suite: Callable[[str], Suite],
    judge_of: Callable[[Suite], Judge],
    judge_name: Callable[[Suite], str],
) -> SessionReport:
    """`session` with an audit of each suite graded by an LLM judge, on its first `n` items."""
    by_suite: dict[str, list[Record]] = {}
    for record in session.report.records:
        by_suite.setdefault(record.suite_ref, []).append(record)
    audits = []
    for ref, records in by_suite.items():
        definition = suite(ref)
        name = judge_name(definition)
        if name != DETERMINISTIC:
            audits.append(judge_audit(definition, judge_of(definition), name, audit_items(records, definition, n)))
    session.report = replace(session.report, judge_audits=tuple(audits))
    return session
