import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from pytest_memeval.stats import krippendorff_alpha, pairwise_spearman

nan = np.nan

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability": 4 observers x 12 units
# with missing values (written here units x raters). Published values, cross-checked against
# R irr::kripp.alpha's documented example output (nominal .743) and the fast-krippendorff test
# suite (ordinal .815, ratio .797). Interval .849 is the value the paper reports for these data.
CANONICAL = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
        [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
    ]
).T

# The Wikipedia "computational example": 3 coders x 15 units; nominal .691 (Wikipedia), interval
# .811 (fast-krippendorff tests give 0.691358 and 0.810845).
WIKIPEDIA = np.array(
    [
        [nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
        [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
        [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4],
    ]
).T


@pytest.mark.parametrize(
    "level, expected",
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_canonical_example(level, expected):
    assert round(krippendorff_alpha(CANONICAL, level), 3) == expected


def test_krippendorff_wikipedia_example():
    assert krippendorff_alpha(WIKIPEDIA, "nominal") == pytest.approx(0.691358, abs=1e-6)
    assert krippendorff_alpha(WIKIPEDIA, "interval") == pytest.approx(0.810845, abs=1e-6)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_perfect_agreement_is_one(level):
    ratings = np.array([[1, 1, 1], [2, 2, nan], [5, 5, 5], [3, nan, 3]], dtype=float)
    assert krippendorff_alpha(ratings, level) == 1.0


def test_undefined_cases_are_nan():
    assert math.isnan(krippendorff_alpha([[2, 2], [2, 2]], "interval"))  # no variation at all
    assert math.isnan(krippendorff_alpha([[1, nan], [nan, 2]], "interval"))  # nothing pairable


def test_hand_case_two_raters_interval():
    # Units (1,2), (2,1), (3,3); n = 6 pairable values, n_1 = n_2 = n_3 = 2.
    # Coincidences: o_12 = o_21 = 2, o_33 = 2, so sum(o d2) = 4.
    # sum over ordered pairs n_c n_k d2 = 2 * (4 * 1 + 4 * 4 + 4 * 1) = 48.
    # alpha = 1 - (n - 1) * 4 / 48 = 7/12
    assert krippendorff_alpha([[1, 2], [2, 1], [3, 3]], "interval") == pytest.approx(7 / 12)


def test_units_with_a_single_rating_are_ignored():
    extra = np.vstack([CANONICAL, [[4, nan, nan, nan]]])
    assert krippendorff_alpha(extra, "ordinal") == pytest.approx(krippendorff_alpha(CANONICAL, "ordinal"))


ratings_matrix = st.integers(2, 12).flatmap(
    lambda units: st.integers(2, 5).flatmap(
        lambda raters: st.lists(
            st.one_of(st.none(), st.integers(1, 5)), min_size=units * raters, max_size=units * raters
        ).map(lambda v: np.array([nan if x is None else x for x in v], dtype=float).reshape(units, raters))
    )
)


@settings(max_examples=80, deadline=None)
@given(ratings_matrix, st.randoms(use_true_random=False))
def test_alpha_invariances(ratings, rnd):
    base = {lvl: krippendorff_alpha(ratings, lvl) for lvl in ("nominal", "ordinal", "interval")}
    rows = rnd.sample(range(ratings.shape[0]), ratings.shape[0])
    cols = rnd.sample(range(ratings.shape[1]), ratings.shape[1])
    shuffled = ratings[rows][:, cols]
    for lvl, value in base.items():
        assert krippendorff_alpha(shuffled, lvl) == pytest.approx(value, nan_ok=True)
    # interval: affine maps; ordinal: any increasing map; nominal: any relabelling
    assert krippendorff_alpha(3.0 * ratings - 7.0, "interval") == pytest.approx(base["interval"], nan_ok=True)
    assert krippendorff_alpha(np.exp(ratings), "ordinal") == pytest.approx(base["ordinal"], nan_ok=True)
    assert krippendorff_alpha(-(ratings**2), "nominal") == pytest.approx(base["nominal"], nan_ok=True)
    for value in base.values():
        assert math.isnan(value) or value <= 1.0 + 1e-12


def test_pairwise_spearman_matches_scipy_on_complete_data():
    rng = np.random.default_rng(3)
    latent = rng.normal(size=30)
    ratings = np.column_stack([np.round(latent + rng.normal(0, s, 30)) for s in (0.3, 0.6, 1.0, 2.0)])
    res = pairwise_spearman(ratings)
    ref = stats.spearmanr(ratings)
    np.testing.assert_allclose(res.rho, ref.statistic)
    off = ~np.eye(4, dtype=bool)
    np.testing.assert_allclose(res.p_value[off], ref.pvalue[off])
    assert (res.n == 30).all()
    assert res.mean_rho == pytest.approx(ref.statistic[np.triu_indices(4, 1)].mean())


def test_pairwise_spearman_uses_jointly_rated_units():
    ratings = np.array([[1, 2, nan], [2, 1, 3], [3, 4, 1], [4, 3, 2], [5, nan, 4]], dtype=float)
    res = pairwise_spearman(ratings)
    assert res.n[0, 1] == 4 and res.n[0, 2] == 4 and res.n[1, 2] == 3
    assert res.rho[0, 1] == pytest.approx(stats.spearmanr([1, 2, 3, 4], [2, 1, 4, 3]).statistic)
    assert res.rho[1, 2] == pytest.approx(stats.spearmanr([1, 4, 3], [3, 1, 2]).statistic)
    constant = pairwise_spearman(np.array([[1, 1], [2, 1], [3, 1]], dtype=float))
    assert math.isnan(constant.rho[0, 1])
