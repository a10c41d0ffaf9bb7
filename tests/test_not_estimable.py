"""One cluster never looks certain (docs/statistics.md).

The audit's case: `--memsystem=context,none -k shift_121` (18 items of one persona) printed
an accuracy interval [0.889, 0.889], an MDE of 0, a CI gate that passed and p = 0.0005 on
every paired metric. With fewer than two clusters the interval, MDE and p-values are not
estimable (None, shown as such), gates on them fail saying why, and a suite's statistics
refusing one cluster is no longer a session error that fails a run whose items all scored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from pytest_memeval.analysis.comparisons import compare_runs
from pytest_memeval.analysis.gates import evaluate
from pytest_memeval.config.gate_syntax import parse_gate
from pytest_memeval.results.records import PairedMetric, Record, RunKey, RunSummary
from pytest_memeval.stats.cells import compare_rates

TIMEOUT_S = 300
KEY_A, KEY_B = RunKey("toy", "a"), RunKey("toy", "b")


def _records(key: RunKey, correct: Sequence[bool], clusters: Sequence[str]) -> list[Record]:
    return [
        Record(f"i{n}", key, "toy", cluster, cluster, "t", "scored", correct=value)
        for n, (value, cluster) in enumerate(zip(correct, clusters))
    ]


def _compare(a: Sequence[Record], b: Sequence[Record]) -> dict[str, PairedMetric]:
    clusters = [r.cluster for r in a]
    return {"accuracy": compare_rates([bool(r.correct) for r in a], [bool(r.correct) for r in b], clusters)}


def test_a_comparison_within_one_cluster_has_no_interval_mde_or_p() -> None:
    one = ["p1"] * 18
    comparison = compare_runs(
        (KEY_A, _records(KEY_A, [True] * 18, one)), (KEY_B, _records(KEY_B, [False] * 18, one)), _compare, "run"
    )
    cell = comparison.metrics["accuracy"]
    assert comparison.n_clusters == 1
    assert cell.difference == 1.0  # the point estimate stays
    assert (cell.ci, cell.p_value, cell.mde) == ((None, None), None, None)
    verdicts = evaluate(parse_gate("toy.accuracy:no-regression"), [], [_as_baseline(comparison)])
    assert [v.passed for v in verdicts] == [False]
    assert "not estimable: the items come from 1 cluster" in verdicts[0].detail


def test_two_clusters_are_estimable_and_flagged_as_few() -> None:
    from pytest_memeval.results.clusters import RELIABLE_CLUSTERS, cluster_note

    comparison = compare_runs(
        (KEY_A, _records(KEY_A, [True] * 4, ["p1", "p1", "p2", "p2"])),
        (KEY_B, _records(KEY_B, [False] * 4, ["p1", "p1", "p2", "p2"])),
        _compare,
        "run",
    )
    assert comparison.n_clusters == 2 and comparison.metrics["accuracy"].p_value is not None
    assert cluster_note(2).startswith("few clusters: 2 (fewer than 6)")
    assert cluster_note(RELIABLE_CLUSTERS) == "" and cluster_note(None) == ""


def test_a_suite_whose_test_refuses_one_cluster_leaves_the_point_estimates_out() -> None:
    def refuses(a: Sequence[Record], b: Sequence[Record]) -> dict[str, PairedMetric]:
        raise ValueError("need at least two paired differences")

    one = ["p1"]
    comparison = compare_runs(
        (KEY_A, _records(KEY_A, [True], one)), (KEY_B, _records(KEY_B, [False], one)), refuses, "run"
    )
    assert (comparison.n_paired, comparison.n_clusters, dict(comparison.metrics)) == (1, 1, {})
    with pytest.raises(ValueError):  # with clusters enough, a failing test is still an error
        compare_runs(
            (KEY_A, _records(KEY_A, [True, True], ["p1", "p2"])),
            (KEY_B, _records(KEY_B, [False, False], ["p1", "p2"])),
            refuses,
            "run",
        )


def test_a_ci_gate_on_one_cluster_fails_saying_why_and_a_point_gate_carries_the_note() -> None:
    from pytest_memeval.results.records import Metric, SuiteSummary

    summary = SuiteSummary({"accuracy": Metric(0.889, (None, None), 18)})
    run = RunSummary(KEY_A, 18, 18, 0, 0, summary, n_clusters=1)
    [ci_gate] = evaluate(parse_gate("ci:toy.accuracy>=0.5"), [run], [])
    assert not ci_gate.passed and ci_gate.detail.startswith(
        "a | reader | k=10: not estimable: the items come from 1 cluster"
    )
    [point_gate] = evaluate(parse_gate("toy.accuracy>=0.5"), [run], [])
    assert point_gate.passed and "[not estimable" in point_gate.detail


def _as_baseline(comparison: object) -> object:
    from msgspec.structs import replace

    return replace(comparison, source="baseline")  # type: ignore[type-var]


@pytest.mark.slow
def test_one_persona_prints_not_estimable_and_fails_its_ci_gate(suite_pytester: pytest.Pytester) -> None:
    report, page = suite_pytester.path / "report.json", suite_pytester.path / "report.html"
    result = suite_pytester.runpytest_subprocess(
        "--memsystem=context,none",
        "--memeval-suite=multisource",
        "-k",
        "shift_121",
        "--memeval-gate=ci:multisource[context].accuracy>=0.5",
        f"--memeval-report={report}",
        f"--memeval-html={page}",
        "-p",
        "no:cacheprovider",
        timeout=TIMEOUT_S,
    )
    output = result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    # no number with a numeric interval: every metric, retrieval's included, says n/a
    assert "accuracy 0.889 [n/a: one cluster]" in output and not re.search(r"\d \[\d", output)
    result.stdout.fnmatch_lines(
        [
            "*multisource: context  minus  none  (18 paired items in 1 cluster)*",
            "*FAIL  ci:multisource[[]context].accuracy>=0.5*",
            "*not estimable: the items come from 1 cluster*",
        ]
    )
    data = json.loads(report.read_text())
    for run in data["runs"]:
        assert run["n_clusters"] == 1
        assert all(m["ci"] == [None, None] and m["mde"] is None for m in run["metrics"].values())
    [comparison] = data["comparisons"]
    assert comparison["n_clusters"] == 1
    assert all(m["p_value"] is None and m["ci"] == [None, None] for m in comparison["metrics"].values())
    assert "not estimable: the items come from 1 cluster" in page.read_text()


@pytest.mark.slow
def test_a_one_item_comparison_where_every_item_scored_passes(suite_pytester: pytest.Pytester, tmp_path: Path) -> None:
    """memfail's paired test needs two differences: with one item it raised, and the run
    failed with '1 items ended in an error or an invalid answer' although none had."""
    report = tmp_path / "report.json"
    result = suite_pytester.runpytest_subprocess(
        "--memsystem=context,none",
        "--memeval-suite=memfail",
        "-k",
        "s42-cond_easy-000",
        "--memeval-max-errors=0",
        f"--memeval-report={report}",
        "-p",
        "no:cacheprovider",
        timeout=TIMEOUT_S,
    )
    assert "items ended in an error" not in result.stdout.str() and "session error" not in result.stdout.str()
    # none's wrong answer is a failed test; an error would exit 1 too, so the report says which
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()[-2000:]
    data = json.loads(report.read_text())
    assert data["session_errors"] == []
    assert [r["status"] for r in data["records"]] == ["scored", "scored"]
    assert [(r["n_items"], r["n_scored"]) for r in data["runs"]] == [(1, 1), (1, 1)]
