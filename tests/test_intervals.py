"""Intervals that are true (issue 41, item 1; docs/statistics.md).

One place (`stats.estimability`, which also applies it) decides for every metric
and every paired difference whether its interval is estimable; where it is not, the value
stays and the reports say n/a and why, never a filler range or a zero-width interval shown
as certainty, never a value outside its own interval. The property tests run every bundled
suite's summary and paired comparison, as the session report builds them, on records drawn
by hypothesis (suite_records.py).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence

import pytest
from harness import make_record, make_settings, suite_options
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace
from suite_records import ITEMS, paired_runs, pooled_runs, record

from pytest_memeval.analysis.session_report import SessionReport
from pytest_memeval.framework.suite import Suite
from pytest_memeval.results.records import Metric, PairedMetric, Record, Report, RunKey
from pytest_memeval.running.registry import available_suites, load_suite
from pytest_memeval.stats.estimability import checked, checked_paired, no_interval_reason

BOOTSTRAP = 200
EXAMPLES = settings(max_examples=20, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --- the one place -----------------------------------------------------------------------------


def test_an_informative_interval_is_kept() -> None:
    assert no_interval_reason(0.5, (0.4, 0.6), n_clusters=12, bounds=(0.0, 1.0)) == ""


@pytest.mark.parametrize(
    ("value", "ci", "n_clusters", "bounds", "reason"),
    [
        (0.889, (0.889, 0.889), 1, (0.0, 1.0), "one cluster"),
        (100.0, (100.0, 100.0), 3, (0.0, 100.0), "no variation in 3 clusters"),
        (0.0, (0.0, 0.0), None, None, "no variation"),
        (0.0, (-1.0, 1.0), 4, (-1.0, 1.0), "4 clusters are too few to bound it (the interval is the whole range)"),
        (5000.0, (6107.0, 6108.0), 12, None, "the interval [6107, 6108] misses the estimate"),
        (0.5, (None, None), 12, None, "no interval computed"),
    ],
)
def test_each_interval_that_says_nothing_is_na_with_its_reason(
    value: float,
    ci: tuple[float | None, float | None],
    n_clusters: int | None,
    bounds: tuple[float, float] | None,
    reason: str,
) -> None:
    assert no_interval_reason(value, ci, n_clusters, bounds) == reason


def test_a_metric_without_interval_loses_its_mde_and_sem_and_keeps_its_value() -> None:
    metric = checked(Metric(100.0, (100.0, 100.0), 63, mde=0.0, sem=0.0, n_clusters=3), 3, (0.0, 100.0))
    assert (metric.value, metric.ci, metric.mde, metric.sem) == (100.0, (None, None), None, None)
    assert metric.no_interval == "no variation in 3 clusters"
    assert Metric.from_json(metric.to_json()) == metric
    kept = checked(Metric(None, n=0), 3, (0.0, 1.0))
    assert kept.no_interval == "" and kept.value is None


def test_a_reason_the_statistic_gives_is_kept() -> None:
    at_limit = Metric(5000.0, (4000.0, 5000.0), 12, no_interval="the fit reaches its limit")
    assert checked(at_limit, 12).no_interval == "the fit reaches its limit"


def test_a_filler_difference_keeps_its_p_value_and_one_cluster_loses_it() -> None:
    cell = PairedMetric(0.5, 0.5, 0.0, (-1.0, 1.0), 1.0, "cluster_sign_flip", mde=0.3, n_clusters=4)
    filler = checked_paired(cell, 12, (0.0, 1.0))
    assert filler.ci == (None, None) and filler.p_value == 1.0 and filler.mde is None
    assert filler.no_interval.startswith("4 clusters are too few to bound it")
    one = checked_paired(replace(cell, ci=(-0.2, 0.3)), 1, (0.0, 1.0))
    assert (one.ci, one.p_value, one.no_interval) == ((None, None), None, "one cluster")


# --- the cases of the issue --------------------------------------------------------------------


@pytest.fixture(scope="module")
def suites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Suite]:
    options = suite_options(tmp_path_factory.mktemp("suites"), BOOTSTRAP)
    return {name: load_suite(target)(options) for name, target in available_suites().items()}


def session(suite: Suite, a: Sequence[Record], b: Sequence[Record] | None = None) -> Report:
    """The report of a session of one run (a) or two (a and b, compared)."""
    grouped = {a[0].key: list(a)} | ({b[0].key: list(b)} if b else {})
    systems = tuple(key.memsystem for key in grouped)
    config = make_settings(*systems, suites=(suite.name,), bootstrap=BOOTSTRAP)
    return SessionReport.build(config, lambda ref: suite, grouped).report


def same_run(records: Sequence[Record], system: str) -> list[Record]:
    return [replace(r, key=replace(r.key, memsystem=system)) for r in records]


def test_knowme_all_right_in_three_lives_is_not_certain(suites: dict[str, Suite]) -> None:
    """knowme `t1_t2_balance 100.0 [100.0, 100.0]` printed as if certain."""
    items = [(task, life) for task in ("T1", "T2") for life in ("L0", "L1", "L2")]
    records = [
        make_record(
            f"{life}-{task}",
            suite="knowme",
            memsystem="a",
            cluster=life,
            task=task,
            score=100.0,
            strata={"task": task, "level": "I", "dataset": "d1", "life": life, "trap": "none", "kind": "k"}
            | {"flashback": "no", "update_paradox": "no"},
            detail={"approximate": False, "evidence_recall": 1.0, "scorer": "entities"},
        )
        for task, life in items
    ]
    balance = session(suites["knowme"], records).runs[0].metrics["t1_t2_balance"]
    assert (balance.value, balance.ci, balance.no_interval) == (100.0, (None, None), "no variation in 3 clusters")


def test_identical_memfail_runs_differ_by_exactly_zero_without_a_filler_range(suites: dict[str, Suite]) -> None:
    """memfail `success_persona +0.000 [-1.000, +1.000]` when all 12 persona items are right
    in both runs: the sign-flip test over 4 essays cannot bound anything."""
    records = [
        make_record(
            f"persona-{n}",
            suite="memfail",
            memsystem="a",
            cluster=f"essay{n // 3}",
            task="persona",
            correct=True,
            stage="correct",
            strata={"dataset": "persona"},
        )
        for n in range(12)
    ]
    (comparison,) = session(suites["memfail"], records, same_run(records, "b")).comparisons
    for cell in comparison.metrics.values():
        assert cell.difference == 0.0 and cell.ci == (None, None) and cell.no_interval
    reason = "4 clusters are too few to bound it (the interval is the whole range)"
    assert comparison.metrics["success_persona"].no_interval == reason


def test_a_coin_ess_at_the_fits_limit_is_a_bound_and_never_outside_its_interval(suites: dict[str, Suite]) -> None:
    """bayes `coin_ess 5000.0 [6107.0, 6107.0]`: the resamples' fine grid reached past the
    fit's range (lambda = 50) while the estimate could not. Beliefs tempered at lambda = 100
    are as sure as 100 x T observations: the estimate sits at the limit."""
    from pytest_memeval.suites.bayes import tempered
    from pytest_memeval.suites.bayes.offline import run_episodes

    from pytest_memeval.memory.context import ContextMemory

    suite = suites["bayes"]
    ids = [e.id for e in suite.index() if "-coin-passive_b1-identical-" in e.id]
    records = run_episodes(suite, ContextMemory(), "a", tempered(100.0), "reader", ids, 10)
    ess = session(suite, records).runs[0].metrics["coin_ess"]
    assert ess.value == 5000.0
    assert ess.ci == (None, None) and ess.no_interval.startswith("the fit reaches its limit (lambda = 50)")


# --- every bundled suite -----------------------------------------------------------------------


def metrics_of(report: Report) -> Iterator[tuple[str, str, Metric]]:
    """(where, metric name, metric) of every metric of the report's runs, cells included."""
    for run in report.runs:
        for name, metric in run.metrics.items():
            yield f"{run.key.memsystem}: {name}", name, metric
        for dimension, cells in run.breakdown.items():
            for cell_name, cell in cells.items():
                for name, metric in cell.metrics.items():
                    yield f"{run.key.memsystem}: {dimension}/{cell_name}: {name}", name, metric


def assert_true_interval(
    where: str, value: float | None, ci: tuple[float | None, float | None], reason: str, bounds: tuple[float, float]
) -> None:
    low, high = ci
    if value is None:
        assert (low, high) == (None, None), where
        return
    assert bounds[0] <= value <= bounds[1], f"{where}: {value} outside {bounds}"
    if low is None or high is None:
        assert reason and high is None and low is None, f"{where}: no interval and no reason"
        assert not reason.startswith("the interval"), f"{where}: {reason}"
        return
    assert low < high, f"{where}: zero-width [{low}, {high}]"
    assert low <= value <= high, f"{where}: {value} outside [{low}, {high}]"
    assert bounds[0] <= low and high <= bounds[1], f"{where}: [{low}, {high}] outside {bounds}"
    assert not reason, where


def assert_true_intervals(report: Report, suite: Suite, identical: bool = False) -> None:
    bounds = suite.metric_bounds
    for where, name, metric in metrics_of(report):
        assert name in bounds, f"{suite.name} declares no range of {name}"
        assert_true_interval(where, metric.value, metric.ci, metric.no_interval, bounds[name])
    for comparison in report.comparisons:
        for name, cell in comparison.metrics.items():
            width = bounds[name][1] - bounds[name][0]
            assert_true_interval(f"a - b: {name}", cell.difference, cell.ci, cell.no_interval, (-width, width))
            if identical:
                assert cell.difference in (0.0, None), f"identical runs differ in {name} by {cell.difference}"
                assert cell.p_value is None or math.isclose(cell.p_value, 1.0), (name, cell.p_value)


SYNTHETIC = sorted(ITEMS)


@pytest.mark.slow
@pytest.mark.parametrize("name", SYNTHETIC)
@EXAMPLES
@given(data=st.data())
def test_every_value_lies_in_its_interval_and_every_interval_in_the_range(
    suites: dict[str, Suite], name: str, data: st.DataObject
) -> None:
    a, b = data.draw(paired_runs(name))
    assert_true_intervals(session(suites[name], a, b), suites[name])


@pytest.mark.slow
@pytest.mark.parametrize("name", SYNTHETIC)
@EXAMPLES
@given(data=st.data())
def test_identical_paired_runs_differ_by_exactly_zero(suites: dict[str, Suite], name: str, data: st.DataObject) -> None:
    a, _ = data.draw(paired_runs(name))
    assert_true_intervals(session(suites[name], a, same_run(a, "b")), suites[name], identical=True)


@pytest.fixture(scope="module")
def bayes_pool(suites: dict[str, Suite]) -> Mapping[str, Sequence[Record]]:
    """Records of twelve real bayes episodes (coin and recommender, through memory and the
    single-turn control) answered by three self-test agents."""
    from pytest_memeval.suites.bayes import last_k, perfect_bayesian, tempered
    from pytest_memeval.suites.bayes.offline import run_episodes

    from pytest_memeval.memory.context import ContextMemory

    suite = suites["bayes"]
    ids = [e.id for e in suite.index()][::3]
    agents = {"bayesian": perfect_bayesian(), "tempered": tempered(3.0), "last_5": last_k(5)}
    return {
        name: run_episodes(suite, ContextMemory(), name, agent, "reader", ids, 10) for name, agent in agents.items()
    }


@pytest.mark.slow
@EXAMPLES
@given(data=st.data(), identical=st.booleans())
def test_bayes_values_lie_in_their_intervals_and_identical_runs_differ_by_zero(
    suites: dict[str, Suite], bayes_pool: Mapping[str, Sequence[Record]], data: st.DataObject, identical: bool
) -> None:
    a, b = data.draw(pooled_runs(bayes_pool, "bayes"))
    b = same_run(a, "b") if identical else b
    assert_true_intervals(session(suites["bayes"], a, b), suites["bayes"], identical)


def test_every_bundled_suite_is_drawn() -> None:
    assert set(available_suites()) == {*SYNTHETIC, "bayes"}


def test_a_record_of_the_strategies_is_a_scored_record() -> None:
    from suite_records import Item

    made = record("multisource", "a", Item("i", "c", "A1", {"type": "A", "difficulty": "stable"}), {"correct": True})
    assert made.is_scored and made.key == RunKey("multisource", "a")
