"""The offline reader and the self-test agents: beliefs rebuilt from retrieved text alone.

`BeliefAgent` reads the evidence in the retrieved memories (and whatever the probe states
inline), and reports the exact posterior of what it saw. Variants distort that on purpose
so the metrics can be checked against theory:

    reader / perfect_bayesian()   weight 1, every observation it sees
    memoryless()                  ignores the memories (the prior, plus inline evidence)
    tempered(lam)                 log-likelihoods scaled by lam: < 1 under-updates, > 1 over-updates
    last_k(k)                     only the k most recent observations it sees

An agent answers from the view and the memories only: the same memories give the same
answer for any episode. In the zero-shot recommender condition it has no population
model, so it predicts from the user's own ratings (Laplace-smoothed) and has no type belief.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

import numpy as np

from pytest_memeval.errors import ResponseError
from pytest_memeval.framework.memory_text import stored_texts
from pytest_memeval.framework.unreadable import marked
from pytest_memeval.types import Answer, ItemView, Memory

from .environments import COIN, RATINGS, Catalogue
from .parse import chronological, coin_evidence, coin_totals, rating_evidence
from .probes import COIN_TASK, CONDITIONAL_TASK, RATING_TASK, TYPE_TASK
from .reference import coin_mean, rating_predictive, type_posterior


class BeliefAgent:
    #: the answer does not depend on the option order, so one rotation is enough
    position_invariant = True

    def __init__(
        self, weight: float = 1.0, window: int | None = None, use_memories: bool = True, name: str = "reader"
    ) -> None:
        if weight < 0:
            raise ValueError(f"evidence weight must be >= 0, got {weight}")
        if window is not None and window < 1:
            raise ValueError(f"window must be >= 1, got {window}")
        self.weight, self.window, self.use_memories, self.name = weight, window, use_memories, name

    def __repr__(self) -> str:
        return (
            f"BeliefAgent({self.name!r}, weight={self.weight}, window={self.window}, use_memories={self.use_memories})"
        )

    def answer(self, view: ItemView, memories: Sequence[Memory]) -> Answer:
        texts = stored_texts(memories) if self.use_memories else []
        if view.extra.get("env") == COIN:
            distribution = self._coin(view, texts)
        else:
            distribution = self._recommender(view, texts)
        answer = Answer(
            label=view.answer_space[int(np.argmax(distribution))],
            detail={"distribution": [float(p) for p in distribution]},
        )
        return marked(answer, memories if self.use_memories else [], self._observations_in(view, texts))

    def _observations_in(self, view: ItemView, texts: list[str]) -> int:
        """Observations (flips, ratings) or running totals recognised in the memories alone."""
        if not texts:
            return 0
        totals = sum(coin_totals(text) is not None for text in texts)
        if view.extra.get("env") == COIN:
            return len(coin_evidence(texts)) + totals
        labels = items_by_label(view.extra["catalogue"], bool(view.extra.get("explicit")))
        return len(rating_evidence(texts, labels)) + totals

    def _coin(self, view: ItemView, texts: list[str]) -> np.ndarray:
        if view.task != COIN_TASK:
            raise ResponseError(f"{self.name}: unknown coin probe {view.task!r}")
        totals = coin_totals(str(view.extra.get("totals") or ""))
        if totals is not None and not view.extra.get("inline"):  # a memory condition's probe states it all
            heads, flips = totals
        else:
            seen = chronological(coin_evidence(texts)) + coin_evidence(
                [view.extra.get("inline") or "", view.extra.get("pending") or ""]
            )
            if self.window is not None:
                seen = seen[-self.window :]
            heads, flips = sum(f.heads for f in seen), len(seen)
        p = coin_mean(heads, flips, self.weight)
        return np.array([p, 1.0 - p])

    def _recommender(self, view: ItemView, texts: list[str]) -> np.ndarray:
        catalogue: Catalogue = view.extra["catalogue"]
        labels = items_by_label(catalogue, bool(view.extra.get("explicit")))
        # ratings arrive in catalogue order, so item number order is chronological
        seen = sorted(rating_evidence([*texts, view.extra.get("inline") or ""], labels))
        if self.window is not None:
            seen = seen[-self.window :]
        model = view.extra.get("model")
        target = int(view.extra["target_item"])
        if model is None:  # zero-shot: no profiles, only the user's own ratings
            if view.task != RATING_TASK:
                raise ResponseError(f"{self.name}: zero-shot has no {view.task!r} probe")
            counts = np.bincount([r - 1 for _, r in seen], minlength=len(RATINGS)).astype(float)
            return (1.0 + self.weight * counts) / (len(RATINGS) + self.weight * counts.sum())
        if view.task == CONDITIONAL_TASK:
            return model.table()[target, int(view.extra["hint_type"])]
        posterior = type_posterior(model, seen, self.weight)
        if view.task == TYPE_TASK:
            return posterior
        if view.task == RATING_TASK:
            return rating_predictive(model, posterior, target)
        raise ResponseError(f"{self.name}: unknown recommender probe {view.task!r}")


@lru_cache(maxsize=16)
def items_by_label(catalogue: Catalogue, explicit: bool) -> Mapping[str, int]:
    return {catalogue.label(m, explicit).lower(): m for m in range(len(catalogue.genres))}


def perfect_bayesian() -> BeliefAgent:
    return BeliefAgent(name="perfect_bayesian")


def memoryless() -> BeliefAgent:
    return BeliefAgent(use_memories=False, name="memoryless")


def tempered(weight: float) -> BeliefAgent:
    return BeliefAgent(weight=weight, name=f"tempered_{weight:g}")


def last_k(window: int) -> BeliefAgent:
    return BeliefAgent(window=window, name=f"last_{window}")
