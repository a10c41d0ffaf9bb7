"""The trajectory judge: the Bayesian reference at every probe, the errors, and what they add up to.

Per probe (paper §2.3): coin MAE_t = |p_model(heads) - (1 + h) / (2 + t)|; recommender
TVD_t of the type posterior and of the rating predictive, the rating MAE_t between
predictive means, the probability on the true type, and the MAE_t of the rating
conditioned on the model's most likely type. Per episode: the means over probes, the
final-probe values, what the memory let through, and for the recommender the effective
sample size its type beliefs imply (ess.py; one coin belief cannot identify it, so the
coin's is pooled over episodes in the summary).

Pass criterion (the test's verdict): the trajectory stays Bayesian within a tolerance,
coin MAE <= COIN_TOLERANCE, recommender type and rating TVD <= REC_TOLERANCE (rating TVD
only in zero-shot). The score is 1 minus the episode's primary error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from pytest_memeval.errors import ResponseError
from pytest_memeval.types import Answer, Item, Trace, Verdict

from .environments import COIN, RecommenderModel
from .episode import BELIEF_DIGITS, DIGITS, EpisodeData, data_of
from .ess import ESS_WINDOW
from .reference import (
    coin_mean,
    expected_rating,
    fit_type_weight,
    log_likelihood,
    rating_predictive,
    tvd,
    type_posterior,
)

COIN_TOLERANCE = 0.05
REC_TOLERANCE = 0.10


class TrajectoryJudge:
    def score(self, item: Item, answer: Answer, trace: Trace) -> Verdict:
        data = data_of(item)
        trajectory = answer.detail.get("trajectory")
        if not trajectory:
            raise ResponseError(f"{item.id}: the answer carries no belief trajectory")
        if data.condition.env == COIN:
            return coin_verdict(data, trajectory)
        return recommender_verdict(data, trajectory)


def coin_verdict(data: EpisodeData, trajectory: Sequence[Mapping[str, Any]]) -> Verdict:
    flips = data.observations
    turns = [int(e["t"]) for e in trajectory]
    heads = [sum(flips[:t]) for t in turns]
    beliefs = [float(e["p_heads"]) for e in trajectory]
    references = [coin_mean(h, t) for h, t in zip(heads, turns)]
    errors = [abs(b - r) for b, r in zip(beliefs, references)]
    mae = float(np.mean(errors))
    detail = {
        "mae": _r(mae),
        "final_error": _r(errors[-1]),
        **_memory_side(trajectory),
        "per_probe": [
            {"t": t, "heads": h, "reference": _r(r), "error": _r(e)}
            for t, h, r, e in zip(turns, heads, references, errors)
        ],
    }
    passed = mae <= COIN_TOLERANCE
    reason = f"trajectory MAE {mae:.4f} {'<=' if passed else '>'} {COIN_TOLERANCE} (final error {errors[-1]:.4f}{_seen(trajectory)})"
    return Verdict(correct=passed, score=_r(1 - mae), reason=reason, detail=detail)


def recommender_verdict(data: EpisodeData, trajectory: Sequence[Mapping[str, Any]]) -> Verdict:
    model, target, truth = data.model, data.target, data.episode.truth
    assert model is not None and target is not None
    ratings = data.observations
    per_probe, histories = [], []
    for entry in trajectory:
        t = int(entry["t"])
        history = [(m, ratings[m]) for m in range(t)]
        histories.append(history)
        posterior = type_posterior(model, history)
        predictive = rating_predictive(model, posterior, target)
        probe = _recommender_probe(model, target, truth, entry, posterior, predictive)
        probe["loglik"] = [round(float(v), DIGITS) for v in log_likelihood(model, history)]
        per_probe.append(probe)
    has_type = "type" in trajectory[0]

    def mean(name: str) -> float | None:
        values = [p[name] for p in per_probe if p.get(name) is not None]
        return _r(float(np.mean(values))) if values else None

    detail: dict[str, Any] = {
        name: mean(name) for name in ("rating_tvd", "rating_mae", "type_tvd", "p_true_type", "conditioned_rating_mae")
    }
    detail["final_rating_tvd"] = per_probe[-1]["rating_tvd"]
    detail["final_type_tvd"] = per_probe[-1].get("type_tvd")
    late = _late([int(e["t"]) for e in trajectory], len(ratings))
    weight = (
        fit_type_weight(model, [trajectory[i]["type"] for i in late], [histories[i] for i in late])
        if has_type
        else None
    )
    detail["prior"] = list(model.prior)  # what the pooled effective sample size tempers against
    detail["evidence_weight"] = None if weight is None else _r(weight)
    detail["ess"] = None if weight is None else _r(weight * len(ratings))
    detail.update(_memory_side(trajectory))
    detail["per_probe"] = per_probe
    errors = {"rating TVD": detail["rating_tvd"]}
    if has_type:
        errors = {"type TVD": detail["type_tvd"], **errors}
    passed = all(e <= REC_TOLERANCE for e in errors.values())
    reason = "; ".join(f"{name} {value:.4f}" for name, value in errors.items())
    reason += f" ({'all <=' if passed else 'not all <='} {REC_TOLERANCE})"
    if weight is not None:
        reason += f"; beliefs worth {weight * len(ratings):.1f} of {len(ratings)} ratings"
    reason += _seen(trajectory)
    primary = next(iter(errors.values()))
    return Verdict(correct=passed, score=_r(1 - primary), reason=reason, detail=detail)


def _recommender_probe(
    model: RecommenderModel,
    target: int,
    truth: int,
    entry: Mapping[str, Any],
    posterior: np.ndarray,
    predictive: np.ndarray,
) -> dict[str, Any]:
    reference_mean = expected_rating(predictive)
    probe: dict[str, Any] = {
        "t": int(entry["t"]),
        "reference_rating_mean": _r(reference_mean),
        "reference_p_true_type": _r(float(posterior[truth])),
        "rating_tvd": _r(tvd(entry["rating"], predictive)),
        "rating_mae": _r(abs(expected_rating(entry["rating"]) - reference_mean)),
    }
    if "type" in entry:
        belief = np.asarray(entry["type"], dtype=float)
        best = int(np.argmax(belief))
        probe["type_tvd"] = _r(tvd(belief, posterior))
        probe["p_true_type"] = _r(float(belief[truth]))
        probe["conditioned_rating_mae"] = _r(abs(expected_rating(entry["conditional"][best]) - reference_mean))
    return probe


def _late(turns: Sequence[int], total: int) -> list[int]:
    """Indices of the probes in the final window (the last probe at least)."""
    return [i for i, t in enumerate(turns) if t >= ESS_WINDOW * total] or [len(turns) - 1]


def _seen(trajectory: Sequence[Mapping[str, Any]]) -> str:
    last = trajectory[-1]
    return (
        f"; the memory returned {last['seen']} of {last['stored']} stored observations at the last probe"
        if "seen" in last
        else ""
    )


def _memory_side(trajectory: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Share of the stored observations the retrieved memories stated (mean over probes
    with something stored), their mean recency, and how many probe readings were flagged."""
    recalls = [min(1.0, e["seen"] / e["stored"]) for e in trajectory if e.get("stored") and "seen" in e]
    recencies = [e["recency"] for e in trajectory if e.get("recency") is not None]
    return {
        "evidence_recall": _r(float(np.mean(recalls))) if recalls else None,
        "recency": _r(float(np.mean(recencies))) if recencies else None,
        "flagged_probes": sum(1 for e in trajectory if e.get("flagged")),
    }


def _r(value: float) -> float:
    return round(float(value), BELIEF_DIGITS)
