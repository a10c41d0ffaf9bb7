"""Metrics of one run as eval/evaluation.py's aggregate_eval_results computes them, pooled over
the run's items, with intervals that resample users.

Every metric is a ratio of sums over records (the official formulas), each in an (all) form,
over every item of its stage, and a `_valid` form, over the items whose judge reply could be
read (evaluation.py's "(valid)"):
- recall: target points scored 2; weighted_recall: the sum of 0.5 x score x importance over
  the sum of importance; interference_accuracy: interference points scored 0;
- target_accuracy: the mean of 0.5 x accuracy score over the extracted memories judged
  targets; weighted_accuracy: the same over every extracted memory (no weights, as named);
- extraction_f1: 2PR/(P+R) of target_accuracy and recall (0 where both are 0);
- update_correct, update_hallucination, update_omission, update_other: the labels' shares of
  the update items; qa_correct, qa_hallucination, qa_omission: of the questions.
A metric without items (no interference point in the run, say) is n/a, where the official
script divides by zero. Items whose extraction is n/a (the memory system's dump() returns
None) count nowhere, and the note says so. The breakdown gives the official memory-type
accuracy (integrity and update, over the points with an importance) and the QA shares per
question type. Intervals: percentile bootstrap over users (every item of a user is one
cluster); paired comparisons resample the same users for both runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from pytest_memeval.results.records import Cell, Metric, PairedMetric, Record, SuiteSummary
from pytest_memeval.stats import bootstrap_cell, cluster_bootstrap, paired_cell, paired_cluster_bootstrap
from pytest_memeval.stats.estimators import GroupSums, ratio

from .released import MEMORY_TYPES
from .scoring import QA_LABELS, UPDATE_LABELS, valid_label

Estimator = Callable[[GroupSums], np.ndarray]
UPDATE_METRICS = tuple(f"update_{label.lower()}" for label in UPDATE_LABELS)
QA_METRICS = tuple(f"qa_{label.lower()}" for label in QA_LABELS)
BASE_METRICS = (
    "qa_correct",
    "recall",
    "weighted_recall",
    "interference_accuracy",
    "target_accuracy",
    "weighted_accuracy",
    "extraction_f1",
    *UPDATE_METRICS,
    *QA_METRICS[1:],
)
METRIC_NAMES = (*BASE_METRICS, *(f"{name}_valid" for name in BASE_METRICS if name != "extraction_f1"))
LOWER_IS_BETTER = frozenset(
    name for name in METRIC_NAMES if any(bad in name for bad in ("hallucination", "omission", "other"))
)
#: metric -> (numerator column, denominator column of (all), of (valid))
RATIOS: dict[str, tuple[str, str, str]] = {
    "recall": ("i_full", "i_n", "i_valid"),
    "weighted_recall": ("i_wscore", "i_w", "i_wvalid"),
    "interference_accuracy": ("f_zero", "f_n", "f_valid"),
    "target_accuracy": ("t_sum", "t_n", "t_valid"),
    "weighted_accuracy": ("a_sum", "a_n", "a_valid"),
    **{f"update_{label.lower()}": (f"u_{label}", "u_n", "u_valid") for label in UPDATE_LABELS},
    **{f"qa_{label.lower()}": (f"q_{label}", "q_n", "q_valid") for label in QA_LABELS},
}
COLUMNS = tuple(dict.fromkeys(c for columns in RATIOS.values() for c in columns))


def row(record: Record) -> dict[str, float]:
    """One record's part of every sum (zeros where it has none)."""
    out = dict.fromkeys(COLUMNS, 0.0)
    d = record.detail
    stage = d.get("scored_as")
    if d.get("na"):
        return out
    if stage == "integrity":
        score, weight = d.get("score"), float(d.get("importance") or 0.0)
        out.update(i_n=1.0, i_w=weight)
        if score is not None:
            out.update(i_valid=1.0, i_full=float(score == 2), i_wvalid=weight, i_wscore=0.5 * score * weight)
    elif stage == "interference":
        score = d.get("score")
        out.update(f_n=1.0, f_valid=float(score is not None), f_zero=float(score == 0))
    elif stage == "accuracy":
        for memory in d.get("memories", ()):
            score = memory.get("score")
            out["a_n"] += 1.0
            out["t_n"] += float(bool(memory.get("target")))
            if score is not None:
                out["a_valid"] += 1.0
                out["a_sum"] += 0.5 * score
                if memory.get("target"):
                    out["t_valid"] += 1.0
                    out["t_sum"] += 0.5 * score
    elif stage in ("update", "qa"):
        prefix, labels = ("u", UPDATE_LABELS) if stage == "update" else ("q", QA_LABELS)
        label = d.get("label")
        out[f"{prefix}_n"] = 1.0
        if valid_label(label, labels):
            out[f"{prefix}_valid"] = 1.0
            out[f"{prefix}_{label}"] = 1.0
    return out


def estimators() -> dict[str, Estimator]:
    def share(num: str, den: str) -> Estimator:
        return lambda s: ratio(s[num].sum(-1), s[den].sum(-1))

    out: dict[str, Estimator] = {}
    for name, (num, all_den, valid_den) in RATIOS.items():
        out[name] = share(num, all_den)
        out[f"{name}_valid"] = share(num, valid_den)

    def f1(s: GroupSums) -> np.ndarray:
        precision = ratio(s["t_sum"].sum(-1), s["t_n"].sum(-1))
        recall = ratio(s["i_full"].sum(-1), s["i_n"].sum(-1))
        total = precision + recall
        return np.where(total == 0, 0.0, ratio(2 * precision * recall, total))

    out["extraction_f1"] = f1
    return {name: out[name] for name in METRIC_NAMES}


def columns(records: Sequence[Record]) -> dict[str, list[float]]:
    rows = [row(r) for r in records]
    return {name: [r[name] for r in rows] for name in COLUMNS}


def _counts(cols: Mapping[str, list[float]]) -> dict[str, int]:
    """Items behind each metric (what `n` reports)."""
    n = {name: int(sum(x > 0 for x in cols[den])) for name, (_, den, _) in RATIOS.items()}
    n.update({f"{name}_valid": int(sum(x > 0 for x in cols[valid])) for name, (_, _, valid) in RATIOS.items()})
    n["extraction_f1"] = n["recall"] + n["target_accuracy"]
    return n


def estimates(records: Sequence[Record], n_resamples: int, clustered: bool = True) -> dict[str, Metric]:
    if not records:
        return {}
    cols = columns(records)
    results = cluster_bootstrap(
        estimators(), cols, [r.cluster for r in records] if clustered else None, n_resamples=n_resamples, seed=0
    )
    n = _counts(cols)
    return {name: bootstrap_cell(result, n[name]) for name, result in results.items()}


def memory_type_cells(records: Sequence[Record], n_resamples: int) -> dict[str, Cell]:
    """evaluation.py's memory_type_accuracy: over integrity records with an importance (an
    unreadable score counts as not 2) and update records with one, per memory type; the two
    accuracies share the denominator, and memory_acc is their sum."""
    cells = {}
    for memory_type in MEMORY_TYPES:
        kept = [
            r
            for r in records
            if r.detail.get("memory_type") == memory_type
            and r.detail.get("importance") is not None
            and not r.detail.get("na")
            and r.detail.get("scored_as") in ("integrity", "interference", "update")
        ]
        if not kept:
            continue
        cols = {
            "integrity": [float(r.detail.get("scored_as") != "update" and r.detail.get("score") == 2) for r in kept],
            "update": [
                float(r.detail.get("scored_as") == "update" and r.detail.get("label") == "Correct") for r in kept
            ],
        }
        fns: dict[str, Estimator] = {
            "integrity_acc": lambda s: ratio(s["integrity"].sum(-1), s["n"].sum(-1)),
            "update_acc": lambda s: ratio(s["update"].sum(-1), s["n"].sum(-1)),
            "memory_acc": lambda s: ratio(s["integrity"].sum(-1) + s["update"].sum(-1), s["n"].sum(-1)),
        }
        results = cluster_bootstrap(fns, cols, [r.cluster for r in kept], n_resamples=n_resamples, seed=0)
        cells[memory_type] = Cell(len(kept), {name: bootstrap_cell(res, len(kept)) for name, res in results.items()})
    return cells


def question_type_cells(records: Sequence[Record], n_resamples: int) -> dict[str, Cell]:
    groups: dict[str, list[Record]] = {}
    for r in records:
        if r.detail.get("scored_as") == "qa":
            groups.setdefault(r.strata.get("question_type", ""), []).append(r)
    cells = {}
    for name, group in sorted(groups.items()):
        metrics = estimates(group, n_resamples)
        cells[name] = Cell(len(group), {m: metrics[m] for m in (*QA_METRICS, *(f"{q}_valid" for q in QA_METRICS))})
    return cells


def summarize(records: Sequence[Record], n_resamples: int) -> SuiteSummary:
    not_available = sum(bool(r.detail.get("na")) for r in records)
    notes = ["HaluMem's metrics as eval/evaluation.py pools them; _valid: over readable judge replies"]
    if not_available:
        notes.append(f"extraction n/a on {not_available} items: the memory system's dump() returns None")
    breakdown = {
        "memory_type": memory_type_cells(records, n_resamples),
        "question_type": question_type_cells(records, n_resamples),
    }
    extra: dict[str, Any] = {
        "scale": "shares 0-1; 95% bootstrap intervals resample users",
        "n_users": len({r.cluster for r in records}),
        "extraction_not_available": not_available,
    }
    return SuiteSummary(
        metrics=estimates(records, n_resamples),
        breakdown={k: v for k, v in breakdown.items() if v},
        note="; ".join(notes),
        extra=extra,
    )


def compare(a: Sequence[Record], b: Sequence[Record], n_resamples: int) -> Mapping[str, PairedMetric]:
    """Paired cluster bootstrap of a - b on the headline metrics, items aligned."""
    names = (
        "qa_correct",
        "qa_hallucination",
        "qa_omission",
        "recall",
        "target_accuracy",
        "extraction_f1",
        "update_correct",
    )
    chosen = {name: fn for name, fn in estimators().items() if name in names}
    results = paired_cluster_bootstrap(
        chosen, columns(a), columns(b), [r.cluster for r in a], n_resamples=n_resamples, seed=0
    )
    return {name: paired_cell(result, None) for name, result in results.items()}
