"""Closed-form intervals and summaries: Wilson score interval, SEM, mean +- SEM."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ._scipy import scipy_stats


def _z(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return float(scipy_stats().norm.ppf(0.5 + confidence / 2.0))


def wilson_interval(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a rate of `k` successes in `n` trials (no continuity correction).

    Returns ``(nan, nan)`` when ``n == 0``. Example: ``wilson_interval(35, 100)`` is
    about ``(0.264, 0.447)``.
    """
    lo, hi = wilson_intervals(np.array([k]), np.array([n]), confidence)
    return float(lo[0]), float(hi[0])


def wilson_intervals(k: npt.ArrayLike, n: npt.ArrayLike, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised `wilson_interval` over arrays of counts; returns ``(lo, hi)`` arrays."""
    k_arr = np.asarray(k, dtype=float)
    n_arr = np.asarray(n, dtype=float)
    if np.any(k_arr < 0) or np.any(k_arr > n_arr):
        raise ValueError("need 0 <= k <= n")
    z = _z(confidence)
    z2 = z * z
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k_arr / n_arr
        denom = 1.0 + z2 / n_arr
        center = (p + z2 / (2.0 * n_arr)) / denom
        half = z * np.sqrt(p * (1.0 - p) / n_arr + z2 / (4.0 * n_arr * n_arr)) / denom
    lo = np.where(n_arr > 0, np.clip(center - half, 0.0, 1.0), np.nan)
    hi = np.where(n_arr > 0, np.clip(center + half, 0.0, 1.0), np.nan)
    # Exact endpoints at the boundaries (the formula gives them only up to rounding).
    lo = np.where((k_arr == 0) & (n_arr > 0), 0.0, lo)
    hi = np.where((k_arr == n_arr) & (n_arr > 0), 1.0, hi)
    return lo, hi


def sem(values: npt.ArrayLike) -> float:
    """Standard error of the mean, ``std(ddof=1) / sqrt(n)``; nan for fewer than 2 values."""
    x = np.asarray(values, dtype=float).ravel()
    if x.size < 2:
        return float("nan")
    return float(scipy_stats().sem(x, ddof=1))


@dataclass(frozen=True)
class MeanSEM:
    """A mean with its standard error (ddof=1) and the number of values."""

    mean: float
    sem: float
    n: int

    def __str__(self) -> str:
        return f"{self.mean:.3f} ± {self.sem:.3f} (n={self.n})"


def mean_sem(values: npt.ArrayLike) -> MeanSEM:
    """Mean +- SEM of a 1-d sample (e.g. one value per trial)."""
    x = np.asarray(values, dtype=float).ravel()
    mean = float(x.mean()) if x.size else float("nan")
    return MeanSEM(mean=mean, sem=sem(x), n=int(x.size))
