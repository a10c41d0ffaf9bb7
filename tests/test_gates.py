"""Gates decide the exit status; comparisons pair items by id; a baseline is an earlier report."""

from __future__ import annotations

import json

import pytest
from harness import make_settings

from pytest_memeval.analysis.gates import evaluate
from pytest_memeval.config.gate_syntax import Gate, parse_gate, parse_gates
from pytest_memeval.errors import ConfigError
from pytest_memeval.results.records import (
    Comparison,
    Metric,
    PairedMetric,
    Report,
    RunKey,
    RunSummary,
    SuiteSummary,
)
from pytest_memeval.running.registry import available_suites
from pytest_memeval.running.settings_checks import check_gates


def test_parse_threshold_and_no_regression_gates() -> None:
    assert parse_gate("multisource.accuracy>=0.75") == Gate(
        "multisource.accuracy>=0.75", "multisource", "accuracy", op=">=", threshold=0.75
    )
    ci = parse_gate("ci:multisource[mem0].f05 < 0.5")
    assert (ci.use_ci, ci.system, ci.metric, ci.op, ci.threshold) == (True, "mem0", "f05", "<", 0.5)
    assert parse_gate("multisource.accuracy:no-regression").margin == 0.0
    assert parse_gate("multisource.accuracy:no-regression=0.02").margin == 0.02


@pytest.mark.parametrize(
    "text", ["accuracy>=0.7", "multisource.accuracy=>0.7", "multisource.accuracy>=high", "ci:x.y:no-regression"]
)
def test_unreadable_gates_are_config_errors(text: str) -> None:
    with pytest.raises(ConfigError, match="--memeval-gate: cannot read"):
        parse_gate(text)


KEY = RunKey("s", "m")
RUN = RunSummary(KEY, 10, 10, 0, 0, SuiteSummary({"accuracy": Metric(0.8, (0.7, 0.9))}))


@pytest.mark.parametrize(
    "expression, passed",
    [
        ("s.accuracy>=0.8", True),
        ("s.accuracy>0.8", False),
        ("ci:s.accuracy>=0.75", False),  # lower bound 0.7
        ("ci:s.accuracy>=0.7", True),
        ("ci:s.accuracy<=0.85", False),  # upper bound 0.9
        ("s[m].accuracy>=0.5", True),
        ("s[other].accuracy>=0.5", False),  # matches no run: a gate that checks nothing fails
    ],
)
def test_threshold_gates(expression: str, passed: bool) -> None:
    (verdict,) = evaluate(parse_gate(expression), [RUN], [])
    assert verdict.passed is passed
    assert verdict.mde is None or verdict.mde > 0


def test_gates_compare_unrounded_values() -> None:
    run = RunSummary(KEY, 10, 10, 0, 0, SuiteSummary({"accuracy": Metric(0.7499996, (0.7499996, 0.8))}))
    assert not evaluate(parse_gate("s.accuracy>=0.75"), [run], [])[0].passed
    assert not evaluate(parse_gate("ci:s.accuracy>=0.75"), [run], [])[0].passed


def test_a_gate_on_a_run_whose_memories_were_unreadable_fails_with_the_reason() -> None:
    blocked = RunSummary(
        KEY,
        10,
        10,
        0,
        0,
        SuiteSummary({"accuracy": Metric(0.9)}, gate_blocker="the offline reader cannot read m's memories"),
    )
    (verdict,) = evaluate(parse_gate("s.accuracy>=0.5"), [blocked], [])
    assert not verdict.passed and "cannot read m's memories" in verdict.detail


def _comparison(ci: list[float], better: str = "higher") -> Comparison:
    cell = PairedMetric(None, None, sum(ci) / 2, (ci[0], ci[1]), None, "bootstrap", 0.05, better)  # type: ignore[arg-type]
    return Comparison("s", KEY, KEY, "baseline", 100, {"accuracy": cell})


@pytest.mark.parametrize(
    "ci, margin, passed",
    [
        ([-0.05, -0.01], 0.0, False),
        ([-0.05, 0.01], 0.0, True),
        ([-0.05, -0.03], 0.02, False),
        ([-0.05, -0.01], 0.02, True),
    ],
)
def test_no_regression_fails_only_when_the_whole_interval_is_below_minus_margin(
    ci: list[float], margin: float, passed: bool
) -> None:
    gate = parse_gate(f"s.accuracy:no-regression={margin}")
    (verdict,) = evaluate(gate, [RUN], [_comparison(ci)])
    assert verdict.passed is passed


@pytest.mark.parametrize("ci, passed", [([0.01, 0.05], False), ([-0.01, 0.05], True), ([-0.05, -0.01], True)])
def test_no_regression_of_an_error_metric_fails_when_the_interval_is_above_margin(
    ci: list[float], passed: bool
) -> None:
    (verdict,) = evaluate(parse_gate("s.accuracy:no-regression"), [RUN], [_comparison(ci, "lower")])
    assert verdict.passed is passed and "above +0" in verdict.detail


def test_a_baseline_of_another_system_k_or_responder_says_so_in_the_gate_line() -> None:
    """The baseline's only run of a suite is paired whatever its system, k or responder; the
    verdict must not read as a regression check of the same run."""
    other = RunKey("s", "mem0", "openai:m", k=5)
    cell = PairedMetric(None, None, 0.0, (-0.01, 0.01), None, "bootstrap", 0.05)
    comparison = Comparison("s", KEY, other, "baseline", 100, {"accuracy": cell})
    (verdict,) = evaluate(parse_gate("s.accuracy:no-regression"), [RUN], [comparison])
    assert "NOT the same run: the baseline's only s run has memsystem mem0, responder openai:m, k 5" in verdict.detail
    (same,) = evaluate(parse_gate("s.accuracy:no-regression"), [RUN], [_comparison([-0.01, 0.01])])
    assert "NOT the same run" not in same.detail


@pytest.mark.parametrize(
    "gate, bounds, never",
    [
        ("s.accuracy>=-0", (0.0, 1.0), True),
        ("s.accuracy>=0", (0.0, 1.0), True),
        ("s.accuracy>0", (0.0, 1.0), False),
        ("ci:s.accuracy<=1", (0.0, 1.0), True),
        ("s.accuracy<1", (0.0, 1.0), False),
        ("s.accuracy<1.5", (0.0, 1.0), True),
        ("s.accuracy:no-regression=1", (0.0, 1.0), True),
        ("s.accuracy:no-regression=0.5", (0.0, 1.0), False),
    ],
)
def test_a_gate_that_no_value_in_the_metrics_range_can_fail_is_known(gate: str, bounds: tuple, never: bool) -> None:
    from pytest_memeval.config.gate_syntax import can_never_fail

    assert can_never_fail(parse_gate(gate), bounds) is never


def test_a_threshold_too_large_for_a_float_is_refused() -> None:
    with pytest.raises(ConfigError, match="too large to be a finite number"):
        parse_gate("s.accuracy<=" + "9" * 400)
    with pytest.raises(ConfigError, match="too large to be a finite number"):
        parse_gate("s.accuracy:no-regression=" + "9" * 400)


def _run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict]:
    report = pytester.path / "report.json"
    result = pytester.runpytest("test_toy.py", f"--memeval-report={report}", *args)
    return result, json.loads(report.read_text()) if report.exists() else {}


@pytest.mark.slow
def test_with_gates_the_gates_decide_the_exit_status(toy_pytester: pytest.Pytester) -> None:
    result, _ = _run(toy_pytester, "--memsystem=none", "--memeval-gate=toy.accuracy<=0.5")
    assert result.ret == pytest.ExitCode.OK  # every item failed, but the gate holds
    result.stdout.fnmatch_lines(["*PASS  toy.accuracy<=0.5", "*none | reader | k=10: value 0.0000 is at most 0.5*"])
    result, _ = _run(toy_pytester, "--memsystem=context", "--memeval-gate=toy.accuracy<=0.5")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # every item passed, but the gate fails
    result.stdout.fnmatch_lines(["*FAIL  toy.accuracy<=0.5*"])


@pytest.mark.slow
def test_errors_beyond_the_allowance_fail_whatever_the_gates_say(toy_pytester: pytest.Pytester) -> None:
    args = ("--memsystem=faulty_adapters:FailingRetrieve", "--memeval-gate=toy.accuracy<=1", "-k", "ada")
    result, _ = _run(toy_pytester, *args)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*3 items ended in an error or an invalid answer (--memeval-max-errors=0)*"])
    # the run is incomplete: its journal stays, and --memeval-resume runs the three again
    assert result.outlines[-1].startswith("memeval: incomplete: 3 of 3 selected items ran (3 items ended in an error")
    assert (toy_pytester.path / "report.journal.jsonl").exists()
    result, _ = _run(toy_pytester, *args, "--memeval-max-errors=3", "--memeval-resume")
    result.stdout.fnmatch_lines(["*FAIL  toy.accuracy<=1", "*no value for accuracy*"])


@pytest.mark.slow
def test_a_gate_on_a_suite_no_test_ran_fails_at_the_end(toy_pytester: pytest.Pytester) -> None:
    # with test paths, a suite named by import path is known only once it ran (gate names
    # checked before the run: the matrix of tests/test_bad_input.py)
    result, _ = _run(toy_pytester, "--memsystem=context", "--memeval-gate=nosuite.accuracy>=0.5")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "FAIL  nosuite.accuracy>=0.5" in result.stdout.str()
    assert "no run of this suite and system in the session (runs: toy[context])" in result.stdout.str()


@pytest.mark.slow
def test_systems_of_one_run_are_compared_pairwise(toy_pytester: pytest.Pytester) -> None:
    result, report = _run(toy_pytester, "--memsystem=context,none")
    (comparison,) = report["comparisons"]
    assert (comparison["a"]["memsystem"], comparison["b"]["memsystem"], comparison["n_paired"]) == (
        "context",
        "none",
        12,
    )
    cell = comparison["metrics"]["accuracy"]
    assert cell["difference"] == 1.0 and cell["test"] == "cluster_sign_flip"
    # 12 items won in 4 people (clusters) of 3: the smallest two-sided p four clusters allow,
    # 2 / 2**4, not the 2 / 2**12 of item-level McNemar.
    assert cell["p_value"] == 2 / 16 and cell["p_holm"] == cell["p_value"]
    # and its interval is all of [-1, 1]: a filler, no interval
    assert cell["ci"] == [None, None] and cell["no_interval"].startswith("4 clusters are too few to bound it")
    result.stdout.fnmatch_lines(["*toy: context  minus  none  (12 paired items in 4 clusters)*"])


@pytest.mark.slow
def test_baseline_pairs_by_id_and_names_unpaired_items(toy_pytester: pytest.Pytester) -> None:
    _, baseline = _run(toy_pytester, "--memsystem=context", "-k", "not dev")
    saved = toy_pytester.path / "baseline.json"
    saved.write_text(json.dumps(baseline))
    result, report = _run(toy_pytester, "--memsystem=context", f"--memeval-baseline={saved}", "-k", "not ada")
    (comparison,) = report["comparisons"]
    assert comparison["source"] == "baseline" and comparison["n_paired"] == 6
    assert comparison["only_a"] == {"count": 3, "ids": ["dev-city", "dev-colour", "dev-pet"]}
    assert comparison["only_b"]["count"] == 3
    result.stdout.fnmatch_lines(["*3 items scored only in context: dev-city, dev-colour, dev-pet*"])


@pytest.mark.parametrize("width", [60, 80, 100, 160])
def test_terminal_summary_fits_the_terminal_width_with_runs_side_by_side(width: int) -> None:
    from pytest_memeval.rendering.terminal import comparison_lines, gate_lines, suite_lines
    from pytest_memeval.results.records import Cell, Unpaired

    estimate = Metric(0.80879, (0.800926, 0.817133))
    key = RunKey("multisource", "mypackage.memory:LongAdapterName", "openai:qwen3-235b", k=15)
    other = RunKey("multisource", "chroma", "openai:qwen3-235b", k=15)
    cells = {f"{t} x stated_vs_revealed": Cell(480, {"accuracy": estimate}) for t in "ABCDEFG"}
    summary = SuiteSummary(
        {"accuracy": estimate, "selective_accuracy": estimate, "f05": estimate},
        {"type_x_difficulty": cells},
        note="a note " * 30,
    )
    runs = (RunSummary(key, 34560, 34545, 3, 12, summary), RunSummary(other, 34560, 34560, 0, 0, summary))
    cell = PairedMetric(0.5, 0.7, -0.2364, (-0.273, -0.199), 0.0005, "paired_cluster_bootstrap", 0.081, p_holm=0.002)
    comparison = Comparison(
        "multisource",
        key,
        RunKey("multisource", "chroma"),
        "baseline",
        8640,
        {"selective_accuracy": cell},
        Unpaired(40, ("s20260321-stated_123-Ctrl2",) * 20),
    )
    gate = evaluate(parse_gate("multisource.selective_accuracy:no-regression=0.02"), [], [comparison])[0]
    report = Report({}, runs, ())
    table = suite_lines(report, "multisource", width)
    lines = table + comparison_lines(comparison, width) + gate_lines(gate, width)
    assert max(len(line) for line in lines) <= width, max(lines, key=len)
    # one table: the metrics once, both runs beside each other (or stacked tables when narrow)
    assert sum(line.lstrip().startswith("selective_accuracy") for line in table) == 1
    assert any(line.strip().startswith("mypackage.") for line in table[:3])  # broken where it reads well
    assert width < 80 or any("LongAdapterName" in line for line in table[:4])
    assert "chroma" in table[1]


def test_a_run_note_and_a_descriptive_cell_are_shown() -> None:
    from pytest_memeval.rendering.terminal import comparison_lines, suite_lines

    run = RunSummary(KEY, 3, 3, 0, 0, SuiteSummary({}, note="scores from the approximate offline judge"))
    assert "  note: scores from the approximate offline judge" in suite_lines(Report({}, (run,), ()), KEY.suite)
    cell = PairedMetric(None, None, 0.2, (0.1, 0.3), None, "descriptive")
    comparison = Comparison("s", KEY, RunKey("s", "b"), "run", 3, {"jaccard": cell})
    (line,) = [text for text in comparison_lines(comparison) if "jaccard" in text]
    assert "n/a" in line and "descriptive" in line


def test_a_comparison_where_one_side_abstained_on_everything_prints() -> None:
    from pytest_memeval.rendering.terminal import comparison_lines

    cell = PairedMetric(0.8, None, None, (None, None), None, "paired_cluster_bootstrap")
    comparison = Comparison("s", KEY, RunKey("s", "b"), "run", 12, {"selective_accuracy": cell})
    (line,) = [text for text in comparison_lines(comparison) if "selective_accuracy" in text]
    assert line.split()[1:3] == ["n/a", "n/a"]


def test_a_suite_with_evidence_gates_its_retrieval_metrics_on_their_interval() -> None:
    settings = make_settings(
        "context",
        suites=("multisource", "locomo"),
        gates=parse_gates(["ci:multisource.recall_at_k>=0.5", "locomo[context].ndcg_at_k>0.2", "locomo.mrr<0.9"], None),
    )
    check_gates(settings, available_suites(), bundled_only=True)  # accepted: both suites declare evidence
    recall = Metric(0.62, (0.55, 0.7), n=36)
    run = RunSummary(RunKey("multisource", "context"), 36, 36, 0, 0, SuiteSummary({"recall_at_k": recall}))
    (verdict,) = evaluate(parse_gate("ci:multisource.recall_at_k>=0.6"), [run], [])
    assert not verdict.passed and "lower CI bound 0.5500 is below 0.6" in verdict.detail
    (verdict,) = evaluate(parse_gate("ci:multisource.recall_at_k>=0.5"), [run], [])
    assert verdict.passed
