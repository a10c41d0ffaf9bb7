"""The paper's analyses over aggregated scores (section 4, App. B.7, B.11, D.2), via `stats`.

- `subject_test`: Wilcoxon signed-rank across subjects, paired, two-sided, on the
  per-subject scores of two conditions (or two systems), with the mean difference and a
  bootstrap interval over subjects;
- `question_shifts`: per question, improved / tied / worse with the median change when
  improved and when worse, and Spearman's rho of the two conditions' question scores
  (low rho: the second condition re-ranks which questions are answered well);
- `anchor_crossings`: how many integer rubric bands each question's score moves
  (band = floor of the score, 1..5), up by 1, 2, 3 or more, and down;
- `gradient`: the delta regression (treatment - baseline on baseline) beside the level
  regression (treatment on baseline), so the -1 the delta carries by construction is in
  plain view, and the coupling-aware permutation test of the delta slope (treatment
  shuffled across subjects, App. B.7.2);
- `agreement`: pairwise Spearman and Krippendorff's alpha (ordinal) within a panel;
- `jaccard`: the overlap of two retrieved sets.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

import numpy as np
from scipy import stats as scipy_stats

from pytest_memeval.stats import bootstrap_mean, krippendorff_alpha, pairwise_spearman, wilcoxon_clusters

WILCOXON = "wilcoxon signed-rank across subjects, two-sided"


def _paired(treatment: Mapping[Any, float], baseline: Mapping[Any, float]) -> tuple[list[Any], np.ndarray, np.ndarray]:
    keys = sorted(treatment.keys() & baseline.keys())
    return keys, np.array([treatment[k] for k in keys], float), np.array([baseline[k] for k in keys], float)


def subject_test(treatment: Mapping[str, float], baseline: Mapping[str, float], n_resamples: int) -> dict[str, Any]:
    subjects, t, b = _paired(treatment, baseline)
    result: dict[str, Any] = {"n_subjects": len(subjects), "test": WILCOXON}
    if not subjects:
        return result
    deltas = t - b
    result["mean_delta"] = float(deltas.mean())
    if len(subjects) >= 2:
        result["ci"] = list(bootstrap_mean(deltas, n_resamples=n_resamples, seed=0).ci)
    test = wilcoxon_clusters(t, b)
    result.update(
        W=None if math.isnan(test.statistic) else test.statistic,
        p_value=test.p_value,
        improved=test.improved,
        tied=test.tied,
        worse=test.worse,
        median_delta=test.median_delta,
    )
    return result


def question_shifts(
    treatment: Mapping[tuple[str, str], float], baseline: Mapping[tuple[str, str], float]
) -> dict[str, Any]:
    keys, t, b = _paired(treatment, baseline)
    if not keys:
        return {"n_questions": 0}
    deltas = np.round(t - b, 9)
    up, down = deltas[deltas > 0], deltas[deltas < 0]
    rho = pairwise_spearman(np.column_stack([b, t])).rho[0, 1] if len(keys) >= 3 else float("nan")
    return {
        "n_questions": len(keys),
        "improved": int(up.size),
        "tied": int(np.sum(deltas == 0)),
        "worse": int(down.size),
        "improvement_rate": up.size / len(keys),
        "median_delta_improved": float(np.median(up)) if up.size else None,
        "median_delta_worse": float(np.median(down)) if down.size else None,
        "mean_delta": float(deltas.mean()),
        "spearman_rho": None if math.isnan(rho) else float(rho),
    }


def band(score: float) -> int:
    """The integer rubric band a (mean) score lies in: 1.0-1.99 is band 1, 5.0 band 5."""
    return min(5, max(1, math.floor(score + 1e-9)))


def anchor_crossings(
    treatment: Mapping[tuple[str, str], float], baseline: Mapping[tuple[str, str], float]
) -> dict[str, Any]:
    keys, t, b = _paired(treatment, baseline)
    moves = [band(x) - band(y) for x, y in zip(t, b)]
    n = len(moves)
    counts = {
        "up_1": sum(m == 1 for m in moves),
        "up_2": sum(m == 2 for m in moves),
        "up_3_or_more": sum(m >= 3 for m in moves),
        "down_1": sum(m == -1 for m in moves),
        "down_2_or_more": sum(m <= -2 for m in moves),
        "none": sum(m == 0 for m in moves),
    }
    shares = {
        "upward_rate": sum(m > 0 for m in moves) / n if n else None,
        "downward_rate": sum(m < 0 for m in moves) / n if n else None,
        "multi_anchor_rate": sum(abs(m) >= 2 for m in moves) / n if n else None,
        "extreme_rate": sum(abs(m) >= 3 for m in moves) / n if n else None,
    }
    return {"n_questions": n, **counts, **shares}


class Regression(TypedDict):
    slope: float
    slope_ci: list[float]
    intercept: float
    r_squared: float
    p_value: float


def _regression(x: np.ndarray, y: np.ndarray) -> Regression:
    fit = scipy_stats.linregress(x, y)
    half = scipy_stats.t.ppf(0.975, len(x) - 2) * fit.stderr
    return {
        "slope": float(fit.slope),
        "slope_ci": [float(fit.slope - half), float(fit.slope + half)],
        "intercept": float(fit.intercept),
        "r_squared": float(fit.rvalue**2),
        "p_value": float(fit.pvalue),
    }


def gradient(
    treatment: Mapping[str, float], baseline: Mapping[str, float], n_permutations: int, seed: int = 0
) -> dict[str, Any] | None:
    """None when there are fewer than three subjects or the baseline does not vary."""
    subjects, t, b = _paired(treatment, baseline)
    if len(subjects) < 3 or np.ptp(b) == 0:
        return None
    delta = _regression(b, t - b)
    level = _regression(b, t) if np.ptp(t) > 0 else None
    # slope of (t' - b) on b for every shuffle t' of t: cov(t', b) / var(b) - 1
    centred = b - b.mean()
    shuffles = np.random.default_rng(seed).permuted(np.tile(t, (n_permutations, 1)), axis=1)
    null = shuffles @ centred / (centred @ centred) - 1.0
    center = float(null.mean())
    p = float(np.mean(np.abs(null - center) >= abs(delta["slope"] - center) - 1e-12))
    return {
        "n_subjects": len(subjects),
        "delta_regression": delta,
        "level_regression": level,
        "permutation": {"null_mean_slope": center, "p_value": p, "n_permutations": n_permutations},
    }


def agreement(judges: Sequence[str], matrix: Sequence[Sequence[float]]) -> dict[str, Any] | None:
    """Within-panel agreement over every scored response; None for a panel of one."""
    if len(judges) < 2 or not matrix:
        return None
    x = np.array(matrix, dtype=float)
    spearman = pairwise_spearman(x)
    pairs = {
        f"{judges[i]} ~ {judges[j]}": (None if math.isnan(spearman.rho[i, j]) else float(spearman.rho[i, j]))
        for i in range(len(judges))
        for j in range(i + 1, len(judges))
    }
    alpha = krippendorff_alpha(x, "ordinal")
    mean_rho = spearman.mean_rho
    return {
        "judges": list(judges),
        "pairwise_spearman": pairs,
        "mean_spearman": None if math.isnan(mean_rho) else mean_rho,
        "krippendorff_alpha_ordinal": None if math.isnan(alpha) else float(alpha),
        "n_responses": int(x.shape[0]),
    }


def jaccard(a: Sequence[str], b: Sequence[str]) -> float | None:
    """|A & B| / |A | B| over the distinct retrieved memories; None when both are empty."""
    sa, sb = set(a), set(b)
    if not sa and not sb:
        return None
    return len(sa & sb) / len(sa | sb)
