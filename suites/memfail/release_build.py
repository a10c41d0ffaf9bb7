"""The release's rows as a dataset build: the sessions of the shared store and the questions.

Storage follows the paper (§5.1): each unit (an essay, a preference statement, one fact of
a chain) is sent in its own conversation. The order is the release's evaluation scripts'
(`playground/*/evaluate_*.py`, seed 42 by default; `--memeval-seed` picks another):
essays are shuffled with `random.Random(seed)`; preference statements are shuffled as
(row, statement) pairs with the same generator; Long-Hop rows are shuffled with
`Random(seed)` and their facts, taken in that row order, with `Random(seed ^ 0xF1AC)`.
So at full size the store is filled in the order the paper's harness used. (The release's
Coexisting script packs 10 statements into a conversation by default; the paper's text and
its other scripts send one unit per conversation, which is what we do.)

Released items carry no critical spans: their facts name the text a memory must hold, and
only the staged LLM judge can tell whether a rewritten memory still holds it (`spans`:
False in the item's private part). Full size takes every row; smaller sizes the first rows
of each file (Long-Hop: of each hop count in turn, so that a small run still has every K).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache
from itertools import chain as concat
from itertools import zip_longest

from .condition_data import CONDITION_TYPES
from .datasets import rows as rows_at_size
from .model import DatasetBuild, Fact, Piece, Question
from .release_rows import CoexistingRow, ConditionalRow, LongHopRow, PersonaRow, Release

#: the stratum marking a Conditional-Facts row whose condition_met disagrees with its answer
GOLD_DISAGREES = "condition_met_disagrees"
RELEASED_DATASETS = ("cond_easy", "cond_hard", "coexisting", "persona", "longhop")
#: the Long-Hop script's second stream (its fact shuffle), as in the release
LONGHOP_FACT_STREAM = 0xF1AC
_KNOWN_CONDITIONS = frozenset(t.name for t in CONDITION_TYPES)
_MARKED = {"coexisting": range(2, 6), "longhop": range(1, 4)}


@lru_cache(maxsize=32)
def build_released(release: Release, seed: int, dataset: str, size: str) -> DatasetBuild:
    every = release.rows(dataset)
    rows = select(every, dataset, len(every) if size == "full" else rows_at_size(dataset, size))
    if dataset in ("cond_easy", "cond_hard"):
        return DatasetBuild(_essay_sessions(rows, seed), tuple(_conditional(dataset, row) for row in rows))
    if dataset == "coexisting":
        return DatasetBuild(_statement_sessions(rows, seed), tuple(_coexisting(row) for row in rows))
    if dataset == "persona":
        return DatasetBuild(_essay_sessions(rows, seed), tuple(q for row in rows for q in _persona(row)))
    return DatasetBuild(_fact_sessions(rows, seed), tuple(_longhop(row) for row in rows))


def select(rows: Sequence, dataset: str, n: int) -> tuple:
    """The first `n` rows (Long-Hop: the first of each hop count in turn), in file order."""
    if dataset != "longhop" or n >= len(rows):
        return tuple(rows[:n])
    by_hops: dict[int, list[LongHopRow]] = {}
    for row in rows:
        by_hops.setdefault(row.hops, []).append(row)
    interleaved = [row for group in zip_longest(*(by_hops[k] for k in sorted(by_hops))) for row in group if row]
    chosen = {row.number for row in interleaved[:n]}
    return tuple(row for row in rows if row.number in chosen)


def _essay_sessions(rows: Sequence[ConditionalRow | PersonaRow], seed: int) -> tuple[tuple[str, ...], ...]:
    order = list(range(len(rows)))
    random.Random(seed).shuffle(order)
    return tuple((essay,) for i in order for essay in rows[i].essays)


def _statement_sessions(rows: Sequence[CoexistingRow], seed: int) -> tuple[tuple[str, ...], ...]:
    pairs = [(i, statement) for i, row in enumerate(rows) for statement in row.statements]
    random.Random(seed).shuffle(pairs)
    return tuple((statement,) for _, statement in pairs)


def _fact_sessions(rows: Sequence[LongHopRow], seed: int) -> tuple[tuple[str, ...], ...]:
    shuffled_rows = list(rows)
    random.Random(seed).shuffle(shuffled_rows)
    facts = list(concat.from_iterable(row.facts for row in shuffled_rows))
    random.Random(seed ^ LONGHOP_FACT_STREAM).shuffle(facts)
    return tuple((fact,) for fact in facts)


def _fact(label: str, texts: Sequence[str]) -> Fact:
    return Fact(label, tuple(Piece(text, anchor=()) for text in texts))


def _conditional(dataset: str, row: ConditionalRow) -> Question:
    """The gold is what the row's ground_truth_answer says (the paper: condition_met describes
    the question's context, the answer is ground_truth_answer); a row whose condition_met
    disagrees is marked, and the run's summary names it."""
    met = "yes" if row.condition_met else "no"
    gold = "yes" if row.answer_yes else "no"
    marks = (
        "conditional_easy" if dataset == "cond_easy" else "conditional_hard",
        "targets_summary",
        *((f"cond_{row.condition_type}",) if row.condition_type in _KNOWN_CONDITIONS else ()),
        "condition_met" if row.condition_met else "condition_unmet",
    )
    strata = {
        "dataset": dataset,
        "target": "summary",
        "condition_type": row.condition_type,
        "condition_met": met,
        "entity": row.category,
        **({GOLD_DISAGREES: "yes"} if gold != met else {}),
    }
    rule = f"rule: {row.entity} {row.behavior}, {row.condition}"
    key = f"{row.number:03d}"
    return Question(
        row.number,
        key,
        row.question,
        gold,
        (_fact(rule, row.essays),),
        strata,
        marks,
        ("yes", "no"),
        key,
        grading=_grading(row.answer),
    )


def _coexisting(row: CoexistingRow) -> Question:
    n = len(row.preferences)
    facts = tuple(_fact(f"preference {p!r}", (s,)) for p, s in zip(row.preferences, row.statements))
    strata = {"dataset": "coexisting", "target": "storage+retrieval", "n_facts": str(n)}
    marks = ("coexisting", "targets_storage", "targets_retrieval", *_count_mark("coexisting", "facts", n))
    key = f"{row.number:03d}"
    return Question(
        row.number,
        key,
        row.question,
        list(row.preferences),
        facts,
        strata,
        marks,
        cluster_key=key,
        grading=_grading(row.answer),
    )


def _persona(row: PersonaRow) -> list[Question]:
    essay = _fact(f"essay about {row.entity}", row.essays)
    questions = []
    for index, q in enumerate(row.questions):
        misleading = q.distractor is not None
        strata = {
            "dataset": "persona",
            "target": "abstention" if misleading else "summary+storage",
            "misleading": "yes" if misleading else "no",
        }
        marks = (
            "persona_retrieval",
            "targets_abstention" if misleading else "targets_summary",
            "persona_misleading" if misleading else "persona_direct",
        )
        grading = {**_grading(q.answer), **({"distractor": q.distractor} if misleading else {"free_text_gold": True})}
        questions.append(
            Question(
                row.number,
                f"{row.number:03d}-q{index + 1}",
                q.text,
                q.answer,
                () if misleading else (essay,),
                strata,
                marks,
                cluster_key=f"{row.number:03d}",
                grading=grading,
            )
        )
    return questions


def _longhop(row: LongHopRow) -> Question:
    facts = tuple(_fact(f"hop {i + 1} of {len(row.facts)}", (text,)) for i, text in enumerate(row.facts))
    strata = {"dataset": "longhop", "target": "retrieval", "hops": str(row.hops)}
    marks = ("long_hop", "targets_retrieval", *_count_mark("longhop", "hops", row.hops))
    key = row.id.removeprefix("longhop-")
    return Question(
        row.number, key, row.stem, row.answer, facts, strata, marks, row.choices, key, grading=_grading(row.answer)
    )


def _count_mark(dataset: str, prefix: str, n: int) -> tuple[str, ...]:
    """facts_N / hops_K, for the counts the suite registers markers for."""
    return (f"{prefix}_{n}",) if n in _MARKED[dataset] else ()


def _grading(ground_truth: str) -> dict[str, object]:
    """The release's ground-truth text (what the LLM judge compares with) and no spans."""
    return {"ground_truth": ground_truth, "spans": False}
