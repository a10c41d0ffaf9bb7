"""bayes: the trajectory judge, the run summary, paired comparisons, the pooled effective
sample size and the trajectory figures, on hand-computed cases and self-test agents."""

from __future__ import annotations

import numpy as np
import pytest
from pytest_memeval.suites.bayes import (
    BayesSuite,
    DeduplicatingMemory,
    last_k,
    memoryless,
    perfect_bayesian,
    tempered,
)
from pytest_memeval.suites.bayes.conditions import Condition, Episode
from pytest_memeval.suites.bayes.episode import EpisodeData
from pytest_memeval.suites.bayes.figures import trajectory_figures
from pytest_memeval.suites.bayes.judge import coin_verdict, recommender_verdict
from pytest_memeval.suites.bayes.offline import run_episodes
from pytest_memeval.suites.bayes.summary import compare, summarize
from test_bayes_env import tiny_model

from pytest_memeval.framework.figures import LineChart, figure_from_json, figure_to_json
from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.memory.context import ContextMemory
from pytest_memeval.memory.none import NoMemory
from pytest_memeval.results.records import Record, Report, RunSummary

MAIN = (
    "passive_b1-identical-unknown_bias",
    "passive_b1-anonymized",
    "single_turn-unknown_bias",
    "single_turn-anonymized",
)


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> BayesSuite:
    options = SuiteOptions(
        size="smoke",
        split=None,
        seeds=None,
        k=10,
        data_dir=None,
        cache_dir=tmp_path_factory.mktemp("bayes"),
        bootstrap=300,
    )
    return BayesSuite(options)


@pytest.fixture(scope="module")
def episode_ids(suite: BayesSuite) -> list[str]:
    return [e.id for e in suite.index() if any(f"-{c}-" in e.id for c in MAIN)]


def test_coin_verdict_by_hand() -> None:
    data = EpisodeData(
        Episode(1, Condition("coin", "passive", 1, "identical", "unknown_bias"), 0, 0), (True, False, True, True)
    )
    trajectory = [
        {"t": 0, "p_heads": 0.5, "stored": 0},
        {"t": 2, "p_heads": 0.6, "stored": 2, "seen": 1},
        {"t": 4, "p_heads": 0.7, "stored": 4, "seen": 4},
    ]
    verdict = coin_verdict(data, trajectory)
    # references 1/2, 2/4, 4/6: errors 0, 0.1, 0.7 - 2/3
    assert verdict.detail["mae"] == pytest.approx((0.1 + 0.7 - 2 / 3) / 3)
    assert verdict.detail["final_error"] == pytest.approx(0.7 - 2 / 3)
    assert [p["heads"] for p in verdict.detail["per_probe"]] == [0, 1, 3]
    assert verdict.detail["evidence_recall"] == pytest.approx((0.5 + 1.0) / 2)
    assert verdict.correct is True and verdict.score == pytest.approx(1 - verdict.detail["mae"])
    worse = coin_verdict(data, [dict(e, p_heads=0.9) for e in trajectory])
    assert worse.correct is False and "trajectory MAE" in worse.reason and "returned 4 of 4" in worse.reason


def test_recommender_verdict_by_hand() -> None:
    model = tiny_model()
    episode = Episode(1, Condition("recommender", "passive", profile="anonymized"), 0, 0)
    data = EpisodeData(episode, (1, 3), model, target=0)
    conditional = [list(model.phi[0][0]), list(model.phi[0][1])]
    trajectory = [{"t": t, "type": [0.5, 0.5], "rating": [0.2] * 5, "conditional": conditional} for t in (0, 1, 2)]
    verdict = recommender_verdict(data, trajectory)
    # reference type posteriors: (1/2, 1/2), (5/6, 1/6), (5/8, 3/8)
    assert verdict.detail["type_tvd"] == pytest.approx((0 + 1 / 3 + 1 / 8) / 3)
    assert verdict.detail["final_type_tvd"] == pytest.approx(1 / 8)
    assert verdict.detail["p_true_type"] == pytest.approx(0.5)
    predictive = np.array([5 / 8, 3 / 8]) @ np.asarray(model.phi[0])
    assert verdict.detail["per_probe"][2]["rating_tvd"] == pytest.approx(0.5 * np.abs(predictive - 0.2).sum())
    # the belief's argmax (a tie: type 1) rates item 0 at 0.5+0.4+0.3+0.4+0.5 = 2.1 on average;
    # the reference predictive at t=2 at 5/8 * 2.1 + 3/8 * 3.9 = 2.775
    assert verdict.detail["per_probe"][2]["conditioned_rating_mae"] == pytest.approx(0.675)
    assert verdict.correct is False  # type TVD 0.153 > 0.1


def test_summary_averages_episodes_through_memory_and_keeps_the_control_apart(
    suite: BayesSuite, episode_ids: list[str]
) -> None:
    records = run_episodes(suite, NoMemory(), "none", perfect_bayesian(), "reader", episode_ids, 10)
    summary = summarize(records, 300)
    memory = [r for r in records if r.strata["delivery"] != "single_turn"]
    coin = [r.detail["mae"] for r in memory if r.task == "coin"]
    assert summary.metrics["coin_mae"].value == pytest.approx(np.mean(coin), abs=1e-6)
    assert summary.metrics["coin_mae"].n == 3 and summary.metrics["type_tvd"].n == 4
    lo, hi = summary.metrics["coin_mae"].ci
    assert lo <= summary.metrics["coin_mae"].value <= hi
    control = summary.extra["control"]
    assert control["coin_mae"]["value"] == 0.0 and control["within_tolerance"]["value"] == 1.0
    assert summary.metrics["evidence_recall"].value == 0.0
    assert summary.metrics["within_tolerance"].value == pytest.approx(np.mean([bool(r.correct) for r in memory]))
    assert summary.metrics["coin_ess"].value == 0.0  # the prior: no evidence reaches the belief
    cells = summary.breakdown["coin_condition"]
    assert (
        set(cells) == {"passive_b1-identical-unknown_bias", "single_turn-unknown_bias"}
        and cells["single_turn-unknown_bias"].n == 3
    )
    by_turn = summary.breakdown["coin_error_by_turn"]
    first = [np.mean([p["error"] for p in r.detail["per_probe"] if p["t"] <= 10]) for r in memory if r.task == "coin"]
    assert by_turn["t0-10"].metrics["coin_mae"].value == pytest.approx(np.mean(first), abs=1e-6)
    assert summary.extra["readouts"] == {"direct": len(records)}


def test_paired_comparison_of_two_memories(suite: BayesSuite, episode_ids: list[str]) -> None:
    full = run_episodes(suite, ContextMemory(), "context", perfect_bayesian(), "reader", episode_ids, 10)
    empty = run_episodes(suite, NoMemory(), "none", perfect_bayesian(), "reader", episode_ids, 10)
    result = compare(full, empty, 300)
    coin_none = np.mean([r.detail["mae"] for r in empty if r.task == "coin"])
    assert result["coin_mae"].difference == pytest.approx(-coin_none, abs=1e-6)
    assert result["coin_mae"].ci[1] <= 0 and result["coin_mae"].test == "paired_cluster_bootstrap"
    assert "coin_ess" not in result and result["within_tolerance"].difference > 0
    metrics = summarize(full, 300).metrics
    assert (
        metrics["retrieval_recency"].value == 0.5 and metrics["evidence_recall"].value == 1.0
    )  # it returns everything


def test_a_deduplicating_memory_loses_identical_observations_only(suite: BayesSuite) -> None:
    pairs = [e.id for e in suite.index() if "-passive_b1-identical-" in e.id or "-passive_b1-indexed-" in e.id]
    records = run_episodes(suite, DeduplicatingMemory(), "dedup", perfect_bayesian(), "reader", pairs, 10)
    identical = [r for r in records if "identical" in r.id]
    indexed = [r for r in records if "indexed" in r.id]
    assert all(r.detail["mae"] == 0.0 and r.detail["evidence_recall"] == 1.0 for r in indexed)
    # two distinct texts survive ('The flip was: heads' / 'tails'): the belief sits near 1/2
    assert all(r.answer_detail["trajectory"][-1]["seen"] == 2 for r in identical)
    assert np.mean([r.detail["mae"] for r in identical]) > 0.1


def test_pooled_effective_sample_size_follows_theory(suite: BayesSuite, episode_ids: list[str]) -> None:
    memory_ids = [i for i in episode_ids if "single_turn" not in i]
    for agent, coin, types in ((perfect_bayesian(), 100, 50), (tempered(0.5), 50, 25), (memoryless(), 0, 0)):
        metrics = summarize(
            run_episodes(suite, ContextMemory(), "context", agent, agent.name, memory_ids, 10), 300
        ).metrics
        assert metrics["coin_ess"].value == pytest.approx(coin, abs=1e-3)
        assert metrics["type_ess"].value == pytest.approx(types, abs=1e-3)
        assert metrics["coin_ess"].ci == pytest.approx((coin, coin), abs=0.05)
    window = summarize(
        run_episodes(suite, ContextMemory(), "context", last_k(10), "last_10", memory_ids, 10), 300
    ).metrics
    assert 5 < window["type_ess"].value < 20  # about the 10 ratings it keeps


def test_trajectory_figures_per_condition(suite: BayesSuite, episode_ids: list[str]) -> None:
    records = run_episodes(suite, ContextMemory(), "context", tempered(0.5), "tempered", episode_ids, 10)
    records += run_episodes(suite, NoMemory(), "none", perfect_bayesian(), "reader", episode_ids, 10)
    figures = trajectory_figures(_report(records), "bayes")
    titles = [f.title for f in figures]
    assert titles == [
        "bayes coin | passive_b1-identical-unknown_bias: p(heads) vs the Bayesian posterior mean",
        "bayes coin | single_turn-unknown_bias: p(heads) vs the Bayesian posterior mean",
        "bayes coin: |belief - Bayes| by turn, one observation per session",
        "bayes recommender | passive_b1-anonymized: probability on the true type",
        "bayes recommender | single_turn-anonymized: probability on the true type",
    ]
    coin = figures[0]
    assert isinstance(coin, LineChart) and figure_from_json(figure_to_json(coin)) == coin
    names = [s.name for s in coin.series]
    assert "context | tempered, theta=0.25" in names and [s.name for s in coin.series if s.reference] == [
        "Bayes, theta=0.25",
        "Bayes, theta=0.5",
        "Bayes, theta=0.75",
    ]
    flat = next(s for s in coin.series if s.name == "none | reader, theta=0.75")
    assert {y for _, y in flat.points} == {0.5} and len(flat.points) == 101
    assert trajectory_figures(_report([]), "bayes") == []


def _report(records: list[Record]) -> Report:
    keys = sorted({r.key for r in records})
    return Report({}, tuple(RunSummary.of(k, [r for r in records if r.key == k]) for k in keys), tuple(records))
