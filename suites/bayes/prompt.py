"""The LLM face of a probe: chat messages from a probe view and the retrieved memories, and
the option reading from the completion (a pytest_memeval.llm.ResponsePrompt).

The view's `readout` picks the template: bayes_mcq (answer with one letter, read from
log-probs) or bayes_verbalised (state probabilities as JSON). The recommender's profile
table shows each profile's average rating per sequence item, as the paper does (App.
C.1.1), never the target item.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from pytest_memeval.llm.calls import Completion
from pytest_memeval.llm.templates import PromptTemplate, load_template
from pytest_memeval.types import Answer, ItemView, Memory

from . import render
from .environments import COIN, RecommenderModel
from .probes import TYPE_TASK
from .readout import LETTERS, Reading, letter_reading, verbalised_reading

LOGPROBS, VERBALISED = "logprobs", "verbalised"
NO_MEMORIES = "(nothing)"


class BayesPrompt:
    def __init__(self) -> None:
        self.templates = {LOGPROBS: load_template("bayes_mcq"), VERBALISED: load_template("bayes_verbalised")}
        #: the ResponsePrompt protocol's template: the paper's (log-prob) readout
        self.template: PromptTemplate = self.templates[LOGPROBS]

    def template_for(self, view: ItemView) -> PromptTemplate:
        return self.templates[view.extra.get("readout", LOGPROBS)]

    def messages(self, view: ItemView, memories: Sequence[Memory]) -> list[dict[str, str]]:
        options: tuple[str, ...] = view.extra["options"]
        letters = LETTERS[: len(options)]
        mapping = ", ".join(f"{letter} = {option}" for letter, option in zip(letters, options))
        values = {
            "intro": intro(view),
            "letters": _letters(letters),
            "mapping": mapping,
            "population": population_block(view, mapping),
            "evidence": evidence_block(view, memories),
            "question": view.question,
            # the recommender's MCQs end with a format reminder (App. C.1); the coin's does not (B.1.5)
            "reminder": "" if view.extra["env"] == COIN else f"\nRespond with only {_letters(letters)}.",
        }
        values["example"] = json.dumps({letter: round(1 / len(letters), 2) for letter in letters})
        template = self.template_for(view)
        return template.render({name: values[name] for name in template.variables})

    def schema(self, view: ItemView) -> dict[str, Any] | None:
        """Verbalised: one number per option letter. The log-prob readout sends none: it reads
        the model's unconstrained next-token distribution."""
        if view.extra.get("readout", LOGPROBS) == LOGPROBS:
            return None
        letters = list(LETTERS[: len(view.extra["options"])])
        return self.templates[VERBALISED].schema(
            {"letters": letters, "properties": {letter: {"type": "number"} for letter in letters}}
        )

    def parse(self, completion: Completion, view: ItemView) -> Answer:
        """The option reading as an Answer: `label` is the most likely option's outcome,
        detail holds the per-position probabilities; a log-prob probe answered without
        log-probs is invalid with readout 'unavailable' (the caller switches to verbalised)."""
        k = len(view.extra["options"])
        readout = view.extra.get("readout", LOGPROBS)
        if readout == LOGPROBS:
            if completion.logprobs is None:
                return Answer(None, valid=False, raw=completion.content or "", detail={"readout": "unavailable"})
            reading = letter_reading(completion.logprobs, k)
        else:
            reading = verbalised_reading(completion.content, k)
        return _answer(view, reading, readout, completion.content or "")


def _answer(view: ItemView, reading: Reading, readout: str, raw: str) -> Answer:
    options = view.extra["options"]
    best = max(range(len(options)), key=lambda i: reading.positions[i])
    detail: dict[str, Any] = {"positions": list(reading.positions), "readout": readout, "flagged": reading.flagged}
    if reading.mass is not None:
        detail["mass"] = reading.mass
    return Answer(options[best], raw=raw, detail=detail)


def intro(view: ItemView) -> str:
    if view.extra["env"] == COIN:
        return str(view.extra["task_description"])
    explicit = bool(view.extra.get("explicit"))
    if view.task == TYPE_TASK:
        return f"You are classifying which {'viewer profile' if explicit else 'profile'} a user belongs to based on their rating history."
    return (
        f"You are predicting how a user will rate {'a movie' if explicit else 'an item'} based on their rating history."
    )


def population_block(view: ItemView, mapping: str) -> str:
    model: RecommenderModel | None = view.extra.get("model")
    if view.extra["env"] == COIN or model is None:
        return ""
    explicit = bool(view.extra.get("explicit"))
    closing = "Given a user's rating history, consider which profile best matches their pattern of ratings"
    if view.task != TYPE_TASK:
        closing += f", then predict how they would rate the target {'movie' if explicit else 'item'}"
    return f"\n\n{profile_table(model, explicit)}\n\n{closing}.\n{mapping}"


@lru_cache(maxsize=8)
def profile_table(model: RecommenderModel, explicit: bool) -> str:
    means = model.mean_ratings()
    catalogue = model.catalogue
    noun = "viewer profiles" if explicit else "profiles"
    blocks = [f"Based on data from our platform, users fall into {len(model.prior)} {noun}:"]
    for z, share in enumerate(model.prior):
        lines = [f"{render.profile_name(z)} ({round(share * 100)}% of users):"]
        lines += [f"- {catalogue.label(m, explicit)}: avg rating: {means[m, z]:.1f}" for m in catalogue.sequence]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def evidence_block(view: ItemView, memories: Sequence[Memory]) -> str:
    """What the model is shown before the question: the retrieved memories (memory
    conditions), then any evidence the probe states itself, one part per paragraph."""
    parts = []
    if view.extra.get("uses_memory"):
        texts = [m.text.strip() for m in memories if m.text.strip()]
        parts.append("Recalled from earlier in this conversation:\n" + ("\n".join(texts) if texts else NO_MEMORIES))
    parts += [str(view.extra.get(name) or "") for name in ("inline", "pending", "totals")]
    return "".join(f"{part}\n\n" for part in parts if part)


def _letters(letters: str) -> str:
    if len(letters) == 2:
        return f"{letters[0]} or {letters[1]}"
    return ", ".join(letters[:-1]) + f", or {letters[-1]}"
