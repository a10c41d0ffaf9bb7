import math

import numpy as np
import pytest

from pytest_memeval.report.comparisons import compare_runs
from pytest_memeval.report.gates import evaluate, parse_gate
from pytest_memeval.stats import compare_means, estimate_cell, json_number

JUST_BELOW = 0.7499996  # rounded to 6 digits this was 0.75 and passed >=0.75


def test_cells_keep_full_precision():
    assert json_number(JUST_BELOW) == JUST_BELOW
    assert json_number(math.nan) is None and json_number(None) is None
    cell = estimate_cell(JUST_BELOW, (JUST_BELOW, 0.8000004))
    assert cell == {"value": JUST_BELOW, "ci": [JUST_BELOW, 0.8000004]}


def test_comparison_cells_keep_full_precision():
    a = np.array([1.0, 0.0, 1.0, 1.0, 0.5, 0.25]) + 1e-7
    cell = compare_means(a, np.zeros(6), [0, 0, 1, 1, 2, 2], n_resamples=50)
    assert cell["difference"] == pytest.approx(np.mean(a), abs=1e-15)
    assert cell["mde"] is not None and cell["mde"] != round(cell["mde"], 6)


def _run(label: str) -> tuple[dict[str, str], list[dict]]:
    return {"memsystem": label, "label": label}, [{"id": "x", "correct": True}]


def test_session_comparisons_are_not_rounded_and_gates_see_it():
    def compare(a, b):
        return {"accuracy": {"difference": JUST_BELOW, "ci": [-JUST_BELOW, JUST_BELOW], "p_value": 0.5}}

    comparison = compare_runs("s", _run("a"), _run("b"), compare, "run")
    assert comparison["metrics"]["accuracy"]["ci"] == [-JUST_BELOW, JUST_BELOW]
    run = {
        "suite": "s",
        "memsystem": "m",
        "responder": "r",
        "metrics": {"accuracy": estimate_cell(0.8, (JUST_BELOW, 0.9))},
    }
    (verdict,) = evaluate(parse_gate("ci:s.accuracy>=0.75"), [run], [])
    assert not verdict["passed"]
    (verdict,) = evaluate(parse_gate("ci:s.accuracy>=0.7499"), [run], [])
    assert verdict["passed"]
