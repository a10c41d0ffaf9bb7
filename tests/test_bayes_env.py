"""bayes: environments, exact references, the tempered fits and episode ids, on hand-computed cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from pytest_memeval.suites.bayes import conditions
from pytest_memeval.suites.bayes.conditions import DEFAULT_SEED, episodes, parse_episode_id
from pytest_memeval.suites.bayes.environments import (
    COIN_THETAS,
    IDENTIFY_AT,
    N_TYPES,
    REC_TURNS,
    TYPE_PRIOR,
    Catalogue,
    RecommenderModel,
    coin_flips,
    identification_accuracy,
    recommender_model,
    recommender_ratings,
    stream,
)
from pytest_memeval.suites.bayes.reference import (
    coin_mean,
    expected_rating,
    fit_coin_weight,
    fit_type_weight,
    rating_predictive,
    tvd,
    type_posterior,
)

from pytest_memeval.errors import ConfigError


def tiny_model() -> RecommenderModel:
    """Two types with equal prior and two items, for posteriors computable by hand."""
    phi = (
        ((0.5, 0.2, 0.1, 0.1, 0.1), (0.1, 0.1, 0.1, 0.2, 0.5)),
        ((0.2, 0.2, 0.2, 0.2, 0.2), (0.1, 0.1, 0.6, 0.1, 0.1)),
    )
    catalogue = Catalogue(
        genres=((0,), (1,)),
        anonymous_names=("Item_1", "Item_2"),
        titles=("A", "B"),
        feature_names=("Feature_A", "Feature_B"),
    )
    return RecommenderModel(prior=(0.5, 0.5), phi=phi, catalogue=catalogue, separation=0.0, identification=0.0)


def test_coin_posterior_mean_by_hand() -> None:
    assert coin_mean(0, 0) == 0.5
    assert coin_mean(1, 2) == 0.5
    assert coin_mean(3, 4) == pytest.approx(4 / 6)
    assert coin_mean(3, 4, weight=0.0) == 0.5
    assert coin_mean(1, 1, weight=2.0) == pytest.approx(3 / 4)


def test_type_posterior_and_predictive_by_hand() -> None:
    model = tiny_model()
    # a 1-star rating on item 0: 0.5 vs 0.1 -> 5/6, 1/6
    posterior = type_posterior(model, [(0, 1)])
    assert posterior == pytest.approx([5 / 6, 1 / 6])
    # then a 3 on item 1: 5/6 * 0.2 vs 1/6 * 0.6, i.e. 1/6 vs 1/10 -> 5/8, 3/8
    assert type_posterior(model, [(0, 1), (1, 3)]) == pytest.approx([5 / 8, 3 / 8])
    # tempering by 1/2: sqrt(0.5) vs sqrt(0.1)
    weighted = type_posterior(model, [(0, 1)], weight=0.5)
    assert weighted[0] == pytest.approx(math.sqrt(0.5) / (math.sqrt(0.5) + math.sqrt(0.1)))
    predictive = rating_predictive(model, np.array([5 / 6, 1 / 6]), target=0)
    assert predictive == pytest.approx(
        [
            5 / 6 * 0.5 + 1 / 6 * 0.1,
            5 / 6 * 0.2 + 1 / 6 * 0.1,
            0.1,
            5 / 6 * 0.1 + 1 / 6 * 0.2,
            5 / 6 * 0.1 + 1 / 6 * 0.5,
        ]
    )
    assert expected_rating([0, 0, 1, 0, 0]) == 3.0
    assert tvd([0.5, 0.5], [1.0, 0.0]) == 0.5
    assert tvd([0.2, 0.3, 0.5], [0.2, 0.3, 0.5]) == 0.0


def test_fits_recover_the_tempering_weight() -> None:
    heads, flips = [0, 1, 3, 6, 9], [0, 2, 5, 10, 14]
    for weight in (0.0, 0.3, 1.0, 2.5):
        beliefs = [coin_mean(h, n, weight) for h, n in zip(heads, flips)]
        assert fit_coin_weight(beliefs, heads, flips) == pytest.approx(weight, abs=1e-6)
    model = recommender_model(DEFAULT_SEED)
    ratings, _ = recommender_ratings(DEFAULT_SEED, 2, 0)
    histories = [[(m, ratings[m]) for m in range(t)] for t in (0, 5, 20, 50)]
    for weight in (0.0, 0.4, 1.7):
        beliefs = [type_posterior(model, h, weight) for h in histories]
        assert fit_type_weight(model, beliefs, histories) == pytest.approx(weight, abs=1e-5)


def test_coin_flips_are_a_pure_function_of_their_coordinates() -> None:
    first = coin_flips(DEFAULT_SEED, 0, 0)
    assert len(first) == 100 and first == coin_flips(DEFAULT_SEED, 0, 0)
    assert first != coin_flips(DEFAULT_SEED, 0, 1) and first != coin_flips(DEFAULT_SEED + 1, 0, 0)
    # the empirical rate over the five trials is near the true bias
    for index, theta in enumerate(COIN_THETAS):
        rate = np.mean([coin_flips(DEFAULT_SEED, index, trial) for trial in range(5)])
        assert abs(rate - theta) < 0.06


def test_recommender_tables_are_distributions_with_equal_generosity() -> None:
    model = recommender_model(DEFAULT_SEED)
    phi = model.table()
    assert phi.shape == (REC_TURNS + 5, N_TYPES, 5)
    assert np.allclose(phi.sum(axis=2), 1.0) and phi.min() >= 0.02 / 5 - 1e-12
    assert model.prior == TYPE_PRIOR
    means = model.mean_ratings()[:REC_TURNS].mean(axis=0)
    assert means.max() - means.min() < 0.05  # types differ in taste, not in how generously they rate
    ratings, target = recommender_ratings(DEFAULT_SEED, 1, 3)
    assert len(ratings) == REC_TURNS and set(ratings) <= {1, 2, 3, 4, 5} and target == REC_TURNS + 3
    assert (ratings, target) == recommender_ratings(DEFAULT_SEED, 1, 3)


@pytest.mark.parametrize("seed", [DEFAULT_SEED, 7])
def test_reference_identifies_the_true_type_about_80_percent_after_20_ratings(seed: int) -> None:
    model = recommender_model(seed)
    assert model.identification == pytest.approx(0.80, abs=0.005)  # the calibration sample
    fresh = stream(seed, 99, 99).random((N_TYPES, 3000, IDENTIFY_AT))
    assert identification_accuracy(model.table(), fresh) == pytest.approx(0.80, abs=0.03)


def test_catalogue_labels_are_unique_and_reveal_nothing_of_the_types() -> None:
    catalogue = recommender_model(DEFAULT_SEED).catalogue
    for explicit in (False, True):
        labels = [catalogue.label(m, explicit) for m in range(len(catalogue.genres))]
        assert len(set(labels)) == len(labels)
    assert catalogue.label(0, False).startswith("Item_") and "Feature_" in catalogue.label(0, False)


def test_episode_ids_round_trip_and_bad_ids_are_one_line_errors() -> None:
    for episode in episodes("full", (DEFAULT_SEED, 3)):
        assert parse_episode_id(episode.id) == episode
    for bad in (
        "s1-coin-nope-theta25-trial0",
        "s1-coin-single_turn-unknown_bias-theta30-trial0",
        "s1-coin-single_turn-unknown_bias-theta25-trial9",
        "x",
    ):
        with pytest.raises(ConfigError, match="bayes: "):
            parse_episode_id(bad)


def test_sizes() -> None:
    counts = {size: len(episodes(size, (DEFAULT_SEED,))) for size in conditions.SIZES}
    assert counts == {"smoke": 5 * 3 + 5 * 4, "small": (21 * 3 + 8 * 4) * 2, "full": (22 * 3 + 9 * 4) * 5}
    with pytest.raises(ConfigError):
        episodes("huge", (DEFAULT_SEED,))
