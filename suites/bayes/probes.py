"""Belief probes: the public questions asked between writes, as ItemViews.

A probe is a multiple-choice question over outcomes in a canonical order (heads/tails,
1-5 stars, Profile 1-4). Asked at rotation j, option position i holds outcome (i + j) mod K
(paper App. A); a response model returns its distribution over outcomes in canonical
order whatever the rotation. The view carries the public parts of the probe: the task
description, evidence stated inline (single turn, a batch not yet stored, running totals)
and, for the recommender, the population model eta = (pi, phi) the paper gives the model.
Nothing private: no true parameter, no trial, no episode id.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_memeval.types import ItemView

from . import render
from .conditions import Condition
from .environments import COIN, N_TYPES, RecommenderModel

SUITE = "bayes"
COIN_TASK = "coin_next_flip"
RATING_TASK = "rec_rating"
TYPE_TASK = "rec_type"
CONDITIONAL_TASK = "rec_rating_given_type"


@dataclass(frozen=True)
class Probe:
    task: str
    question: str
    outcomes: tuple[str, ...]
    extra: Mapping[str, Any] = field(default_factory=dict)

    def view(self, rotation: int = 0, readout: str = "logprobs") -> ItemView:
        k = len(self.outcomes)
        options = tuple(self.outcomes[(i + rotation) % k] for i in range(k))
        extra = dict(self.extra, options=options, rotation=rotation, readout=readout)
        return ItemView(SUITE, self.task, self.question, self.outcomes, allow_abstain=False, extra=extra)


def coin_probe(condition: Condition, inline: str = "", pending: str = "", totals: str = "") -> Probe:
    assert condition.task is not None
    extra = {
        "env": COIN,
        "task_description": render.COIN_TASKS[condition.task],
        "uses_memory": condition.uses_memory,
        "inline": inline,
        "pending": pending,
        "totals": totals,
    }
    return Probe(COIN_TASK, render.COIN_PROBE, render.COIN_OUTCOMES, extra)


def recommender_probes(
    condition: Condition, model: RecommenderModel, target: int, inline: str = "", totals: str = ""
) -> list[Probe]:
    """The rating question; with population information also the type question and the
    rating question once per hinted type (paper C.1.3, questions 1-3)."""
    explicit = condition.profile == "explicit"
    zero_shot = condition.profile == "zero_shot"
    base = {
        "env": "recommender",
        "explicit": explicit,
        "catalogue": model.catalogue,
        # the model the paper describes to the LLM (as per-profile averages); none in zero-shot
        "model": None if zero_shot else model,
        "target_item": target,
        "uses_memory": condition.uses_memory,
        "inline": inline,
        "pending": "",
        "totals": totals,
    }
    rating = render.rating_question(model.catalogue, target, explicit)
    probes = [Probe(RATING_TASK, rating, render.RATING_OUTCOMES, base)]
    if zero_shot:
        return probes
    profiles = tuple(render.profile_name(z) for z in range(N_TYPES))
    probes.append(Probe(TYPE_TASK, render.type_question(explicit), profiles, base))
    for z in range(N_TYPES):
        question = f"{render.type_hint(z)}\n{rating}"
        probes.append(Probe(CONDITIONAL_TASK, question, render.RATING_OUTCOMES, dict(base, hint_type=z)))
    return probes
