"""One episode through a memory system: write each observation (or batch) as its own
session, probe between writes, and keep the belief trajectory.

At turn t the t-th observation arrives; when a batch is complete it is written to memory
(one session: the assistant's reply to the previous turn, then the evidence). On probe
turns (0, every n-th, and the last) the memory is asked with the probe as query and the
response model answers from what it returned. Single-turn delivery writes nothing and
states the history in the probe instead. Besides the beliefs, each probe records what
the memory let through: how many stored observations the retrieved memories state, and
for observations with a known position, how recent they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pytest_memeval.errors import ResponseError
from pytest_memeval.types import Answer, Item, Memory, Message

from . import render
from .agents import items_by_label
from .askers import Asker, Belief
from .conditions import SELF_ANCHORED, SINGLE_TURN, Condition, Episode
from .environments import COIN, RecommenderModel
from .parse import coin_evidence, rating_evidence
from .probes import Probe, coin_probe, recommender_probes

#: decimals kept of diagnostics, and of beliefs (finer, so an exact reader scores 0 to 9 decimals)
DIGITS = 6
BELIEF_DIGITS = 9


@dataclass(frozen=True)
class EpisodeData:
    """What an episode needs to run: its condition and evidence (private to the suite)."""

    episode: Episode
    #: coin: flips (True = heads); recommender: ratings 1-5 on the sequence items
    observations: tuple[Any, ...]
    model: RecommenderModel | None = None
    target: int | None = None

    @property
    def condition(self) -> Condition:
        return self.episode.condition


@dataclass(frozen=True, kw_only=True)
class EpisodeItem(Item):
    """A bayes item: its judge and its episode read the episode's data, typed."""

    data: EpisodeData


def data_of(item: Item) -> EpisodeData:
    """The episode behind a bayes item; a ResponseError for an item of another suite."""
    if not isinstance(item, EpisodeItem):
        raise ResponseError(f"{item.id}: not a bayes episode item")
    return item.data


class EpisodeMemory(Protocol):
    """The part of framework.suite.ItemMemory an episode uses: one namespace, written and read."""

    def ingest(self, session: Sequence[Message]) -> None: ...

    def retrieve(self, query: str, k: int) -> list[Memory]: ...


def probe_turns(turns: int, every: int) -> list[int]:
    """0, every, 2 * every, ... and always the last turn."""
    return sorted(set(range(0, turns + 1, every)) | {turns})


def run_episode(data: EpisodeData, memory: EpisodeMemory, asker: Asker, k: int, probe_every: int) -> Answer:
    condition = data.condition
    turns = len(data.observations)
    schedule = set(probe_turns(turns, probe_every))
    trajectory: list[dict[str, Any]] = []
    pending: list[Any] = []
    reply = render.ACK
    unreadable_before = asker.unreadable_answers
    for t in range(turns + 1):
        if t > 0:
            pending.append(data.observations[t - 1])
            if condition.uses_memory and (len(pending) == condition.batch or t == turns):
                memory.ingest(render.session(reply, observation_text(data, pending, t - len(pending) + 1)))
                pending = []
        if t not in schedule:
            continue
        memories = memory.retrieve(query(data), k) if condition.uses_memory else []
        beliefs = asker.ask(probes(data, t, pending), memories)
        trajectory.append(_entry(data, t, t - len(pending) if condition.uses_memory else 0, memories, beliefs))
        if condition.delivery == SELF_ANCHORED:
            reply = _anchor(data, beliefs)
    detail: dict[str, Any] = {"readout": asker.readout, "probe_every": probe_every, "trajectory": trajectory}
    unreadable = asker.unreadable_answers - unreadable_before
    if unreadable:  # the offline reader recognised no observation in what memory returned
        detail["unreadable_answers"] = unreadable
    return Answer(label=_final_label(data, trajectory[-1]), detail=detail, memory_unreadable=bool(unreadable))


def observation_text(data: EpisodeData, batch: Sequence[Any], first: int) -> str:
    """The stored text of a batch of observations; `first` is the 1-based turn of its first one."""
    condition = data.condition
    if condition.env == COIN:
        return render.coin_observation(batch, first, condition.obs or "identical")
    assert data.model is not None
    explicit = condition.profile == "explicit"
    catalogue = data.model.catalogue
    return "\n".join(render.rating_observation(catalogue, first - 1 + i, r, explicit) for i, r in enumerate(batch))


def query(data: EpisodeData) -> str:
    if data.condition.env == COIN:
        return render.COIN_PROBE
    assert data.model is not None and data.target is not None
    return render.rating_question(data.model.catalogue, data.target, data.condition.profile == "explicit")


def probes(data: EpisodeData, t: int, pending: Sequence[Any]) -> list[Probe]:
    """The probes of turn t: evidence the model must get from memory is not in them."""
    condition = data.condition
    seen = data.observations[:t]
    single = condition.delivery == SINGLE_TURN
    if condition.env == COIN:
        return [
            coin_probe(
                condition,
                inline=render.coin_inline(seen) if single else "",
                pending="" if single else render.coin_pending(pending),
                totals=render.coin_totals(seen) if condition.states_totals else "",
            )
        ]
    assert data.model is not None and data.target is not None
    explicit = condition.profile == "explicit"
    rated = list(enumerate(seen))
    inline = render.rating_inline(data.model.catalogue, rated, explicit) if single else ""
    totals = render.rating_totals(rated, explicit) if condition.states_totals else ""
    return recommender_probes(condition, data.model, data.target, inline=inline, totals=totals)


def _entry(data: EpisodeData, t: int, stored: int, memories: Sequence[Memory], beliefs: list[Belief]) -> dict[str, Any]:
    entry: dict[str, Any] = {"t": t, "stored": stored, "retrieved": len(memories)}
    if data.condition.uses_memory:
        entry.update(_let_through(data, stored, [m.text for m in memories]))
    if data.condition.env == COIN:
        entry["p_heads"] = round(beliefs[0].distribution[0], BELIEF_DIGITS)
    else:
        entry["rating"] = _rounded(beliefs[0].distribution)
        if len(beliefs) > 1:
            entry["type"] = _rounded(beliefs[1].distribution)
            entry["conditional"] = [_rounded(b.distribution) for b in beliefs[2:]]
    if any(b.position_bias is not None for b in beliefs):  # an LLM reading
        entry["flagged"] = sum(b.flagged for b in beliefs)
        masses = [b.mass for b in beliefs if b.mass is not None]
        entry["mass"] = round(min(masses), DIGITS) if masses else None
        entry["position_bias"] = [[round(d, DIGITS) for d in b.position_bias or ()] for b in beliefs]
    return entry


def _let_through(data: EpisodeData, stored: int, texts: list[str]) -> dict[str, Any]:
    """Observations the retrieved memories state (the memory's side of the evidence), and
    their mean relative position (0 oldest, 1 newest) when positions are known."""
    if data.condition.env == COIN:
        flips = coin_evidence(texts)
        positions = [f.index for f in flips if f.index is not None and f.index <= stored]
        seen = len(flips)
    else:
        assert data.model is not None
        ratings = rating_evidence(texts, items_by_label(data.model.catalogue, data.condition.profile == "explicit"))
        positions = [m + 1 for m, _ in ratings if m < stored]
        seen = len(ratings)
    recency = None
    if positions and stored > 1 and len(positions) == seen:
        recency = round(sum((p - 1) / (stored - 1) for p in positions) / len(positions), DIGITS)
    return {"seen": seen, "recency": recency}


def _anchor(data: EpisodeData, beliefs: list[Belief]) -> str:
    """The self-anchored reply: the model's latest answer (its type for the recommender)."""
    if data.condition.env == COIN or len(beliefs) == 1:
        return beliefs[0].label
    return beliefs[1].label


def _final_label(data: EpisodeData, last: dict[str, Any]) -> str:
    if data.condition.env == COIN:
        return f"p(heads)={last['p_heads']:.3f}"
    if "type" in last:
        return render.profile_name(max(range(len(last["type"])), key=lambda z: last["type"][z]))
    best = max(range(len(last["rating"])), key=lambda r: last["rating"][r])
    return render.stars(best + 1)


def _rounded(values: Sequence[float]) -> list[float]:
    return [round(float(v), BELIEF_DIGITS) for v in values]
