"""Asking a response model for beliefs: one counterbalanced distribution per probe.

`DirectAsker` serves response models that return their distribution themselves (the
offline reader, the self-test agents: Answer.detail["distribution"] in outcome order);
a position-invariant one is asked once per probe, any other once per rotation.
`LLMAsker` serves an OpenAI-compatible `LLMResponder`: every probe is asked at its K
cyclic rotations, all calls of one turn in parallel through the responder's cached
caller, with log-probabilities requested; when the endpoint returns none, the episode
switches to verbalised probabilities (marked as such).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from pytest_memeval.errors import ConfigError, ResponseError
from pytest_memeval.llm.calls import ChatRequest
from pytest_memeval.llm.responder import LLMResponder
from pytest_memeval.llm.tally import count
from pytest_memeval.protocols import position_invariant
from pytest_memeval.types import Memory

from .probes import Probe
from .prompt import LOGPROBS, VERBALISED, BayesPrompt
from .readout import Reading, counterbalance

#: the most alternatives OpenAI-compatible endpoints return per token
TOP_LOGPROBS = 20


@dataclass(frozen=True)
class Belief:
    distribution: tuple[float, ...]  # over the probe's outcomes, canonical order
    label: str
    flagged: int = 0
    mass: float | None = None
    position_bias: tuple[float, ...] | None = None


class Asker(Protocol):
    #: how beliefs are read: "direct", "logprobs" or "verbalised"
    readout: str
    #: answers whose reader recognised nothing in non-empty memories (see pytest_memeval/framework/unreadable.py)
    unreadable_answers: int

    def ask(self, probes: Sequence[Probe], memories: Sequence[Memory]) -> list[Belief]: ...

    def close(self) -> None: ...


class DirectAsker:
    readout = "direct"

    def __init__(self, responder: Any, label: str) -> None:
        self.responder, self.label = responder, label
        self.rotations_per_probe = 1 if position_invariant(responder) else None
        self.unreadable_answers = 0

    def ask(self, probes: Sequence[Probe], memories: Sequence[Memory]) -> list[Belief]:
        beliefs = []
        for probe in probes:
            rotations = range(self.rotations_per_probe or len(probe.outcomes))
            distributions = [self._distribution(probe, rotation, memories) for rotation in rotations]
            mean = np.mean(distributions, axis=0)
            beliefs.append(Belief(tuple(float(p) for p in mean), probe.outcomes[int(np.argmax(mean))]))
        return beliefs

    def _distribution(self, probe: Probe, rotation: int, memories: Sequence[Memory]) -> np.ndarray:
        answer = self.responder.answer(probe.view(rotation, self.readout), list(memories))
        self.unreadable_answers += answer.memory_unreadable
        distribution = answer.detail.get("distribution") if answer.valid else None
        if distribution is None or len(distribution) != len(probe.outcomes):
            raise ResponseError(
                f"{self.label}: the response model gave no belief distribution over {len(probe.outcomes)} outcomes "
                "(bayes needs the reader, a self-test agent or openai:MODEL)"
            )
        values = np.asarray(distribution, dtype=float)
        if not (np.all(np.isfinite(values)) and np.all(values >= 0) and abs(values.sum() - 1) < 1e-6):
            raise ResponseError(f"{self.label}: belief {list(values)} is not a probability distribution")
        return values

    def close(self) -> None:
        pass


class LLMAsker:
    unreadable_answers = 0  # an LLM reads whatever memory returns

    def __init__(self, responder: LLMResponder, label: str) -> None:
        prompt = responder.prompt
        if not isinstance(prompt, BayesPrompt):
            raise ConfigError(f"bayes: the LLM responder must use the bayes prompt, not {type(prompt).__name__}")
        self.prompt: BayesPrompt = prompt
        self.caller = responder.caller
        self.label = label
        base = responder.settings
        self.settings = {
            # only the first token is read: one is all a probe needs generated
            LOGPROBS: replace(base, logprobs=True, top_logprobs=TOP_LOGPROBS, max_tokens=1),
            VERBALISED: replace(base, logprobs=False, top_logprobs=None),
        }
        self.readout = LOGPROBS
        self._pool = ThreadPoolExecutor(base.concurrency, thread_name_prefix="memeval-bayes")

    def ask(self, probes: Sequence[Probe], memories: Sequence[Memory]) -> list[Belief]:
        jobs = [(probe, rotation) for probe in probes for rotation in range(len(probe.outcomes))]
        views = [probe.view(rotation, self.readout) for probe, rotation in jobs]
        requests = [
            ChatRequest.build(
                self.settings[self.readout],
                self.prompt.messages(view, memories),
                self.prompt.template_for(view).id,
                self.prompt.schema(view),
            )
            for view in views
        ]
        completions = list(self._pool.map(lambda request: self.caller.call(request, label=self.label), requests))
        for request, completion in zip(requests, completions):
            count("answer", request.model, completion)
        answers = [self.prompt.parse(completion, view) for completion, view in zip(completions, views)]
        if self.readout == LOGPROBS and any(a.detail.get("readout") == "unavailable" for a in answers):
            self.readout = VERBALISED
            return self.ask(probes, memories)
        readings: dict[int, list[tuple[int, Reading]]] = {}
        for (probe, rotation), answer in zip(jobs, answers):
            reading = Reading(
                tuple(answer.detail["positions"]), answer.detail.get("mass"), answer.detail.get("flagged")
            )
            readings.setdefault(id(probe), []).append((rotation, reading))
        beliefs = []
        for probe in probes:
            result = counterbalance(readings[id(probe)])
            best = int(np.argmax(result.distribution))
            beliefs.append(
                Belief(result.distribution, probe.outcomes[best], result.flagged, result.mass, result.position_bias)
            )
        return beliefs

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def asker_for(responder: Any, label: str) -> Asker:
    if isinstance(responder, LLMResponder):
        return LLMAsker(responder, label)
    return DirectAsker(responder, label)
