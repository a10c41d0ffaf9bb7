import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from pytest_memeval.stats import (
    cluster_means,
    mcnemar_exact,
    mcnemar_exact_counts,
    signed_rank_exact,
    wilcoxon_clusters,
)
from pytest_memeval.stats.paired import WILCOXON_EXACT_MAX

# Seed paper 004, section 4.1, per-subject results table: the 14 main-study subjects (9 low-
# and 5 mid-baseline; Franklin, the high-baseline reference, is not among them). Columns
# "C5 baseline" and "C4a facts+Spec". The paper reports Wilcoxon W = 11, p = 0.007.
SUBJECTS = {
    "Ebers": (1.02, 2.07),
    "Sunity Devee": (1.03, 2.41),
    "Hamerton": (1.26, 2.77),
    "Fukuzawa": (1.67, 2.78),
    "Bernal Diaz": (1.70, 2.48),
    "Babur": (1.76, 2.01),
    "Seacole": (1.77, 2.59),
    "Keckley": (1.84, 2.44),
    "Yung Wing": (1.88, 2.40),
    "Zitkala-Sa": (2.34, 2.02),
    "Cellini": (2.38, 2.53),
    "Rousseau": (2.44, 2.53),
    "Augustine": (2.58, 2.70),
    "Equiano": (2.77, 2.42),
}
C5 = np.array([v[0] for v in SUBJECTS.values()])
C4A = np.array([v[1] for v in SUBJECTS.values()])
# The same table's "C2a Spec" column, same subjects in the same order. The paper (footnote to
# section 4.1): "C5 vs. C2a W = 10 (p = 0.005)". Two deltas tie at -0.31.
C2A = np.array([1.54, 2.27, 2.63, 2.35, 2.27, 1.91, 2.48, 2.43, 2.22, 2.03, 2.54, 2.81, 2.48, 2.46])
EXACT = stats.PermutationMethod(n_resamples=np.inf)  # scipy's exact sign-flip enumeration


def test_wilcoxon_reproduces_seed_004():
    res = wilcoxon_clusters(C4A, C5)
    assert res.statistic == 11 and res.method == "exact"
    assert res.p_value == pytest.approx(0.0067, abs=5e-5)
    assert (res.n, res.improved, res.tied, res.worse) == (14, 12, 0, 2)
    assert res.median_delta == pytest.approx(0.56)


def test_wilcoxon_with_ties_is_exact_as_in_seed_004():
    res = wilcoxon_clusters(C2A, C5)
    assert res.statistic == 10 and res.method == "exact"
    assert res.p_value == pytest.approx(0.005, abs=5e-5)  # 41 / 8192 sign patterns
    assert res.p_value == 41 / 8192
    # scipy's default goes to the normal approximation with ties: 0.0076, not the paper's.
    assert stats.wilcoxon(np.round(C2A - C5, 12)).pvalue == pytest.approx(0.0076, abs=5e-5)


def test_wilcoxon_aggregates_items_to_cluster_means():
    # Three items per subject whose mean is the subject's score: same test as on the table.
    offsets = np.array([-0.2, 0.05, 0.15])
    names = np.repeat(list(SUBJECTS), 3)
    c5_items = np.repeat(C5, 3) + np.tile(offsets, 14)
    c4a_items = np.repeat(C4A, 3) + np.tile(offsets[::-1], 14)
    res = wilcoxon_clusters(c4a_items, c5_items, names)
    assert res.statistic == 11
    assert res.p_value == pytest.approx(0.0067138671875)


def test_wilcoxon_counts_ties_and_drops_them_from_the_test():
    t = np.array([3.0, 2.0, 4.0, 5.0, 1.0, 2.5, 3.5])
    b = np.array([2.0, 2.0, 3.0, 3.0, 2.0, 2.5, 1.0])
    res = wilcoxon_clusters(t, b)
    assert (res.improved, res.tied, res.worse) == (4, 2, 1)
    d = t - b
    ref = stats.wilcoxon(d[d != 0], method=EXACT)  # the zeros dropped, the tied 1s kept
    assert res.statistic == ref.statistic
    assert res.p_value == pytest.approx(ref.pvalue)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(-4, 4).filter(bool), min_size=2, max_size=10),
    st.sampled_from(["two-sided", "greater", "less"]),
)
def test_signed_rank_exact_with_ties_matches_full_enumeration(d, alternative):
    statistic, p = signed_rank_exact(d, alternative)
    ref = stats.wilcoxon(d, alternative=alternative, method=EXACT)
    assert statistic == ref.statistic
    assert p == pytest.approx(ref.pvalue)


def test_signed_rank_of_one_difference():
    assert signed_rank_exact([2.0]) == (0.0, 1.0)
    assert signed_rank_exact([2.0], "greater") == (1.0, 0.5)
    assert signed_rank_exact([-2.0], "greater") == (0.0, 1.0)


@settings(max_examples=50, deadline=None)
@given(
    # distinct beyond the 12 decimals wilcoxon_clusters rounds to (an ulp apart is a tie there)
    st.lists(st.floats(0.01, 5), min_size=6, max_size=40, unique_by=lambda m: round(m, 9)),
    st.data(),
    st.sampled_from(["two-sided", "greater", "less"]),
)
def test_signed_rank_without_ties_matches_scipy_exact(magnitudes, data, alternative):
    signs = data.draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=len(magnitudes), max_size=len(magnitudes)))
    d = np.array(magnitudes) * signs
    res = wilcoxon_clusters(d, np.zeros_like(d), alternative=alternative)
    ref = stats.wilcoxon(d, alternative=alternative, method="exact")
    assert res.statistic == ref.statistic
    assert res.p_value == pytest.approx(ref.pvalue)


def test_signed_rank_rejects_zeros_and_unknown_alternatives():
    with pytest.raises(ValueError, match="zero"):
        signed_rank_exact([1.0, 0.0])
    with pytest.raises(ValueError, match="alternative"):
        signed_rank_exact([1.0, 2.0], "sideways")


def test_wilcoxon_beyond_the_exact_limit_uses_the_normal_approximation():
    d = np.random.default_rng(0).normal(0.1, 1.0, WILCOXON_EXACT_MAX + 50).round(1)
    d = d[d != 0]
    assert d.size > WILCOXON_EXACT_MAX
    res = wilcoxon_clusters(d, np.zeros_like(d))
    assert res.method == "normal"
    assert res.p_value == pytest.approx(stats.wilcoxon(d, method="approx").pvalue)
    # at the limit the exact p and the approximation are close
    exact = wilcoxon_clusters(d[:WILCOXON_EXACT_MAX], np.zeros(WILCOXON_EXACT_MAX))
    assert exact.method == "exact"
    assert exact.p_value == pytest.approx(stats.wilcoxon(d[:WILCOXON_EXACT_MAX], method="approx").pvalue, rel=0.02)


def test_cluster_means():
    ids, means = cluster_means([1.0, 2.0, 3.0, 10.0], ["b", "b", "a", "b"])
    assert list(ids) == ["a", "b"]
    np.testing.assert_allclose(means, [3.0, 13.0 / 3.0])


def test_mcnemar_known_counts():
    res = mcnemar_exact_counts(2, 10)
    assert (res.b, res.c, res.n_discordant) == (2, 10, 12)
    # P(X <= 2) for Binomial(12, 1/2), doubled: 2 * (1 + 12 + 66) / 4096
    assert res.p_value == pytest.approx(2 * 79 / 4096)
    assert mcnemar_exact_counts(0, 0).p_value == 1.0


@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=200))
def test_mcnemar_matches_binomtest(pairs):
    a, b = np.array(pairs).T
    res = mcnemar_exact(a, b)
    n01, n10 = int(np.sum(a & ~b)), int(np.sum(~a & b))
    assert (res.b, res.c, res.n) == (n01, n10, len(pairs))
    expected = 1.0 if n01 + n10 == 0 else stats.binomtest(n01, n01 + n10, 0.5).pvalue
    assert res.p_value == pytest.approx(expected)
    assert mcnemar_exact(b, a).p_value == pytest.approx(res.p_value)
