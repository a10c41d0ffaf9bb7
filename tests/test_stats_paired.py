import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from pytest_memeval.stats import cluster_means, mcnemar_exact, mcnemar_exact_counts, wilcoxon_clusters

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


def test_wilcoxon_reproduces_seed_004():
    res = wilcoxon_clusters(C4A, C5)
    assert res.statistic == 11
    assert res.p_value == pytest.approx(0.0067, abs=5e-5)
    assert (res.n, res.improved, res.tied, res.worse) == (14, 12, 0, 2)
    assert res.median_delta == pytest.approx(0.56)


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
    ref = stats.wilcoxon(t - b, zero_method="wilcox")
    assert res.statistic == ref.statistic
    assert res.p_value == pytest.approx(ref.pvalue)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.floats(1, 5), st.floats(1, 5)), min_size=6, max_size=40, unique=True))
def test_wilcoxon_matches_scipy_directly(pairs):
    t, b = np.array(pairs).T
    d = np.round(t - b, 12)
    if np.count_nonzero(d) == 0:
        return
    res = wilcoxon_clusters(t, b)
    ref = stats.wilcoxon(d[d != 0])
    assert res.statistic == ref.statistic
    assert res.p_value == pytest.approx(ref.pvalue)
    assert res.improved + res.tied + res.worse == len(pairs)


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
