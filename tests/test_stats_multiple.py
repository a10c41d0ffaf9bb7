import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_memeval.stats import holm


def test_holm_hand_computed():
    # sorted: .005*4 = .02, .01*3 = .03, .03*2 = .06, .04*1 = .04 -> running max .06
    np.testing.assert_allclose(holm([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02])


def test_holm_caps_at_one_and_keeps_shape():
    out = holm([[0.5, 0.9], [0.01, 0.2]])
    assert out.shape == (2, 2)
    np.testing.assert_allclose(out, [[1.0, 1.0], [0.04, 0.6]])
    assert holm([]).size == 0


def test_holm_rejects_invalid():
    with pytest.raises(ValueError):
        holm([0.1, np.nan])
    with pytest.raises(ValueError):
        holm([1.2])


def _holm_reference(p):
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adjusted[i] = running
    return adjusted


@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_holm_matches_reference_and_bounds(p):
    out = holm(p)
    np.testing.assert_allclose(out, _holm_reference(p), rtol=1e-12, atol=0)
    arr = np.array(p)
    assert np.all(out >= arr - 1e-15)
    assert np.all(out <= np.minimum(1.0, len(p) * arr) + 1e-15)  # never above Bonferroni
    order = np.argsort(arr, kind="stable")
    assert np.all(np.diff(out[order]) >= 0)
