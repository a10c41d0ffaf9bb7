"""One run's summary and the paired comparison of two runs, in the report's shapes.

Metrics: each condition's score (the locked per-subject aggregate, averaged over
subjects, with a bootstrap interval over subjects) and the mean per-subject difference
of each tested pair (`delta_<treatment>_<baseline>`). Beside them: the Wilcoxon test of
every pair, per-question shifts and anchor crossings against the baseline and within
each pair, the level and delta regressions on the baseline, judge agreement, and the
per-subject table. When the offline judge scored the run, its label says approximate in
the breakdown names and in `judge`.

Two runs are compared subject by subject (Wilcoxon across subjects, bootstrap interval of
the mean difference). Runs of two memory systems (or depths) with one responder differ
only in the memory conditions, so only those are compared, with the overlap of the two
systems' top-k on C1 items; a baseline of the same system compares every condition.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from msgspec.structs import replace

from pytest_memeval.results.records import Cell, Metric, PairedMetric, Record, SuiteSummary
from pytest_memeval.stats import bootstrap_mean, minimum_detectable_effect, paired_bootstrap_mean, wilcoxon_clusters

from .aggregate import Scored, judge_matrix, question_scores, scored, subject_scores
from .analysis import agreement, anchor_crossings, gradient, jaccard, question_shifts, subject_test
from .conditions import BASELINE, CONDITIONS, PAIRS
from .judge import JUDGE_LABEL as OFFLINE_LABEL

#: the test of a paired comparison, as the terminal shows it
WILCOXON_SUBJECTS = "wilcoxon_subjects"

#: the treatments whose gradient on the baseline is reported (the paper's C4a, and C2a)
GRADIENTS = ("C4a", "C2a")
MEMORY_PAIRS = (("C3", "C1"), ("C3_native", "C1_native"))


def _estimate(values: Sequence[float], n_resamples: int) -> Metric:
    if not values:
        return Metric(None, n=0)
    ci = bootstrap_mean(values, n_resamples=n_resamples, seed=0).ci if len(values) >= 2 else (None, None)
    return Metric(statistics.fmean(values), (ci[0], ci[1]), len(values), n_clusters=len(values))


def _present(items: Sequence[Scored]) -> list[str]:
    seen = {s.condition for s in items}
    return [c for c in CONDITIONS if c in seen]


def judge_info(records: Sequence[Record], items: Sequence[Scored]) -> dict[str, Any]:
    labels = sorted({str(r.detail.get("judge", "unlabelled")) for r in records})
    judges = sorted({j for s in items for j in s.judges})
    failures = sum(1 for s in items for v in s.judges.values() if v is None)
    return {"kind": labels, "approximate": OFFLINE_LABEL in labels, "judges": judges, "parse_failures": failures}


def summarize(records: Sequence[Record], n_resamples: int) -> SuiteSummary:
    items = scored(records)
    present = _present(items)
    subjects = {c: subject_scores(items, c) for c in present}
    questions = {c: question_scores(items, c) for c in present}
    judge = judge_info(records, items)
    suffix = " (approximate judge)" if judge["approximate"] else ""

    metrics = {c: _estimate(list(subjects[c].values()), n_resamples) for c in present}
    tests = {}
    for treatment, baseline in PAIRS:
        if treatment in subjects and baseline in subjects:
            test = subject_test(subjects[treatment], subjects[baseline], n_resamples)
            tests[f"{treatment}-{baseline}"] = test
            ci = test.get("ci") or (None, None)
            metrics[f"delta_{treatment}_{baseline}"] = Metric(
                test.get("mean_delta"), (ci[0], ci[1]), test.get("n_subjects"), n_clusters=test.get("n_subjects")
            )

    pairs = [(c, BASELINE) for c in present if c != BASELINE and BASELINE in present]
    pairs += [p for p in PAIRS if p[0] in present and p[1] in present and p not in pairs]
    shifts = {f"{t}-{b}": question_shifts(questions[t], questions[b]) for t, b in pairs}
    crossings = {f"{t}-{b}": anchor_crossings(questions[t], questions[b]) for t, b in pairs}
    gradients = {
        f"{t}-{BASELINE}": gradient(subjects[t], subjects[BASELINE], n_resamples)
        for t in GRADIENTS
        if t in subjects and BASELINE in subjects
    }
    return SuiteSummary(
        metrics=metrics,
        breakdown={
            f"condition{suffix}": {
                c: Cell(sum(1 for s in items if s.condition == c), {"score": metrics[c]}) for c in present
            },
            f"category{suffix}": _by_category(items, present, n_resamples),
        },
        note=_note(judge),
        extra={
            "judge": judge,
            "tests": tests,
            "question_shifts": shifts,
            "anchor_crossings": crossings,
            "gradient": gradients,
            "agreement": agreement(*judge_matrix(items)),
            "subjects": {
                s: {c: subjects[c][s] for c in present if s in subjects[c]} for s in sorted({i.subject for i in items})
            },
        },
    )


def _note(judge: Mapping[str, Any]) -> str:
    if judge["approximate"]:
        return "scores from the offline judge: approximate (the rubric mapped from the predicted behaviour)"
    return f"scores from the LLM judge panel ({', '.join(judge['judges'])}); questions -> judges -> subjects"


def _by_category(items: Sequence[Scored], present: Sequence[str], n_resamples: int) -> dict[str, Cell]:
    """Per category: the first tested pair's mean per-question change, then each condition's
    mean question score; intervals from a bootstrap over subjects."""
    pair = next(((t, b) for t, b in PAIRS if t in present and b in present), None)
    cells: dict[str, Cell] = {}
    for category in sorted({s.category for s in items}):
        in_category = [s for s in items if s.category == category]
        metrics: dict[str, Metric] = {}
        if pair is not None:
            t, b = question_scores(in_category, pair[0]), question_scores(in_category, pair[1])
            changes = {key: t[key] - b[key] for key in t.keys() & b.keys()}
            if changes:
                metrics[f"delta_{pair[0]}_{pair[1]}"] = _clustered(changes, n_resamples)
        for condition in present:
            scores = question_scores(in_category, condition)
            if scores:
                metrics[condition] = _clustered(scores, n_resamples)
        cells[category] = Cell(len(in_category), metrics)
    return cells


def _clustered(per_question: Mapping[tuple[str, str], float], n_resamples: int) -> Metric:
    keys = sorted(per_question)
    result = bootstrap_mean([per_question[k] for k in keys], [k[0] for k in keys], n_resamples=n_resamples, seed=0)
    return Metric(result.estimate, result.ci, len(keys), n_clusters=result.n_clusters)


def compare(a: Sequence[Record], b: Sequence[Record], n_resamples: int) -> dict[str, PairedMetric]:
    items_a, items_b = scored(a), scored(b)
    conditions = [c for c in _present(items_a) if c in set(_present(items_b))]
    if a and b and _memory_only(a[0], b[0]):
        conditions = [c for c in conditions if CONDITIONS[c].memory is not None]
    out = {}
    for condition in conditions:
        cell = _difference(subject_scores(items_a, condition), subject_scores(items_b, condition), n_resamples)
        if cell is not None:
            out[condition] = cell
    for treatment, baseline in MEMORY_PAIRS:
        if treatment in conditions and baseline in conditions:
            cell = _difference(
                _deltas(items_a, treatment, baseline), _deltas(items_b, treatment, baseline), n_resamples
            )
            if cell is not None:
                out[f"delta_{treatment}_{baseline}"] = cell
    for condition in ("C1", "C1_native"):
        if condition in out:
            out[condition] = replace(out[condition], extra=_overlap(items_a, items_b, condition, n_resamples))
    return out


def _memory_only(a: Record, b: Record) -> bool:
    """Runs with one responder that differ in the memory system or its depth differ only in
    the memory conditions: the direct ones never ask the memory system."""
    same_responder = a.key.responder == b.key.responder
    return same_responder and (a.key.memsystem != b.key.memsystem or a.key.k != b.key.k)


def _deltas(items: Sequence[Scored], treatment: str, baseline: str) -> dict[str, float]:
    t, b = subject_scores(items, treatment), subject_scores(items, baseline)
    return {s: t[s] - b[s] for s in t.keys() & b.keys()}


def _difference(a: Mapping[str, float], b: Mapping[str, float], n_resamples: int) -> PairedMetric | None:
    subjects = sorted(a.keys() & b.keys())
    if not subjects:
        return None
    va, vb = np.array([a[s] for s in subjects]), np.array([b[s] for s in subjects])
    test = wilcoxon_clusters(va, vb)
    interval = paired_bootstrap_mean(va, vb, n_resamples=n_resamples, seed=0)
    diffs = va - vb
    return PairedMetric(
        estimate_a=float(va.mean()),
        estimate_b=float(vb.mean()),
        difference=float(diffs.mean()),
        ci=(interval.ci[0], interval.ci[1]),
        p_value=test.p_value,
        test=WILCOXON_SUBJECTS,
        mde=minimum_detectable_effect(diffs).mde if len(subjects) >= 2 else None,
        extra={"n_subjects": len(subjects)},
        n_clusters=len(subjects),
    )


def _overlap(items_a: Sequence[Scored], items_b: Sequence[Scored], condition: str, n_resamples: int) -> dict[str, Any]:
    """Mean Jaccard of the two systems' top-k per question, averaged per subject first."""
    retrieved_b = {(s.subject, s.question): s.retrieved for s in items_b if s.condition == condition}
    per_subject: dict[str, list[float]] = {}
    zero = total = 0
    for s in items_a:
        key = (s.subject, s.question)
        if s.condition != condition or key not in retrieved_b:
            continue
        overlap = jaccard(s.retrieved, retrieved_b[key])
        if overlap is not None:
            per_subject.setdefault(s.subject, []).append(overlap)
            zero += overlap == 0
            total += 1
    means = [statistics.fmean(v) for v in per_subject.values()]
    estimate = _estimate(means, n_resamples)
    return {
        "topk_jaccard": estimate.value,
        "topk_jaccard_ci": list(estimate.ci),
        "topk_zero_overlap": zero / total if total else None,
    }
