import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from pytest_memeval.stats import compare_rates, mcnemar_exact, paired_sign_flip
from pytest_memeval.stats.signflip import EXACT_MAX_CLUSTERS


def clustered_null(rng: np.random.Generator, n_clusters: int = 40, per_cluster: int = 18, spread: float = 0.1):
    """Two systems with no difference on average but a per-cluster advantage u_c ~ N(0, spread)
    for one or the other: discordant items of a cluster lean the same way."""
    base = rng.uniform(0.3, 0.7, n_clusters)
    lean = np.clip(rng.normal(0.0, spread, n_clusters), -0.25, 0.25)
    p_a, p_b = np.repeat(base + lean, per_cluster), np.repeat(base - lean, per_cluster)
    clusters = np.repeat(np.arange(n_clusters), per_cluster)
    return rng.random(clusters.size) < p_a, rng.random(clusters.size) < p_b, clusters


def test_clustered_null_rejects_at_the_nominal_rate_where_mcnemar_does_not():
    # 40 clusters x 18 items, no true difference, strongly correlated discordances: the
    # item-level exact McNemar rejects far too often, the cluster sign-flip about 5%.
    rng = np.random.default_rng(20260512)
    runs = 1500
    flip = mcnemar = 0
    for _ in range(runs):
        a, b, clusters = clustered_null(rng)
        flip += paired_sign_flip(a, b, clusters, n_resamples=1000).p_value <= 0.05
        mcnemar += mcnemar_exact(a, b).p_value <= 0.05
    assert 0.03 <= flip / runs <= 0.08
    assert mcnemar / runs >= 0.15


def test_interval_covers_a_true_difference():
    rng = np.random.default_rng(3)
    runs, covered = 300, 0
    for _ in range(runs):
        a, b, clusters = clustered_null(rng)
        b = b & (rng.random(b.size) >= 0.2)  # b loses a fifth of its successes
        truth = 0.5 - 0.8 * 0.5  # E[a] - E[b] = 0.1 over the cluster draws
        lo, hi = paired_sign_flip(a, b, clusters, n_resamples=500).ci
        covered += lo <= truth <= hi
    assert 0.90 <= covered / runs <= 0.99


binary_pairs = st.lists(st.tuples(st.booleans(), st.booleans(), st.integers(0, 25)), min_size=1, max_size=120)


@settings(max_examples=150, deadline=None)
@given(binary_pairs, st.sampled_from([0.8, 0.9, 0.95, 0.99]), st.sampled_from([19, 99, 999, 1999]))
def test_p_and_interval_agree_exactly(rows, confidence, n_resamples):
    a, b, clusters = (np.array(column) for column in zip(*rows))
    res = paired_sign_flip(a, b, clusters, n_resamples=n_resamples, confidence=confidence, bounds=(-1, 1))
    rejected = res.p_value <= 1 - confidence
    assert rejected == (not res.ci_low <= 0.0 <= res.ci_high)
    assert -1 <= res.ci_low <= res.difference <= res.ci_high <= 1
    assert res.difference == pytest.approx(np.mean(a) - np.mean(b))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(-3, 3), st.floats(-3, 3), st.integers(0, 30)), min_size=2, max_size=80))
def test_p_and_interval_agree_for_graded_values(rows):
    a, b, clusters = (np.array(column) for column in zip(*rows))
    res = paired_sign_flip(a, b, clusters)
    assert (res.p_value <= 0.05) == (not res.ci_low <= 0.0 <= res.ci_high)


def _p_at(delta: float, diffs: np.ndarray, sizes: np.ndarray, patterns: np.ndarray) -> float:
    """The test of "mean difference = delta", written out directly."""
    residuals = diffs - delta * sizes
    observed = abs(residuals.sum())
    return float(np.mean(np.abs(patterns @ residuals) >= observed - 1e-9))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(-4, 4), st.integers(1, 4)), min_size=3, max_size=12))
def test_interval_ends_are_where_the_test_starts_to_reject(cells):
    # Clusters given directly as (summed difference, size); items make them up.
    diffs = np.array([d for d, n in cells if abs(d) <= n], dtype=float)
    sizes = np.array([n for d, n in cells if abs(d) <= n], dtype=float)
    if diffs.size < 3:
        return
    a = np.concatenate([[1.0] * max(int(d), 0) + [0.0] * int(n - max(d, 0)) for d, n in zip(diffs, sizes)])
    b = np.concatenate([[1.0] * max(int(-d), 0) + [0.0] * int(n - max(-d, 0)) for d, n in zip(diffs, sizes)])
    clusters = np.repeat(np.arange(diffs.size), sizes.astype(int))
    res = paired_sign_flip(a, b, clusters, confidence=0.8)
    patterns = np.array(list(itertools.product([1.0, -1.0], repeat=diffs.size)))
    assert res.exact and res.n_patterns == 2**diffs.size
    assert res.p_value == pytest.approx(_p_at(0.0, diffs, sizes, patterns))
    for end, outward in ((res.ci_low, -1), (res.ci_high, 1)):
        if np.isfinite(end):
            # a degenerate interval (every cluster difference 0: ties at 0 only) has no inside
            if res.ci_high - res.ci_low > 2e-6:
                assert _p_at(end - outward * 1e-6, diffs, sizes, patterns) > 0.2
            assert _p_at(end + outward * 1e-6, diffs, sizes, patterns) <= 0.2


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=EXACT_MAX_CLUSTERS))
def test_one_item_per_cluster_is_exact_mcnemar(pairs):
    a, b = (np.array(column) for column in zip(*pairs))
    res = paired_sign_flip(a, b)
    assert res.exact
    assert res.p_value == pytest.approx(mcnemar_exact(a, b).p_value)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-5, 5).filter(lambda x: abs(x) > 1e-3), min_size=2, max_size=10))
def test_exact_p_matches_scipy_sign_flip_permutation(cluster_differences):
    d = np.array(cluster_differences)
    res = paired_sign_flip(d, np.zeros_like(d))
    ref = stats.permutation_test((d,), np.sum, permutation_type="samples", n_resamples=np.inf)
    assert res.p_value == pytest.approx(ref.pvalue)


def test_too_few_clusters_cannot_reject_and_say_so():
    # 4 clusters, every one in favour of a: the smallest possible two-sided p is 2 / 16.
    a = np.ones(12, dtype=bool)
    b = np.zeros(12, dtype=bool)
    res = paired_sign_flip(a, b, np.repeat(np.arange(4), 3), bounds=(-1, 1))
    assert res.p_value == 2 / 16 and res.ci == (-1.0, 1.0)
    res = paired_sign_flip(a, b, np.repeat(np.arange(4), 3))
    assert res.ci == (-np.inf, np.inf)


def test_the_issue_case_of_few_singletons():
    # Like memfail success_coexisting in the issue (-0.375, McNemar p 0.25 beside a bootstrap
    # CI that excluded 0): 8 singleton items, 3 lost, none won. Now p and CI say the same.
    a = np.array([0, 0, 0, 1, 1, 0, 1, 0], dtype=bool)
    b = np.array([1, 1, 1, 1, 1, 0, 1, 0], dtype=bool)
    res = paired_sign_flip(a, b, bounds=(-1, 1))
    assert res.difference == -0.375 and res.p_value == pytest.approx(mcnemar_exact(a, b).p_value) == 0.25
    # 0 is in the interval; just above 0 every shift is rejected (the ties that make p 0.25 at
    # 0 break there), so the interval ends at 0: see the module's docstring.
    assert res.ci == (-1.0, 0.0)


def test_monte_carlo_beyond_the_exact_limit_is_reproducible():
    rng = np.random.default_rng(1)
    a, b = rng.random(60) < 0.6, rng.random(60) < 0.4
    clusters = np.repeat(np.arange(30), 2)
    first = paired_sign_flip(a, b, clusters, n_resamples=500, seed=4)
    assert not first.exact and first.n_patterns == 501 and first.n_clusters == 30
    assert first == paired_sign_flip(a, b, clusters, n_resamples=500, seed=4)
    assert first.p_value >= 1 / 501


def test_no_difference_gives_p_one():
    a = np.array([1, 0, 1, 1, 0, 0], dtype=bool)
    res = paired_sign_flip(a, a, [0, 0, 1, 1, 2, 2])
    assert res.p_value == 1.0 and res.difference == 0.0 and res.ci_low <= 0.0 <= res.ci_high


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"values_b": [1.0]}, "same length"),
        ({"values_a": [], "values_b": []}, "no items"),
        ({"values_a": [np.nan, 1.0]}, "finite"),
        ({"clusters": [0]}, "one entry per item"),
        ({"n_resamples": 0}, "n_resamples"),
        ({"confidence": 1.0}, "confidence"),
        ({"bounds": (0.1, 1.0)}, "bounds"),
    ],
)
def test_rejects_bad_input(kwargs, message):
    args = {"values_a": [1.0, 0.0], "values_b": [0.0, 0.0], **kwargs}
    with pytest.raises(ValueError, match=message):
        paired_sign_flip(**args)


def test_compare_rates_cell_uses_the_sign_flip_for_p_and_interval():
    rng = np.random.default_rng(5)
    a, b, clusters = clustered_null(rng, n_clusters=12, per_cluster=5)
    cell = compare_rates(list(a), list(b), list(clusters))
    res = paired_sign_flip(a, b, clusters, bounds=(-1, 1))
    assert cell.test == "cluster_sign_flip"
    assert (cell.p_value, cell.ci, cell.difference) == (res.p_value, tuple(res.ci), res.difference)
    assert cell.mde is not None and cell.mde > 0
