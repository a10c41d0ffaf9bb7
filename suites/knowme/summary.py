"""Metrics of one run on the paper's 0-100 scale, with bootstrap CIs clustered by life.

Two families of metrics, never under each other's names:

- the paper's (Table 2): `t1_extraction` ... `t7_principle` and `level_i|ii|iii`, only for
  tasks graded by the LLM judge on the paper's rubrics (`--memeval-judge`);
- our deterministic diagnostics, always: `t1_entity_f1`, `t2_abstain_exact`,
  `t3_value_bands`, `t4_rank_bands`, `t5_cue_bands`, `t6_coverage`, `t7_coverage` and
  `level_i|ii|iii_diag`. A diagnostic fed by an approximate scorer (the offline stand-in
  for the rubric judge, or prose golds of released data) carries the suffix `_approx`, and
  its breakdown cell " (approx)", so no line shows it as if it were the paper's judge.

A task's score is the mean of its items' scores; a level's is the mean of its tasks'. T1
and T2 sit side by side with their harmonic mean (`t1_t2_balance`, of the judge's scores
when judged): an answerer that always abstains wins T2 and scores 0 there, as does one
that never abstains. `over_abstention` is the share of answerable items abstained on.
Evidence recall is a diagnostic of the memory system (share of evidence units retrieved).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from pytest_memeval.results.records import Cell, PairedMetric, Record, SuiteSummary
from pytest_memeval.results.records import Metric as MetricValue
from pytest_memeval.stats import (
    bootstrap_cell,
    cluster_bootstrap,
    minimum_detectable_effect,
    paired_cell,
    paired_cluster_bootstrap,
)
from pytest_memeval.stats.estimators import mean_over_groups, ratio

from .judge import SCORERS
from .tasks import LEVEL_DIAGNOSTICS, LEVEL_METRICS, LEVELS, TASKS

Metric = Callable[[Mapping[str, np.ndarray]], np.ndarray]
APPROX = "_approx"
JUDGED = "rubric_llm"


def _detail(record: Record) -> Mapping[str, Any]:
    return record.detail


def _diagnostic(record: Record) -> Mapping[str, Any]:
    """The record's diagnostic verdict: beside the judge's, or the record's own when not judged."""
    return _detail(record).get("diagnostic") or _detail(record)


def judged_tasks(records: Sequence[Record]) -> set[str]:
    """Tasks whose every record the rubric judge graded."""
    by_task: dict[str, bool] = {}
    for r in records:
        task = r.strata["task"]
        by_task[task] = by_task.get(task, True) and _detail(r).get("scorer") == JUDGED
    return {task for task, judged in by_task.items() if judged}


def approximate_tasks(records: Sequence[Record]) -> set[str]:
    """Tasks with a diagnostic from an approximate scorer."""
    return {r.strata["task"] for r in records if _diagnostic(r).get("approximate")}


def task_metric_name(task: str, approx: set[str]) -> str:
    """The diagnostic metric of a task."""
    return TASKS[task].diagnostic + (APPROX if task in approx else "")


def level_metric_name(level: str, approx: set[str]) -> str:
    """The diagnostic metric of a level."""
    return LEVEL_DIAGNOSTICS[level] + (APPROX if approx.intersection(LEVELS[level]) else "")


def _score(record: Record) -> float:
    if record.score is None:
        raise ValueError(f"knowme record {record.id} is scored but has no score")
    return float(record.score)


def _columns(records: Sequence[Record]) -> dict[str, list[float]]:
    recall = [_detail(r).get("evidence_recall") for r in records]
    answerable = [r.strata["task"] != "T2" for r in records]
    return {
        "score": [_score(r) for r in records],
        "diagnostic": [float(_diagnostic(r).get("score", r.score)) for r in records],
        "answerable": [float(a) for a in answerable],
        "abstained_answerable": [float(a and bool(r.abstained)) for a, r in zip(answerable, records)],
        "recall": [0.0 if x is None else 100.0 * x for x in recall],
        "has_recall": [float(x is not None) for x in recall],
    }


def _metrics(tasks: Sequence[str], judged: set[str], approx: set[str], extras: bool) -> dict[str, Metric]:
    """Metrics over per-task group sums; `tasks` are the group codes in sorted order."""
    index = {t: i for i, t in enumerate(tasks)}

    def task_mean(task: str, column: str) -> Metric:
        return lambda s: ratio(s[column][:, index[task]], s["n"][:, index[task]])

    def level_mean(level: str, column: str) -> Metric:
        present = [index[t] for t in LEVELS[level] if t in index]
        return lambda s: mean_over_groups(ratio(s[column][:, present], s["n"][:, present]))

    def balance(s: Mapping[str, np.ndarray]) -> np.ndarray:
        a, b = task_mean("T1", "score")(s), task_mean("T2", "score")(s)
        return np.where(a + b > 0, ratio(2 * a * b, a + b), np.where(np.isnan(a + b), np.nan, 0.0))

    def levels_present(level: str) -> list[str]:
        return [t for t in LEVELS[level] if t in index]

    metrics: dict[str, Metric] = {}
    for task in TASKS:
        if task in index and task in judged:
            metrics[TASKS[task].metric] = task_mean(task, "score")
        if task == "T2" and {"T1", "T2"} <= index.keys():
            metrics["t1_t2_balance"] = balance
    if extras:
        metrics["over_abstention"] = lambda s: 100 * ratio(s["abstained_answerable"].sum(-1), s["answerable"].sum(-1))
    for level in LEVELS:
        if levels_present(level) and judged.issuperset(levels_present(level)):
            metrics[LEVEL_METRICS[level]] = level_mean(level, "score")
    for task in TASKS:
        if task in index:
            metrics[task_metric_name(task, approx)] = task_mean(task, "diagnostic")
    for level in LEVELS:
        if levels_present(level):
            metrics[level_metric_name(level, approx)] = level_mean(level, "diagnostic")
    if extras:
        metrics["evidence_recall"] = lambda s: ratio(s["recall"].sum(-1), s["has_recall"].sum(-1))
    return metrics


def _bootstrap(
    records: Sequence[Record],
    metrics_of: Callable[[Sequence[str]], dict[str, Metric]],
    n_resamples: int,
    clustered: bool = True,
) -> dict[str, MetricValue]:
    tasks = sorted({r.strata["task"] for r in records})
    results = cluster_bootstrap(
        metrics_of(tasks),
        _columns(records),
        [r.cluster for r in records] if clustered else None,
        [r.strata["task"] for r in records],
        n_resamples=n_resamples,
        seed=0,
    )
    return {name: bootstrap_cell(result, len(records)) for name, result in results.items()}


def summarize(records: Sequence[Record], n_resamples: int) -> SuiteSummary:
    judged, approx = judged_tasks(records), approximate_tasks(records)
    shown_approx = approx - judged  # where the primary score (the cell's "score") is approximate
    head = _bootstrap(records, lambda tasks: _metrics(tasks, judged, approx, extras=True), n_resamples)

    def cells(
        key: Callable[[Record], str | None],
        metrics_of: Callable[[Sequence[str]], dict[str, Metric]],
        clustered: bool = True,
        label: Callable[[str], str] = str,
    ) -> dict[str, Cell]:
        groups: dict[str, list[Record]] = {}
        for r in records:
            value = key(r)
            if value is not None:
                groups.setdefault(value, []).append(r)
        return {
            label(v): Cell(len(g), _bootstrap(g, metrics_of, n_resamples, clustered)) for v, g in sorted(groups.items())
        }

    score_and_recall = lambda tasks: {  # noqa: E731
        "score": lambda s: ratio(s["score"].sum(-1), s["n"].sum(-1)),
        "evidence_recall": lambda s: ratio(s["recall"].sum(-1), s["has_recall"].sum(-1)),
    }
    levels_only = lambda tasks: {  # noqa: E731
        k: v for k, v in _metrics(tasks, judged, approx, extras=False).items() if k.startswith("level_")
    }
    # the first level metric is the judge's when judged, else the diagnostic
    level_score = lambda tasks: {"score": next(iter(levels_only(tasks).values()))}  # noqa: E731
    strata = lambda name: lambda r: r.strata.get(name)  # noqa: E731
    in_task = lambda task, name: lambda r: r.strata.get(name) if r.strata["task"] == task else None  # noqa: E731
    breakdown = {
        "task": cells(strata("task"), score_and_recall, label=lambda t: f"{t} (approx)" if t in shown_approx else t),
        "level": cells(
            strata("level"),
            level_score,
            label=lambda lv: f"{lv} (approx)" if shown_approx.intersection(LEVELS[lv]) else lv,
        ),
        "dataset": cells(strata("dataset"), levels_only),
        # one life is one cluster: its interval resamples the life's items
        "life": cells(strata("life"), levels_only, clustered=False),
        "trap": cells(in_task("T2", "trap"), score_and_recall),
        "temporal_kind": cells(in_task("T3", "kind"), score_and_recall),
        "flashback": cells(
            lambda r: (
                f"{r.strata['task']} {'flashback' if r.strata['flashback'] == 'yes' else 'plain'}"
                if r.strata["task"] in ("T3", "T5")
                else None
            ),
            score_and_recall,
        ),
        "update_paradox": cells(in_task("T3", "update_paradox"), score_and_recall),
    }
    approximate = sorted(name for name in head if name.endswith(APPROX))
    templates = sorted({str(_detail(r)["rubric_template"]) for r in records if _detail(r).get("rubric_template")})
    extra: dict[str, Any] = {
        "scale": "0-100 (the paper's tables); bootstrap 95% CIs resample lives",
        "approximate": approximate,
        "scorers": _scorers(records),
        "n_lives": len({r.cluster for r in records}),
    }
    if templates:
        extra["rubric_templates"] = templates
    return SuiteSummary(
        metrics=head,
        breakdown={name: value for name, value in breakdown.items() if value},
        note="; ".join(_notes(records, judged, approximate, templates)),
        extra=extra,
    )


def _notes(
    records: Sequence[Record], judged: set[str], approximate: Sequence[str], templates: Sequence[str]
) -> list[str]:
    tasks = {r.strata["task"] for r in records}
    diagnostics = [TASKS[t].diagnostic for t in sorted(tasks)]
    notes = []
    if judged:
        paper = [TASKS[t].metric for t in sorted(judged)]
        notes.append(
            f"{', '.join(paper)} (and level_*) are the paper's metric: the LLM judge on the paper's 0-5 rubrics, "
            f"x20 (templates {', '.join(templates)})"
        )
    if tasks:
        notes.append(
            f"{', '.join(diagnostics)} (and level_*_diag) are our deterministic diagnostics, not the paper's metric"
            + ("" if judged else "; --memeval-judge=openai:MODEL grades all seven tasks as the paper does")
        )
    if approximate:
        notes.append(
            f"approximate: {', '.join(approximate)} come from an offline stand-in (coverage of the gold's core "
            "elements or prose)"
        )
    return notes


def _scorers(records: Sequence[Record]) -> dict[str, dict[str, str]]:
    """Which scorer graded each task's items (and which diagnostic scorers ran beside the judge), described."""
    used: dict[str, set[str]] = {}
    for r in records:
        names = used.setdefault(r.strata["task"], set())
        names.add(_detail(r).get("scorer", "unknown"))
        names.add(_diagnostic(r).get("scorer", "unknown"))
    return {task: {name: SCORERS.get(name, name) for name in sorted(names)} for task, names in sorted(used.items())}


def compare(a: Sequence[Record], b: Sequence[Record], n_resamples: int) -> dict[str, PairedMetric]:
    """Paired cluster bootstrap (a - b) of the task, level and balance metrics, items aligned.
    The paper's metrics need both sides judged; the diagnostics are always compared."""
    judged = judged_tasks(a) & judged_tasks(b)
    approx = approximate_tasks(a) | approximate_tasks(b)
    tasks = sorted({r.strata["task"] for r in a})
    metrics = _metrics(tasks, judged, approx, extras=False)
    clusters = [r.cluster for r in a]
    columns_a, columns_b = _columns(a), _columns(b)
    results = paired_cluster_bootstrap(
        metrics,
        {c: columns_a[c] for c in ("score", "diagnostic")},
        {c: columns_b[c] for c in ("score", "diagnostic")},
        clusters,
        [r.strata["task"] for r in a],
        n_resamples=n_resamples,
        seed=0,
    )
    differences = {c: np.array(columns_a[c]) - np.array(columns_b[c]) for c in ("score", "diagnostic")}
    task_of = np.array([r.strata["task"] for r in a])
    out = {}
    for name, result in results.items():
        covered, column = _tasks_of_metric(name)
        mask = np.isin(task_of, covered)
        mde = (
            minimum_detectable_effect(differences[column][mask], np.asarray(clusters)[mask]).mde
            if mask.sum() >= 2
            else None
        )
        out[name] = paired_cell(result, mde)
    return out


def _tasks_of_metric(name: str) -> tuple[tuple[str, ...], str]:
    """The tasks a metric covers and the column it reads."""
    base = name.removesuffix(APPROX)
    if base == "t1_t2_balance":
        return ("T1", "T2"), "score"
    for level, tasks in LEVELS.items():
        if base == LEVEL_METRICS[level]:
            return tasks, "score"
        if base == LEVEL_DIAGNOSTICS[level]:
            return tasks, "diagnostic"
    for task in TASKS.values():
        if base == task.metric:
            return (task.code,), "score"
        if base == task.diagnostic:
            return (task.code,), "diagnostic"
    raise ValueError(f"not a knowme metric: {name!r}")
