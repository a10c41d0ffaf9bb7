"""Estimators: metrics expressed over per-group sums, so one definition serves every bootstrap resample.

An estimator is a function of a mapping ``column name -> array of shape (R, G)``: for each of R
replicates (the original data, or B bootstrap resamples) and each of G groups (e.g. question
templates) the weighted sum of that per-item column. The key ``"n"`` always holds the item
count per group. An estimator returns an array of shape ``(R,)``.

Writing metrics this way means a suite states its metric once and the bootstrap evaluates it
for all resamples with a handful of array operations. Example, a suite's own metric::

    def answered_share_of_hard(sums):
        return ratio(sums["answered_hard"].sum(-1), sums["hard"].sum(-1))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import numpy.typing as npt

GroupSums = Mapping[str, np.ndarray]
#: a statistic over per-group sums, evaluated for every bootstrap resample at once (not to be
#: confused with `records.Metric`, the value with its interval that a suite reports)
Estimator = Callable[[GroupSums], np.ndarray]
#: the former name of `Estimator`, kept for code that imports it
Metric = Estimator

COUNT = "n"


def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """Elementwise ``num / den`` with nan where ``den == 0`` (and no warnings)."""
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def mean_over_groups(values: np.ndarray) -> np.ndarray:
    """Mean over the last axis ignoring nan groups; nan where every group is nan."""
    values = np.asarray(values, dtype=float)
    present = ~np.isnan(values)
    total = np.where(present, values, 0.0).sum(axis=-1)
    return ratio(total, present.sum(axis=-1))


def micro_mean(column: str) -> Estimator:
    """Mean of a per-item value over all items (a rate when the value is 0/1)."""

    def metric(sums: GroupSums) -> np.ndarray:
        return ratio(sums[column].sum(axis=-1), sums[COUNT].sum(axis=-1))

    return metric


def macro_mean(column: str) -> Estimator:
    """Mean over groups of the per-group mean of a per-item value (empty groups are skipped)."""

    def metric(sums: GroupSums) -> np.ndarray:
        return mean_over_groups(ratio(sums[column], sums[COUNT]))

    return metric


# --- the multisource metrics (spec: multisource.md, App. C.3 / D.2) -------------------------

CORRECT = "correct"
ANSWERED = "answered"
CORRECT_ANSWERED = "correct_answered"


def multisource_columns(correct: npt.ArrayLike, answered: npt.ArrayLike) -> dict[str, np.ndarray]:
    """Per-item columns the multisource metrics read.

    `correct` is judged on the answer recorded before abstaining (so it may be True on an
    unanswered item); `answered` is False for an abstention.
    """
    c = np.asarray(correct, dtype=bool)
    a = np.asarray(answered, dtype=bool)
    if c.shape != a.shape:
        raise ValueError("correct and answered must have the same shape")
    return {CORRECT: c.astype(float), ANSWERED: a.astype(float), CORRECT_ANSWERED: (c & a).astype(float)}


def macro_accuracy(sums: GroupSums) -> np.ndarray:
    """Mean over questions of per-question accuracy (answer recorded before abstaining)."""
    return mean_over_groups(ratio(sums[CORRECT], sums[COUNT]))


def coverage(sums: GroupSums) -> np.ndarray:
    """Micro coverage: answered / all items."""
    return ratio(sums[ANSWERED].sum(axis=-1), sums[COUNT].sum(axis=-1))


def selective_accuracy(sums: GroupSums) -> np.ndarray:
    """Mean over questions with >= 1 answered item of (correct & answered) / answered."""
    return mean_over_groups(ratio(sums[CORRECT_ANSWERED], sums[ANSWERED]))


def f_beta_selective(beta: float = 0.5) -> Estimator:
    """F_beta with P = SelAcc and R = SelAcc * Cov / Acc (the multisource paper's definition).

    F is 0 when P or R is 0 (including Acc == 0, where R is taken as 0), nan when SelAcc is
    undefined (nothing answered).
    """
    b2 = beta * beta

    def metric(sums: GroupSums) -> np.ndarray:
        p = selective_accuracy(sums)
        acc = macro_accuracy(sums)
        r = np.where(acc > 0, ratio(p * coverage(sums), acc), 0.0)
        f = ratio((1.0 + b2) * p * r, b2 * p + r)
        # Zero denominator means P == R == 0: F is 0 there, not undefined.
        return np.where((b2 * p + r == 0) & ~np.isnan(p), 0.0, f)

    return metric


def multisource_metrics(beta: float = 0.5) -> dict[str, Estimator]:
    """The four multisource metrics keyed by name: accuracy, coverage, selective_accuracy, f0.5."""
    return {
        "accuracy": macro_accuracy,
        "coverage": coverage,
        "selective_accuracy": selective_accuracy,
        f"f{beta:g}": f_beta_selective(beta),
    }
