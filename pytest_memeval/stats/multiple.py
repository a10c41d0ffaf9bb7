"""Multiple-comparison correction: Holm's step-down adjustment (family-wise error rate)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def holm(pvalues: npt.ArrayLike) -> np.ndarray:
    """Holm-adjusted p-values, in the input order.

    Sorted ascending, the i-th smallest (0-based) of m p-values is multiplied by ``m - i``;
    a running maximum keeps the adjusted values monotone, and they are capped at 1. Reject
    hypothesis j at level alpha when ``holm(p)[j] <= alpha``.
    """
    p = np.asarray(pvalues, dtype=float)
    shape = p.shape
    p = p.ravel()
    if np.any(np.isnan(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError("p-values must be in [0, 1] and not nan")
    m = p.size
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted.reshape(shape)
