"""knowme metrics on hand-computed records: task and level means, the T1/T2 balance, the
approximate labels, life-clustered intervals and paired comparisons."""

from __future__ import annotations

import pytest
from harness import make_record

from pytest_memeval.records import Record, Report, RunKey, RunSummary

from pytest_memeval.benchmarks.knowme.figures import task_figures
from pytest_memeval.benchmarks.knowme.summary import compare, summarize


def record(task: str, score: float, life: str = "L1", abstained: bool = False, approximate: bool = False,
           recall: float | None = 1.0, **strata: str) -> Record:
    level = {"T1": "I", "T2": "I", "T3": "I", "T4": "II", "T5": "II", "T6": "III", "T7": "III"}[task]
    full = {"task": task, "level": level, "dataset": "dataset1", "life": life, "trap": "none", "kind": "k",
            "flashback": "no", "update_paradox": "no", **strata}
    return make_record(f"{life}-{task}-{score}", suite="knowme", cluster=life, score=score, abstained=abstained,
                       strata=full, detail={"approximate": approximate, "evidence_recall": recall,
                                            "scorer": "coverage_approx" if approximate else "entities"})


RECORDS = [
    record("T1", 100), record("T1", 0, abstained=True),            # T1 50
    record("T2", 100, abstained=True), record("T2", 100, abstained=True),  # T2 100
    record("T3", 60), record("T3", 100, kind="gap", flashback="yes"),  # T3 80
    record("T4", 40),                                                # T4 40
    record("T6", 80, approximate=True, recall=0.5),                  # T6 80 (approx)
]


def test_task_level_and_balance_values():
    metrics = summarize(RECORDS, n_resamples=200).metrics
    value = {name: m.value for name, m in metrics.items()}
    assert value["t1_extraction"] == 50 and value["t2_abstention"] == 100
    assert value["t1_t2_balance"] == pytest.approx(2 * 50 * 100 / 150, abs=1e-4)
    assert value["t3_temporal"] == 80 and value["t4_ordering"] == 40
    assert value["level_i"] == pytest.approx((50 + 100 + 80) / 3, abs=1e-4)  # mean of task means
    assert value["level_ii"] == 40  # T5 absent: the level is its present tasks
    assert value["over_abstention"] == pytest.approx(100 / 6, abs=1e-4)  # 1 of 6 answerable
    assert value["evidence_recall"] == pytest.approx(100 * (7 + 0.5) / 8, abs=1e-4)
    assert list(value).index("t2_abstention") == list(value).index("t1_extraction") + 1


def test_an_approximate_scorer_is_named_in_every_line_it_feeds():
    summary = summarize(RECORDS, n_resamples=200)
    assert "t6_mind_body_approx" in summary.metrics and "t6_mind_body" not in summary.metrics
    assert "level_iii_approx" in summary.metrics
    assert summary.extra["approximate"] == ["level_iii_approx", "t6_mind_body_approx"]
    assert "T6 (approx)" in summary.breakdown["task"] and "III (approx)" in summary.breakdown["level"]
    assert summary.extra["scorers"]["T6"] == {"coverage_approx": "offline coverage of the gold's core elements, standing in "
                                                           "for the rubric judge (approximate)"}
    assert "level_iii_approx" in summary.breakdown["life"]["L1"].metrics
    assert summary.note.startswith("approximate: level_iii_approx, t6_mind_body_approx come from an offline stand-in")
    assert summarize([record("T1", 100)], n_resamples=50).note == ""


def test_always_abstaining_wins_t2_and_nothing_else():
    abstain = [record(t, 100 if t == "T2" else 0, life=f"L{i}", abstained=True) for i in range(4) for t in ("T1", "T2", "T3")]
    value = {k: m.value for k, m in summarize(abstain, n_resamples=200).metrics.items()}
    assert value["t2_abstention"] == 100 and value["t1_t2_balance"] == 0 and value["over_abstention"] == 100


def test_intervals_resample_lives():
    records = [record("T1", score, life=life) for life, scores in (("A", (100, 100)), ("B", (0, 0)), ("C", (50, 50)))
               for score in scores]
    summary = summarize(records, n_resamples=500)
    lo, hi = summary.metrics["t1_extraction"].ci
    assert lo < 50 < hi and lo >= 0 and hi <= 100
    # a life's own cell resamples its items, here all equal
    level = summary.breakdown["life"]["A"].metrics["level_i"]
    assert (level.value, level.ci) == (100.0, (100.0, 100.0))
    assert summary.extra["n_lives"] == 3


def test_paired_comparison_of_two_systems():
    a = [record("T1", s, life=f"L{i % 3}") for i, s in enumerate([100, 100, 100, 0, 100, 100])]
    b = [record("T1", s, life=f"L{i % 3}") for i, s in enumerate([0, 0, 100, 0, 0, 100])]
    result = compare(a, b, n_resamples=500)
    assert set(result) == {"t1_extraction", "level_i"}
    cell = result["t1_extraction"]
    assert cell.difference == pytest.approx(100 * 5 / 6 - 100 * 2 / 6)
    assert cell.test == "paired_cluster_bootstrap" and 0 < cell.p_value <= 1 and cell.mde > 0


def test_the_task_figure_has_one_bar_per_run_on_0_to_100():
    runs = tuple(RunSummary(RunKey("knowme", name), 2, 2, 0, 0,
                            summarize([record("T1", v), record("T6", v, approximate=True)], n_resamples=50))
                 for name, v in (("context", 100), ("none", 0)))
    score, recall = task_figures(Report({}, runs, ()), "knowme")
    assert score.categories == ("T1 extraction", "T6 mind body (approx)") and score.value_range == (0.0, 100.0)
    assert [s.name for s in score.series] == ["context", "none"]
    assert score.series[0].values[0].value == 100 and "(approx)" in score.caption
    assert recall.title == "knowme: evidence recall per task (%)"
