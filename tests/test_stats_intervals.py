import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from pytest_memeval.stats import mean_sem, sem, wilson_interval, wilson_intervals


def test_wilson_known_value_memfail():
    # memfail spec / paper: n = 100, p = .35 -> [.26, .45]
    lo, hi = wilson_interval(35, 100)
    assert (round(lo, 2), round(hi, 2)) == (0.26, 0.45)
    assert lo == pytest.approx(0.2636, abs=1e-4)
    assert hi == pytest.approx(0.4475, abs=1e-4)


def test_wilson_edges():
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(10, 10)[1] == 1.0
    assert all(math.isnan(v) for v in wilson_interval(0, 0))
    with pytest.raises(ValueError):
        wilson_interval(5, 3)


def test_wilson_vectorised_matches_scalar():
    k = np.array([0, 3, 35, 99])
    n = np.array([5, 10, 100, 100])
    lo, hi = wilson_intervals(k, n, 0.9)
    for i in range(4):
        assert (lo[i], hi[i]) == pytest.approx(wilson_interval(int(k[i]), int(n[i]), 0.9))


@given(
    st.integers(1, 2000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
    st.sampled_from([0.8, 0.9, 0.95, 0.99]),
)
def test_wilson_matches_scipy(kn, confidence):
    k, n = kn
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    assert wilson_interval(k, n, confidence) == pytest.approx((ci.low, ci.high), abs=1e-9)


@given(st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_contains_rate_and_shrinks_with_n(kn):
    k, n = kn
    lo, hi = wilson_interval(k, n)
    assert lo <= k / n <= hi
    lo2, hi2 = wilson_interval(4 * k, 4 * n)
    assert hi2 - lo2 < hi - lo


def test_sem_and_mean_sem():
    x = [1.0, 2.0, 3.0, 4.0]
    assert sem(x) == pytest.approx(np.std(x, ddof=1) / 2.0)
    assert sem(x) == pytest.approx(0.6454972, abs=1e-7)
    assert math.isnan(sem([1.0]))
    s = mean_sem(x)
    assert (s.mean, s.n) == (2.5, 4)
    assert s.sem == pytest.approx(0.6454972, abs=1e-7)
    assert str(s) == "2.500 ± 0.645 (n=4)"
