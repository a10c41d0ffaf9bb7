"""The behavior statistics: the paper's per-subject table through summarize (W = 11), the
locked aggregation, per-question shifts, anchor crossings, agreement, overlap, figures."""

from __future__ import annotations

import math

import pytest
from harness import make_record
from msgspec.structs import replace
from pytest_memeval.suites.behavior.aggregate import scored, subject_scores
from pytest_memeval.suites.behavior.analysis import anchor_crossings, band, jaccard, question_shifts
from pytest_memeval.suites.behavior.figures import figures
from pytest_memeval.suites.behavior.summary import compare, summarize

from pytest_memeval.framework.figures import DotPlot, ForestPlot
from pytest_memeval.results.records import Record, Report, RunKey, RunSummary

# Paper App. D.1 (5-judge primary): subject, C5, C2a, C4a
PAPER_TABLE = [
    ("Ebers", 1.02, 1.54, 2.07),
    ("Sunity Devee", 1.03, 2.27, 2.41),
    ("Hamerton", 1.26, 2.63, 2.77),
    ("Fukuzawa", 1.67, 2.35, 2.78),
    ("Bernal Diaz", 1.70, 2.27, 2.48),
    ("Babur", 1.76, 1.91, 2.01),
    ("Seacole", 1.77, 2.48, 2.59),
    ("Keckley", 1.84, 2.43, 2.44),
    ("Yung Wing", 1.88, 2.22, 2.40),
    ("Zitkala-Sa", 2.34, 2.03, 2.02),
    ("Cellini", 2.38, 2.54, 2.53),
    ("Rousseau", 2.44, 2.81, 2.53),
    ("Augustine", 2.58, 2.48, 2.70),
    ("Equiano", 2.77, 2.46, 2.42),
]


def record(
    subject: str,
    question: str,
    condition: str,
    scores: dict,
    category: str = "risk",
    memsystem: str = "m",
    retrieved=None,
    k: int = 10,
) -> Record:  # type: ignore[no-untyped-def, type-arg]
    detail = {"judge": "llm panel", "scores": scores}
    if retrieved is not None:
        detail["retrieved"] = retrieved
    return make_record(
        f"{subject}-{question}-{condition}",
        suite="behavior",
        memsystem=memsystem,
        k=k,
        cluster=subject,
        strata={"condition": condition, "question": question, "category": category},
        detail=detail,
    )


def paper_records() -> list[Record]:
    """Each subject's per-subject score as two judges' means over two questions."""
    records = []
    for subject, *values in PAPER_TABLE:
        for condition, value in zip(("C5", "C2a", "C4a"), values):
            records.append(record(subject, "q01", condition, {"a": value - 0.25, "b": value + 0.5}))
            records.append(record(subject, "q02", condition, {"a": value + 0.25, "b": value - 0.5}))
    return records


def test_the_papers_wilcoxon_from_its_per_subject_table() -> None:
    summary = summarize(paper_records(), n_resamples=2000)
    primary = summary.extra["tests"]["C4a-C5"]
    assert primary["W"] == 11 and round(primary["p_value"], 3) == 0.007  # paper: W = 11, p = 0.007
    assert (primary["improved"], primary["worse"], primary["n_subjects"]) == (12, 2, 14)
    spec_only = summary.extra["tests"]["C2a-C5"]
    # paper fn. 47: W = 10, p = 0.005 (exact); the table's rounded values tie two |deltas| at
    # 0.31, so scipy falls back to the normal approximation, which gives p = 0.0076
    assert spec_only["W"] == 10 and 0.005 <= spec_only["p_value"] < 0.008
    gradient = summary.extra["gradient"]["C4a-C5"]
    delta, level = gradient["delta_regression"], gradient["level_regression"]
    assert round(delta["slope"], 2) == -0.96 and round(delta["r_squared"], 2) == 0.82  # paper: -0.96, R2 .82
    assert [round(x, 2) for x in delta["slope_ci"]] == [-1.25, -0.67]  # paper: [-1.24, -0.67]
    assert round(level["slope"], 2) == 0.04 and round(level["p_value"], 2) == 0.76  # paper B.7.1: +0.04, p = .76
    # coupling-aware permutation (paper B.7.2: null centred near -1, p = .77)
    assert abs(gradient["permutation"]["null_mean_slope"] + 1) < 0.02 and gradient["permutation"]["p_value"] > 0.6
    assert round(summary.metrics["delta_C4a_C5"].value, 2) == 0.55
    assert round(summary.metrics["C4a"].value, 2) == 2.44  # paper section 4.1: "2.44 across all 14"


def test_the_locked_aggregation_runs_questions_then_judges_then_subjects() -> None:
    records = [
        record("s1", "q1", "C5", {"a": 1, "b": 5}),
        record("s1", "q2", "C5", {"a": 3, "b": None}),  # judge b failed to parse q2
        record("s1", "q3", "C5", {"a": 2, "b": 3}),
    ]
    # judge a: (1 + 3 + 2) / 3 = 2; judge b: (5 + 3) / 2 = 4; subject: (2 + 4) / 2 = 3
    assert subject_scores(scored(records), "C5") == {"s1": 3.0}
    # the per-question grain pools judges first: (3 + 3 + 2.5) / 3
    summary = summarize(records, n_resamples=50)
    assert summary.metrics["C5"].value == 3.0 and summary.extra["judge"]["parse_failures"] == 1
    assert summary.extra["agreement"]["judges"] == ["a", "b"] and summary.extra["agreement"]["n_responses"] == 3


def test_question_shifts_and_anchor_crossings_on_hand_cases() -> None:
    baseline = {("s", "q1"): 1.0, ("s", "q2"): 2.8, ("s", "q3"): 3.0, ("s", "q4"): 4.6, ("s", "q5"): 2.0}
    treatment = {("s", "q1"): 4.2, ("s", "q2"): 5.0, ("s", "q3"): 3.4, ("s", "q4"): 3.0, ("s", "q5"): 2.0}
    shifts = question_shifts(treatment, baseline)
    assert (shifts["improved"], shifts["tied"], shifts["worse"]) == (3, 1, 1)
    assert shifts["median_delta_improved"] == pytest.approx(2.2) and shifts["median_delta_worse"] == pytest.approx(-1.6)
    crossings = anchor_crossings(treatment, baseline)
    # bands: 1->4 (+3), 2->5 (+3), 3->3, 4->3 (-1), 2->2
    assert (crossings["up_3_or_more"], crossings["none"], crossings["down_1"], crossings["up_1"]) == (2, 2, 1, 0)
    assert crossings["multi_anchor_rate"] == 0.4 and crossings["extreme_rate"] == 0.4
    assert [band(x) for x in (1.0, 1.99, 2.0, 4.99, 5.0)] == [1, 1, 2, 4, 5]


def test_agreement_of_a_panel_that_agrees() -> None:
    records = [record("s1", f"q{i}", "C5", {"a": 1 + i % 5, "b": 1 + i % 5}) for i in range(10)]
    agreement = summarize(records, n_resamples=50).extra["agreement"]
    assert agreement["pairwise_spearman"] == {"a ~ b": 1.0} and agreement["krippendorff_alpha_ordinal"] == 1.0


def test_two_systems_are_compared_on_the_memory_conditions_with_their_overlap() -> None:
    a, b = [], []
    for s in range(6):
        for q in ("q1", "q2"):
            for condition, score_a, score_b in (("C5", 2, 2), ("C1", 4, 2), ("C3", 4, 4)):
                a.append(
                    record(f"s{s}", q, condition, {"offline": score_a}, memsystem="x", retrieved=["m1", "m2", "m3"])
                )
                b.append(record(f"s{s}", q, condition, {"offline": score_b}, memsystem="y", retrieved=["m3", "m4"]))
    result = compare(a, b, n_resamples=200)
    assert set(result) == {"C1", "C3", "delta_C3_C1"}  # C5 never touches the memory system
    assert result["C1"].difference == 2.0 and result["C1"].p_value == pytest.approx(0.03125)
    assert result["C1"].extra["topk_jaccard"] == pytest.approx(0.25) and result["C1"].extra["topk_zero_overlap"] == 0.0
    assert result["delta_C3_C1"].difference == -2.0 and result["C3"].p_value == 1.0
    assert jaccard([], []) is None and jaccard(["a"], ["b"]) == 0.0
    same = compare(a, a, n_resamples=50)  # a baseline of the same system compares every condition
    assert set(same) == {"C5", "C1", "C3", "delta_C3_C1"} and same["C1"].extra["topk_jaccard"] == 1.0
    deeper = [replace(r, key=replace(r.key, k=5)) for r in a]  # a k sweep of one system: only the memory conditions
    assert set(compare(a, deeper, n_resamples=50)) == {"C1", "C3", "delta_C3_C1"}


def test_figures_from_a_report() -> None:
    summary = summarize(paper_records(), n_resamples=100)
    run = RunSummary(RunKey("behavior", "none"), 1, 1, 0, 0, summary)
    result = figures(Report({}, (run,), ()))
    dots = [f for f in result if isinstance(f, DotPlot)]
    assert len(dots) == 2 and dots[0].rows[0] == "Ebers" and len(dots[0].series) == 3
    forest = next(f for f in result if isinstance(f, ForestPlot))
    row = next(r for r in forest.rows if r.label == "C4a - C5")
    assert row.note == "W = 11, p = 0.0067" and math.isclose(row.value, 0.5507, abs_tol=1e-4)
    change = dots[1].series[0]
    assert change.name == "C2a - C5" and math.isclose(change.values[0].value, 1.54 - 1.02)
