"""Naive Bayes Fusion over source atoms (paper App. C.1-C.2), with margin-based SKIP.

Per question q and source s, ``C_s[v, v'] = P(mu_s = v' | y = v)`` is estimated on the
train split with Laplace smoothing (alpha = 1) over the non-null atoms; the class prior is
the Laplace-smoothed train label marginal. Prediction is
``argmax_v log P(v) + T * sum_s log C_s[v, mu_s]`` over the non-null atoms (ties go to the
first label of the answer space). Selective mode abstains when p(top1) - p(top2) < theta,
except that items with fewer than two non-null atoms always answer.

Calibration on the calibration split, as the public release does it:

- answer-only NBF (``calibrate_temperature``): T in {0.1, ..., 3.0} maximising macro accuracy;
- NBF+SKIP (``calibrate_selective``): T and theta in {0.00, ..., 1.00} chosen together,
  maximising F0.5 over answered/skipped counts (``f_beta_counts``); ties go to the first
  pair met, temperatures outer and thresholds inner, both ascending;
- the earlier pooled reader (``calibrate_theta``): theta alone at T = 1, by the macro F0.5
  of App. C.3 (``f_beta``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._common import SOURCE_NAMES
from .metrics import f_beta, f_beta_counts, macro_accuracy
from .questions import QUESTIONS

AtomsQ = Mapping[str, "str | None"]
FORMAT = "multisource-nbf/1"
#: computed as the release computes them (k * 0.01, k * 0.1), so that a margin that lands
#: exactly on a grid point is judged the same way
THETA_GRID = tuple(k * 0.01 for k in range(101))
TEMPERATURE_GRID = tuple(k * 0.1 for k in range(1, 31))


@dataclass(frozen=True)
class Prediction:
    label: str
    posterior: dict[str, float]
    margin: float
    n_active: int
    answered: bool


def posterior_margin(log_scores: Sequence[float]) -> float:
    """p(top1) - p(top2) of the normalised posterior (1.0 with a single label).

    Normalised over the scores in descending order, so the float sums match the release's.
    """
    ranked = sorted(log_scores, reverse=True)
    if len(ranked) < 2:
        return 1.0
    probs = [math.exp(x - ranked[0]) for x in ranked]
    total = sum(probs)
    return probs[0] / total - probs[1] / total


@dataclass
class NBFModel:
    """Fitted per-question priors and confusion matrices (plain lists: JSON-ready)."""

    labels: dict[str, list[str]]
    log_prior: dict[str, list[float]]
    #: log_emit[qid][source][v][v'] = log P(mu_source = labels[v'] | y = labels[v])
    log_emit: dict[str, dict[str, list[list[float]]]]
    alpha: float = 1.0
    theta: float = 0.0
    temperature: float = 1.0
    n_train: int = 0
    _index: dict[str, dict[str, int]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._index = {q: {lab: i for i, lab in enumerate(labs)} for q, labs in self.labels.items()}

    def log_posterior(self, qid: str, atoms_q: AtomsQ) -> tuple[list[float], int]:
        """Unnormalised log posterior over ``labels[qid]`` and the number of active sources."""
        index = self._index[qid]
        lp = list(self.log_prior[qid])
        active = 0
        for src, emit in self.log_emit[qid].items():
            atom = atoms_q.get(src)
            obs = None if atom is None else index.get(atom)
            if obs is None:
                continue
            active += 1
            for v in range(len(lp)):
                lp[v] += self.temperature * emit[v][obs]
        return lp, active

    def predict(self, qid: str, atoms_q: AtomsQ) -> Prediction:
        lp, active = self.log_posterior(qid, atoms_q)
        top = max(lp)
        probs = [math.exp(x - top) for x in lp]
        total = sum(probs)
        probs = [p / total for p in probs]
        best = max(range(len(lp)), key=lp.__getitem__)  # first label wins ties
        margin = posterior_margin(lp)
        return Prediction(
            label=self.labels[qid][best],
            posterior=dict(zip(self.labels[qid], probs)),
            margin=margin,
            n_active=active,
            answered=active < 2 or margin >= self.theta,
        )

    def predict_all(self, atoms: Mapping[str, AtomsQ]) -> dict[str, Prediction]:
        return {qid: self.predict(qid, atoms[qid]) for qid in self.labels if qid in atoms}

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "alpha": self.alpha,
            "theta": self.theta,
            "temperature": self.temperature,
            "n_train": self.n_train,
            "labels": self.labels,
            "log_prior": self.log_prior,
            "log_emit": self.log_emit,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | str) -> NBFModel:
        parsed: Mapping[str, Any] = json.loads(data) if isinstance(data, str) else data
        if parsed.get("format") != FORMAT:
            raise ValueError(f"not a multisource NBF model (format {parsed.get('format')!r})")
        return cls(
            labels={q: list(v) for q, v in parsed["labels"].items()},
            log_prior={q: list(v) for q, v in parsed["log_prior"].items()},
            log_emit={q: {s: [list(r) for r in m] for s, m in e.items()} for q, e in parsed["log_emit"].items()},
            alpha=float(parsed["alpha"]),
            theta=float(parsed["theta"]),
            temperature=float(parsed["temperature"]),
            n_train=int(parsed["n_train"]),
        )


def fit_nbf(
    atoms: Sequence[Mapping[str, AtomsQ]],
    golds: Sequence[Mapping[str, str]],
    alpha: float = 1.0,
    qids: Sequence[str] | None = None,
    sources: Sequence[str] = SOURCE_NAMES,
) -> NBFModel:
    """Fit on per-persona atoms (``source_atoms`` output) and gold answers ``{qid: label}``."""
    if len(atoms) != len(golds):
        raise ValueError(f"{len(atoms)} atom tables but {len(golds)} gold records")
    labels: dict[str, list[str]] = {}
    log_prior: dict[str, list[float]] = {}
    log_emit: dict[str, dict[str, list[list[float]]]] = {}
    for qid in qids or list(QUESTIONS):
        space = list(QUESTIONS[qid].answer_space)
        k = len(space)
        index = {lab: i for i, lab in enumerate(space)}
        y = np.array([index[g[qid]] for g in golds], dtype=np.int64)
        prior = np.bincount(y, minlength=k) + 1.0
        labels[qid] = space
        log_prior[qid] = _log((prior / prior.sum()).tolist())
        log_emit[qid] = {}
        for src in sources:
            obs = np.array([_label_index(index, a[qid].get(src)) for a in atoms], dtype=np.int64)
            seen = obs >= 0
            counts = np.full((k, k), alpha)
            np.add.at(counts, (y[seen], obs[seen]), 1.0)
            log_emit[qid][src] = [_log(row) for row in (counts / counts.sum(axis=1, keepdims=True)).tolist()]
    return NBFModel(labels=labels, log_prior=log_prior, log_emit=log_emit, alpha=alpha, n_train=len(golds))


def _label_index(index: Mapping[str, int], atom: str | None) -> int:
    """The atom's label index; -1 for no atom or one outside the answer space."""
    return -1 if atom is None else index.get(atom, -1)


def _log(values: list[float]) -> list[float]:
    # math.log, not np.log: numpy's vectorised log may differ in the last bit, and a
    # one-ulp difference can flip a tie that the release resolves with math.log
    return [math.log(v) for v in values]


def _flatten(
    model: NBFModel, atoms: Sequence[Mapping[str, AtomsQ]], golds: Sequence[Mapping[str, str]]
) -> tuple[list[str], list[bool], list[float], list[int]]:
    qids, correct, margins, active = [], [], [], []
    for a, g in zip(atoms, golds):
        for qid in model.labels:
            p = model.predict(qid, a[qid])
            qids.append(qid)
            correct.append(p.label == g[qid])
            margins.append(p.margin)
            active.append(p.n_active)
    return qids, correct, margins, active


def calibrate_theta(
    model: NBFModel,
    atoms: Sequence[Mapping[str, AtomsQ]],
    golds: Sequence[Mapping[str, str]],
    grid: Sequence[float] = THETA_GRID,
    beta: float = 0.5,
) -> tuple[float, float]:
    """Set ``model.theta`` to the grid value maximising F_beta; returns (theta, F_beta).

    Ties go to the smallest theta (the most coverage).
    """
    qids, correct, margins, active = _flatten(model, atoms, golds)
    m, multi = np.asarray(margins), np.asarray(active) >= 2
    best_theta, best_f = grid[0], -1.0
    for theta in grid:
        answered = ~(multi & (m < theta))
        f = f_beta(qids, correct, answered, beta)
        if f > best_f:
            best_theta, best_f = theta, f
    model.theta = float(best_theta)
    return model.theta, best_f


def calibrate_temperature(
    model: NBFModel,
    atoms: Sequence[Mapping[str, AtomsQ]],
    golds: Sequence[Mapping[str, str]],
    grid: Sequence[float] = TEMPERATURE_GRID,
) -> tuple[float, float]:
    """The answer-only NBF's emission temperature: the grid value maximising macro accuracy
    (ties to the smallest); ``model.theta`` is left as it is. Returns (T, accuracy)."""
    best_t, best_acc = model.temperature, -1.0
    for t in grid:
        model.temperature = t
        qids, correct, _, _ = _flatten(model, atoms, golds)
        acc = macro_accuracy(qids, correct)
        if acc > best_acc:
            best_t, best_acc = t, acc
    model.temperature = float(best_t)
    return model.temperature, best_acc


def calibrate_selective(
    model: NBFModel,
    atoms: Sequence[Mapping[str, AtomsQ]],
    golds: Sequence[Mapping[str, str]],
    temperatures: Sequence[float] = TEMPERATURE_GRID,
    thetas: Sequence[float] = THETA_GRID,
    beta: float = 0.5,
) -> tuple[float, float, float]:
    """NBF+SKIP: temperature and margin threshold chosen together, maximising F_beta on
    answered/skipped counts (``f_beta_counts``) over the full grid. Ties go to the first
    pair met with temperatures outer and thresholds inner (the smallest T, then the
    smallest theta). Sets both on ``model``; returns (T, theta, F_beta)."""
    best = (temperatures[0], thetas[0], -1.0)
    for temperature in temperatures:
        model.temperature = temperature
        _, correct, margins, active = _flatten(model, atoms, golds)
        c, m, multi = np.asarray(correct), np.asarray(margins), np.asarray(active) >= 2
        for theta in thetas:
            f = f_beta_counts(c, ~(multi & (m < theta)), beta)
            if f > best[2]:
                best = (temperature, theta, f)
    model.temperature, model.theta = float(best[0]), float(best[1])
    return best
