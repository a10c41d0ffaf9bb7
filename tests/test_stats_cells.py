"""Cells keep full precision: gates compare what was measured, rounding is for printing."""

import math

import numpy as np
import pytest
from harness import make_record

from pytest_memeval.analysis.comparisons import compare_runs
from pytest_memeval.analysis.gates import evaluate
from pytest_memeval.config.gate_syntax import parse_gate
from pytest_memeval.results.records import PairedMetric, RunKey, RunSummary, SuiteSummary
from pytest_memeval.stats import compare_means, estimate_cell, json_number

JUST_BELOW = 0.7499996  # rounded to 6 digits this was 0.75 and passed >=0.75


def test_cells_keep_full_precision():
    assert json_number(JUST_BELOW) == JUST_BELOW
    assert json_number(math.nan) is None and json_number(None) is None
    cell = estimate_cell(JUST_BELOW, (JUST_BELOW, 0.8000004))
    assert (cell.value, cell.ci) == (JUST_BELOW, (JUST_BELOW, 0.8000004))


def test_comparison_cells_keep_full_precision():
    a = np.array([1.0, 0.0, 1.0, 1.0, 0.5, 0.25]) + 1e-7
    cell = compare_means(a, np.zeros(6), [0, 0, 1, 1, 2, 2], n_resamples=50)
    assert cell.difference == pytest.approx(np.mean(a), abs=1e-15)
    assert cell.mde is not None and cell.mde != round(cell.mde, 6)


def test_session_comparisons_are_not_rounded_and_gates_see_it():
    def compare(a, b):
        return {"accuracy": PairedMetric(None, None, JUST_BELOW, (-JUST_BELOW, JUST_BELOW), 0.5, "t")}

    key_a, key_b = RunKey("s", "a"), RunKey("s", "b")
    records = [make_record("x", cluster="c1"), make_record("y", cluster="c2")]  # one cluster: not estimable
    comparison = compare_runs((key_a, records), (key_b, records), compare, "run")
    assert comparison.metrics["accuracy"].ci == (-JUST_BELOW, JUST_BELOW)
    run = RunSummary(RunKey("s", "m"), 1, 1, 0, 0, SuiteSummary({"accuracy": estimate_cell(0.8, (JUST_BELOW, 0.9))}))
    (verdict,) = evaluate(parse_gate("ci:s.accuracy>=0.75"), [run], [])
    assert not verdict.passed
    (verdict,) = evaluate(parse_gate("ci:s.accuracy>=0.7499"), [run], [])
    assert verdict.passed


def test_a_gate_detail_shows_the_digits_that_decide_it():
    run = RunSummary(RunKey("s", "m"), 1, 1, 0, 0, SuiteSummary({"accuracy": estimate_cell(JUST_BELOW, (0.7, 0.8))}))
    (verdict,) = evaluate(parse_gate("s.accuracy>=0.75"), [run], [])
    assert not verdict.passed and "value 0.7499996 is below 0.75" in verdict.detail
