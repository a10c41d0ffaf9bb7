"""Metric definitions (paper App. C.3) and baselines on hand-computed cases."""

from __future__ import annotations

import math

import pytest
from pytest_memeval.suites.multisource import (
    QUESTIONS,
    coverage,
    expected_random_accuracy,
    f_beta,
    macro_accuracy,
    majority_labels,
    per_question_accuracy,
    random_predictions,
    reachable,
    selective_accuracy,
)

QIDS = ["A1", "A1", "A1", "A2", "A2"]
CORRECT = [True, False, True, True, False]
ANSWERED = [True, True, False, False, False]


def test_macro_accuracy_averages_questions():
    assert per_question_accuracy(QIDS, CORRECT) == {"A1": pytest.approx(2 / 3), "A2": 0.5}
    assert macro_accuracy(QIDS, CORRECT) == pytest.approx((2 / 3 + 1 / 2) / 2)


def test_coverage_is_micro():
    assert coverage(ANSWERED) == pytest.approx(2 / 5)
    assert math.isnan(coverage([]))


def test_selective_accuracy_skips_questions_never_answered():
    assert selective_accuracy(QIDS, CORRECT, ANSWERED) == pytest.approx(0.5)
    assert math.isnan(selective_accuracy(QIDS, CORRECT, [False] * 5))


def test_f05_uses_released_precision_and_recall():
    p = 0.5
    r = p * 0.4 / ((2 / 3 + 1 / 2) / 2)
    assert f_beta(QIDS, CORRECT, ANSWERED) == pytest.approx(1.25 * p * r / (0.25 * p + r))
    assert f_beta(QIDS, CORRECT, [True] * 5) == pytest.approx(1.25 * (7 / 12) * 1.0 / (0.25 * (7 / 12) + 1.0))
    assert f_beta(QIDS, CORRECT, [False] * 5) == 0.0


def test_length_mismatch_is_an_error():
    with pytest.raises(ValueError):
        macro_accuracy(QIDS, CORRECT[:-1])


def test_random_baseline():
    assert expected_random_accuracy(["A1", "B2"]) == pytest.approx((1 / 3 + 1 / 4) / 2)
    assert round(expected_random_accuracy() * 100, 1) == 30.1  # paper: 30.1
    draws = random_predictions(["A1"] * 3000, seed=3)
    assert draws == random_predictions(["A1"] * 3000, seed=3)
    assert set(draws) == set(QUESTIONS["A1"].answer_space)


def test_majority_labels_break_ties_alphabetically():
    golds = [{"A1": "10_to_19", "A2": "4_to_7"}, {"A1": "20_or_more", "A2": "4_to_7"}]
    mode = majority_labels(golds)
    assert mode["A1"] == "10_to_19" and mode["A2"] == "4_to_7"
    assert mode["C3"] == QUESTIONS["C3"].answer_space[0]  # no evidence: first label


def test_reachable():
    assert reachable({"planner": "a", "device_log": None, "objective_log": "b"}, "b")
    assert not reachable({"planner": "a", "device_log": None}, "b")
    assert not reachable({}, "b")
