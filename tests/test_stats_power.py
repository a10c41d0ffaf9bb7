import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from pytest_memeval.stats import (
    design_effect,
    icc_oneway,
    mde_from_parameters,
    minimum_detectable_effect,
    minimum_detectable_effect_binary,
)

Z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)  # 2.8016


def test_unclustered_formula():
    assert mde_from_parameters(1.0, 100) == pytest.approx(0.28016, abs=1e-5)
    assert mde_from_parameters(2.0, 400, alpha=0.01, power=0.9) == pytest.approx(
        (stats.norm.ppf(0.995) + stats.norm.ppf(0.9)) * 2.0 / 20.0
    )


@given(st.floats(0.01, 10), st.integers(2, 10_000), st.floats(1, 50))
def test_icc_zero_reduces_to_unclustered(sd, n, m_bar):
    assert mde_from_parameters(sd, n, icc=0.0, mean_cluster_size=m_bar) == pytest.approx(Z * sd / np.sqrt(n))


@given(st.floats(0.01, 10), st.integers(2, 10_000), st.floats(1.5, 50), st.floats(0, 0.99), st.floats(0.001, 0.5))
def test_mde_grows_with_icc(sd, n, m_bar, icc, step):
    lower = mde_from_parameters(sd, n, icc=icc, mean_cluster_size=m_bar)
    higher = mde_from_parameters(sd, n, icc=min(1.0, icc + step), mean_cluster_size=m_bar)
    assert higher > lower
    assert higher == pytest.approx(
        lower * np.sqrt(design_effect(m_bar, min(1.0, icc + step)) / design_effect(m_bar, icc))
    )


def test_icc_hand_computed():
    # Means 2 and 5, grand mean 3.5: MSB = 3 * (1.5^2 + 1.5^2) = 13.5, MSW = 4 / 4 = 1,
    # m0 = 3: ICC = (13.5 - 1) / (13.5 + 2 * 1) = 12.5 / 15.5
    assert icc_oneway([1, 2, 3, 4, 5, 6], ["a"] * 3 + ["b"] * 3) == pytest.approx(12.5 / 15.5)
    assert icc_oneway([1, 2, 3], [0, 1, 2]) == 0.0
    assert np.isnan(icc_oneway([1, 2, 3], [0, 0, 0]))
    assert icc_oneway([4, 4, 4, 4], [0, 0, 1, 1]) == 0.0


def test_icc_recovers_simulated_value():
    rng = np.random.default_rng(0)
    clusters = np.repeat(np.arange(400), 10)
    y = rng.normal(0, 1, 400)[clusters] + rng.normal(0, np.sqrt(3), clusters.size)  # ICC = .25
    assert icc_oneway(y, clusters) == pytest.approx(0.25, abs=0.05)


def test_mde_from_observed_differences():
    rng = np.random.default_rng(1)
    clusters = np.repeat(np.arange(100), 12)
    d = 0.1 + rng.normal(0, 0.5, 100)[clusters] + rng.normal(0, 0.5, clusters.size)
    clustered = minimum_detectable_effect(d, clusters)
    naive = minimum_detectable_effect(d)
    assert naive.icc == 0.0 and naive.design_effect == 1.0
    assert naive.mde == pytest.approx(Z * np.std(d, ddof=1) / np.sqrt(d.size))
    assert clustered.icc == pytest.approx(0.5, abs=0.1)
    assert clustered.design_effect == pytest.approx(1 + 11 * clustered.icc)
    assert clustered.effective_n == pytest.approx(d.size / clustered.design_effect)
    assert clustered.mde == pytest.approx(naive.mde * np.sqrt(clustered.design_effect))
    assert (clustered.n, clustered.n_clusters, clustered.mean_cluster_size) == (1200, 100, 12.0)


def test_mde_binary():
    a = np.array([1, 1, 0, 1, 0, 1, 1, 0], dtype=bool)
    b = np.array([1, 0, 0, 1, 1, 0, 1, 0], dtype=bool)
    res = minimum_detectable_effect_binary(a, b)
    d = a.astype(float) - b.astype(float)
    assert res.mde == pytest.approx(Z * np.std(d, ddof=1) / np.sqrt(8))


def test_binary_mde_of_identical_runs_is_not_zero():
    """Two identical runs have no discordance; the MDE falls back to the one-way floor."""
    from pytest_memeval.stats import minimum_detectable_effect_binary

    outcomes = [True, False] * 108
    result = minimum_detectable_effect_binary(outcomes, outcomes)
    c2 = (1.959964 + 0.841621) ** 2
    assert result.mde == pytest.approx(c2 / (216 + c2), rel=1e-4)  # ~0.035 for n = 216
    noisy = minimum_detectable_effect_binary(outcomes, outcomes[1:] + outcomes[:1])
    assert noisy.mde > result.mde
