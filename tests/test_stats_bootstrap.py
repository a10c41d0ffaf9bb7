import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from pytest_memeval.stats import (
    bootstrap_macro_mean,
    bootstrap_mean,
    bootstrap_multisource,
    cluster_bootstrap,
    multisource_columns,
    multisource_metrics,
    paired_bootstrap_mean,
    paired_bootstrap_multisource,
    paired_cluster_bootstrap,
    ratio,
    resample_weights,
)
from pytest_memeval.stats.bootstrap import SHARED_WEIGHT_CELLS, _draw_weights, _shared_weights

# --- hand-computed cases -----------------------------------------------------------------------

# (cluster, group, correct, answered); `correct` is on the answer recorded before abstaining.
HAND = [
    ("p1", "g1", 1, 1),
    ("p1", "g1", 0, 1),
    ("p1", "g2", 1, 0),
    ("p1", "g3", 0, 0),
    ("p2", "g1", 1, 1),
    ("p2", "g2", 0, 0),
    ("p2", "g2", 0, 1),
]
# g1: correct 2/3, answered 3, correct&answered 2 -> acc 2/3, selacc 2/3
# g2: correct 1/3, answered 1, correct&answered 0 -> acc 1/3, selacc 0
# g3: correct 0/1, answered 0                    -> acc 0,   selacc undefined (skipped)
# accuracy = (2/3 + 1/3 + 0) / 3 = 1/3; coverage = 4/7; selacc = (2/3 + 0) / 2 = 1/3
# F0.5: P = 1/3, R = P * Cov / Acc = 4/7, F = 1.25 P R / (0.25 P + R) = 4/11
HAND_EXPECTED = {"accuracy": 1 / 3, "coverage": 4 / 7, "selective_accuracy": 1 / 3, "f0.5": 4 / 11}


def _hand_arrays():
    clusters, groups, correct, answered = map(np.array, zip(*HAND))
    return clusters, groups, correct.astype(bool), answered.astype(bool)


def test_multisource_metrics_hand_computed():
    clusters, groups, correct, answered = _hand_arrays()
    res = bootstrap_multisource(correct, answered, clusters, groups, n_resamples=200)
    assert set(res) == set(HAND_EXPECTED)
    for name, expected in HAND_EXPECTED.items():
        assert res[name].estimate == pytest.approx(expected), name


def test_macro_mean_hand_computed():
    values = [1.0, 0.0, 1.0, 0.5, 0.25]
    groups = ["a", "a", "b", "c", "c"]
    # a: 0.5, b: 1.0, c: 0.375 -> macro 0.625; micro would be 0.55
    assert bootstrap_macro_mean(values, groups, n_resamples=50).estimate == pytest.approx(0.625)
    assert bootstrap_mean(values, n_resamples=50).estimate == pytest.approx(0.55)


def test_f_beta_zero_when_nothing_correct():
    res = bootstrap_multisource([0, 0, 0], [1, 1, 0], ["a", "b", "c"], ["q", "q", "q"], n_resamples=50)
    assert res["accuracy"].estimate == 0.0
    assert res["f0.5"].estimate == 0.0


def test_custom_metric_over_grouped_sums():
    # A suite's own metric: share of answered items among the hard ones, written once.
    hard = np.array([1, 1, 0, 1, 0, 0], dtype=float)
    answered = np.array([1, 0, 1, 1, 1, 0], dtype=float)
    metric = {"answered_if_hard": lambda s: ratio(s["ah"].sum(-1), s["hard"].sum(-1))}
    res = cluster_bootstrap(metric, {"hard": hard, "ah": hard * answered}, clusters=[0, 0, 1, 1, 2, 2], n_resamples=300)
    assert res["answered_if_hard"].estimate == pytest.approx(2 / 3)
    assert res["answered_if_hard"].resamples.shape == (300,)


def test_resample_weights_are_multinomial_counts():
    w = resample_weights(7, 500, seed=3)
    assert w.shape == (500, 7)
    assert np.all(w.sum(axis=1) == 7)
    assert abs(w.mean() - 1.0) < 0.05


def test_seeded_weights_drawn_once_are_the_same_draws_and_each_caller_gets_its_own_copy():
    first = resample_weights(120, 2000, seed=0)
    first[:] = -1.0  # a caller's array is its own: writing to it changes no later result
    again = resample_weights(120, 2000, seed=0)
    assert again.flags.writeable and np.all(again.sum(axis=1) == 120)
    assert np.array_equal(again, _draw_weights(120, 2000, 0))
    shared = _shared_weights(120, 2000, 0)  # what the bootstraps read: one matrix, read-only
    assert shared is _shared_weights(120, 2000, 0) and not shared.flags.writeable
    big = SHARED_WEIGHT_CELLS // 100 + 1  # over the shared size: drawn again, the same draws
    assert np.array_equal(resample_weights(big, 100, seed=5), _draw_weights(big, 100, 5))
    assert not np.array_equal(resample_weights(50, 100, seed=None), resample_weights(50, 100, seed=None))


@pytest.mark.parametrize(
    ("n_clusters", "n_resamples", "seed"),
    [(1, 1, 0), (7, 3, 1), (1920, 2000, 0), (SHARED_WEIGHT_CELLS // 3 + 1, 7, 5), (SHARED_WEIGHT_CELLS + 1, 2, 2)],
)
def test_weights_drawn_a_block_at_a_time_are_the_counts_of_one_draw_of_the_whole_matrix(
    n_clusters: int, n_resamples: int, seed: int
) -> None:
    """A block of resamples at a time (a few megabytes; the last three cases take several
    blocks) draws what one call over the whole matrix does: seeded intervals stay the same."""
    draws = np.random.default_rng(seed).integers(0, n_clusters, size=(n_resamples, n_clusters))
    draws += np.arange(n_resamples)[:, None] * n_clusters
    whole = np.bincount(draws.ravel(), minlength=draws.size).reshape(draws.shape).astype(float)
    assert np.array_equal(_draw_weights(n_clusters, n_resamples, seed), whole)


def test_rejects_bad_input():
    with pytest.raises(ValueError):
        bootstrap_mean([1.0, np.nan])
    with pytest.raises(ValueError):
        bootstrap_mean([1.0, 2.0], clusters=[1])
    with pytest.raises(ValueError):
        cluster_bootstrap({}, {"n": [1.0]})


# --- cross-checks -------------------------------------------------------------------------------


def test_plain_mean_agrees_with_scipy_percentile_bootstrap():
    x = np.random.default_rng(11).normal(3.0, 2.0, size=300)
    ours = bootstrap_mean(x, n_resamples=5000, seed=1)
    ref = stats.bootstrap((x,), np.mean, n_resamples=5000, method="percentile", rng=np.random.default_rng(2))
    se = x.std(ddof=1) / np.sqrt(x.size)
    assert ours.estimate == pytest.approx(x.mean())
    assert ours.ci_low == pytest.approx(ref.confidence_interval.low, abs=0.25 * se)
    assert ours.ci_high == pytest.approx(ref.confidence_interval.high, abs=0.25 * se)
    assert ours.ci_low == pytest.approx(x.mean() - 1.96 * se, abs=0.25 * se)


def test_clustering_widens_interval_for_correlated_items():
    rng = np.random.default_rng(5)
    clusters = np.repeat(np.arange(40), 25)
    x = rng.normal(0, 1, 40)[clusters] + rng.normal(0, 0.3, clusters.size)
    clustered = bootstrap_mean(x, clusters, seed=0)
    iid = bootstrap_mean(x, seed=0)
    assert (clustered.ci_high - clustered.ci_low) > 3 * (iid.ci_high - iid.ci_low)


def test_paired_keeps_the_pairing():
    # b is a noisy copy of a: paired differences vary far less than either system alone.
    rng = np.random.default_rng(8)
    clusters = np.repeat(np.arange(60), 10)
    a = rng.normal(0, 1, 60)[clusters] + rng.normal(0, 1, clusters.size)
    b = a + rng.normal(0.1, 0.2, clusters.size)
    paired = paired_bootstrap_mean(a, b, clusters, seed=0)
    wa = np.diff(bootstrap_mean(a, clusters, seed=0).ci)[0]
    wb = np.diff(bootstrap_mean(b, clusters, seed=1).ci)[0]
    assert paired.ci_high - paired.ci_low < 0.3 * np.hypot(wa, wb)
    assert paired.difference == pytest.approx(a.mean() - b.mean())
    assert paired.ci_high < 0 and paired.p_value == pytest.approx(1 / 2001)


def test_paired_p_value_is_doubled_tail_share():
    rng = np.random.default_rng(4)
    a = rng.random(200) < 0.6
    b = rng.random(200) < 0.55
    res = paired_bootstrap_mean(a, b, n_resamples=1000, seed=9)
    d = res.resamples
    expected = min(1.0, max(2 * min(np.mean(d <= 0), np.mean(d >= 0)), 1 / 1001))
    assert res.p_value == expected
    assert 0 < res.p_value <= 1


# --- properties ---------------------------------------------------------------------------------


@st.composite
def multisource_data(draw, min_clusters=3, max_clusters=12):
    n_clusters = draw(st.integers(min_clusters, max_clusters))
    n_groups = draw(st.integers(1, 4))
    sizes = draw(st.lists(st.integers(1, 4), min_size=n_clusters * n_groups, max_size=n_clusters * n_groups))
    clusters = np.repeat(np.repeat(np.arange(n_clusters), n_groups), sizes)
    groups = np.repeat(np.tile(np.arange(n_groups), n_clusters), sizes)
    n = clusters.size
    correct = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    answered = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    return clusters, groups, correct, answered


@settings(max_examples=60, deadline=None)
@given(multisource_data(), st.randoms(use_true_random=False))
def test_item_order_does_not_matter(data, rnd):
    clusters, groups, correct, answered = data
    perm = np.array(rnd.sample(range(clusters.size), clusters.size))
    a = bootstrap_multisource(correct, answered, clusters, groups, n_resamples=300, seed=7)
    b = bootstrap_multisource(correct[perm], answered[perm], clusters[perm], groups[perm], n_resamples=300, seed=7)
    for name in a:
        assert a[name].estimate == b[name].estimate or np.isnan(a[name].estimate)
        np.testing.assert_array_equal(a[name].resamples, b[name].resamples)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=2, max_size=60), st.randoms(use_true_random=False))
def test_item_order_does_not_matter_for_float_scores(values, rnd):
    x = np.array(values)
    clusters = np.arange(x.size) % 5
    perm = np.array(rnd.sample(range(x.size), x.size))
    a = bootstrap_mean(x, clusters, n_resamples=200, seed=1)
    b = bootstrap_mean(x[perm], clusters[perm], n_resamples=200, seed=1)
    assert a.estimate == b.estimate
    np.testing.assert_array_equal(a.resamples, b.resamples)


def test_item_order_does_not_matter_even_where_float_sums_would():
    # (0.1 + 0.2) + 0.3 != (0.3 + 0.2) + 0.1 in floating point
    x = np.array([0.1, 0.2, 0.3, 0.7, 0.9])
    clusters = np.array([0, 0, 0, 1, 1])
    a = bootstrap_mean(x, clusters, n_resamples=100)
    b = bootstrap_mean(x[::-1], clusters[::-1], n_resamples=100)
    assert a.estimate == b.estimate
    np.testing.assert_array_equal(a.resamples, b.resamples)


@settings(max_examples=40, deadline=None)
@given(multisource_data(), st.integers(0, 2**32 - 1))
def test_reproducible_for_a_seed(data, seed):
    a = bootstrap_multisource(*data, n_resamples=200, seed=seed)
    b = bootstrap_multisource(*data, n_resamples=200, seed=seed)
    for name in a:
        assert a[name].ci == b[name].ci or np.isnan(a[name].ci_low)
        np.testing.assert_array_equal(a[name].resamples, b[name].resamples)


def test_different_seeds_differ():
    x = np.random.default_rng(0).random(100)
    assert not np.array_equal(bootstrap_mean(x, seed=1).resamples, bootstrap_mean(x, seed=2).resamples)


@settings(max_examples=60, deadline=None)
@given(multisource_data(min_clusters=5))
def test_interval_contains_estimate(data):
    clusters, groups, correct, answered = data
    res = bootstrap_mean(correct, clusters, n_resamples=1000, seed=0)
    assert res.ci_low <= res.estimate <= res.ci_high
    macro = bootstrap_macro_mean(correct, groups, clusters, n_resamples=1000, seed=0)
    assert macro.ci_low <= macro.estimate <= macro.ci_high


@settings(max_examples=40, deadline=None)
@given(multisource_data(min_clusters=3, max_clusters=8))
def test_interval_shrinks_with_replicated_clusters(data):
    clusters, groups, correct, answered = data
    x = correct.astype(float)
    cluster_means = np.bincount(clusters, weights=x) / np.bincount(clusters)
    if np.ptp(cluster_means) == 0:
        return  # no between-cluster variation: the interval is a point already
    small = bootstrap_mean(x, clusters, n_resamples=1000, seed=0)
    k = clusters.max() + 1
    big_clusters = np.concatenate([clusters + r * k for r in range(4)])
    big = bootstrap_mean(np.tile(x, 4), big_clusters, n_resamples=1000, seed=0)
    assert big.estimate == pytest.approx(small.estimate)
    assert big.ci_high - big.ci_low < small.ci_high - small.ci_low


@settings(max_examples=40, deadline=None)
@given(multisource_data())
def test_paired_difference_with_itself_is_zero(data):
    clusters, groups, correct, answered = data
    res = paired_bootstrap_multisource(correct, answered, correct, answered, clusters, groups, n_resamples=200)
    for name, r in res.items():
        if np.isnan(r.estimate_a):
            continue
        assert r.difference == 0.0, name
        assert r.ci == (0.0, 0.0), name
        assert r.p_value == 1.0, name


def test_paired_generic_matches_single_system_estimates():
    clusters, groups, correct, answered = _hand_arrays()
    flipped = ~correct
    res = paired_cluster_bootstrap(
        multisource_metrics(),
        multisource_columns(correct, answered),
        multisource_columns(flipped, answered),
        clusters,
        groups,
        n_resamples=100,
    )
    single_a = bootstrap_multisource(correct, answered, clusters, groups, n_resamples=100)
    single_b = bootstrap_multisource(flipped, answered, clusters, groups, n_resamples=100)
    for name in res:
        assert res[name].estimate_a == pytest.approx(single_a[name].estimate)
        assert res[name].estimate_b == pytest.approx(single_b[name].estimate)
        # Same seed, same clusters: the paired resamples are the differences of the single ones.
        np.testing.assert_allclose(res[name].resamples, single_a[name].resamples - single_b[name].resamples)
