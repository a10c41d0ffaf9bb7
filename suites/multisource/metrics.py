"""The paper's metrics (App. C.3) over per-item arrays, and the T0 baselines.

Each item is one (persona, question) instance: its question id, whether the answer it
recorded (before any abstention) is correct, and whether it was answered (not SKIP).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from .questions import QUESTIONS


def _arrays(qids: Sequence[str], *flags: Sequence[bool] | np.ndarray) -> tuple[np.ndarray, ...]:
    q = np.asarray(qids, dtype=object)
    out = [np.asarray(f, dtype=bool) for f in flags]
    for f in out:
        if f.shape != q.shape:
            raise ValueError(f"length mismatch: {len(q)} question ids vs {len(f)} flags")
    return (q, *out)


def per_question_accuracy(qids: Sequence[str], correct: Sequence[bool]) -> dict[str, float]:
    q, c = _arrays(qids, correct)
    return {qid: float(c[q == qid].mean()) for qid in dict.fromkeys(q.tolist())}


def macro_accuracy(qids: Sequence[str], correct: Sequence[bool]) -> float:
    """Mean over questions of per-question accuracy (answer-only mode)."""
    acc = per_question_accuracy(qids, correct)
    return float(np.mean(list(acc.values()))) if acc else math.nan


def coverage(answered: Sequence[bool] | np.ndarray) -> float:
    """Micro share of answered items."""
    a = np.asarray(answered, dtype=bool)
    return float(a.mean()) if a.size else math.nan


def selective_accuracy(qids: Sequence[str], correct: Sequence[bool], answered: Sequence[bool] | np.ndarray) -> float:
    """Mean over questions with >= 1 answered item of accuracy on the answered items."""
    q, c, a = _arrays(qids, correct, answered)
    accs = [float(c[(q == qid) & a].mean()) for qid in dict.fromkeys(q.tolist()) if a[q == qid].any()]
    return float(np.mean(accs)) if accs else math.nan


def f_beta(
    qids: Sequence[str], correct: Sequence[bool], answered: Sequence[bool] | np.ndarray, beta: float = 0.5
) -> float:
    """F_beta with P = SelAcc (macro) and R = SelAcc * Cov / Acc (macro), as released."""
    p = selective_accuracy(qids, correct, answered)
    acc = macro_accuracy(qids, correct)
    if math.isnan(p) or not acc:
        return 0.0
    r = p * coverage(answered) / acc
    b2 = beta * beta
    denom = b2 * p + r
    return (1 + b2) * p * r / denom if denom > 0 else 0.0


def expected_random_accuracy(qids: Iterable[str] | None = None) -> float:
    """Expected macro accuracy of a uniform guess over each question's answer space."""
    ids = list(dict.fromkeys(qids)) if qids is not None else list(QUESTIONS)
    return float(np.mean([1.0 / len(QUESTIONS[q].answer_space) for q in ids]))


def random_predictions(qids: Sequence[str], seed: int = 42) -> list[str]:
    """Uniform random labels, one per item (seeded)."""
    rng = random.Random(seed)
    return [rng.choice(QUESTIONS[q].answer_space) for q in qids]


def majority_labels(golds: Iterable[Mapping[str, str]]) -> dict[str, str]:
    """Per-question modal training label; ties go to the alphabetically first label."""
    counts: dict[str, Counter[str]] = {q: Counter() for q in QUESTIONS}
    for gold in golds:
        for qid, label in gold.items():
            counts[qid][label] += 1
    out = {}
    for qid, c in counts.items():
        if not c:
            out[qid] = QUESTIONS[qid].answer_space[0]
            continue
        top = max(c.values())
        out[qid] = min(label for label, n in c.items() if n == top)
    return out


def f_beta_counts(
    correct: Sequence[bool] | np.ndarray, answered: Sequence[bool] | np.ndarray, beta: float = 0.5
) -> float:
    """F_beta over item counts, the criterion the release's NBF+SKIP calibration maximises.

    P = answered-and-correct / answered, R = answered-and-correct / (answered-and-correct +
    skipped): a skip counts as a miss whatever the answer would have been. (App. C.3 of the
    paper names the macro form, ``f_beta``; this one reproduces the released numbers.)
    """
    c, a = np.asarray(correct, dtype=bool), np.asarray(answered, dtype=bool)
    if c.shape != a.shape:
        raise ValueError(f"length mismatch: {c.size} correctness flags vs {a.size} answered flags")
    tp = float(np.sum(a & c))
    answered_n, missed = float(np.sum(a)), float(np.sum(~a))
    if answered_n == 0 or tp + missed == 0:
        return 0.0
    p, r = tp / answered_n, tp / (tp + missed)
    b2 = beta * beta
    denom = b2 * p + r
    return (1 + b2) * p * r / denom if denom > 0 else 0.0
