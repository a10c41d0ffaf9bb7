"""Conditions, episodes and their ids: which episodes a run has, and how pytest names and marks them.

An episode is (seed, environment, condition, true parameter, trial); it is one test. Its
condition says how evidence is delivered (single turn, multi-turn passive, self-anchored,
batched), how an observation is worded (identical texts or indexed ones), how the task is
described, which population information the model gets and whether probes carry the
running totals. A single-turn probe always states them, as the paper's (App. B.1.2 for the
coin, C.1.3 for the recommender; it reads no memory); in a memory condition they would let
the probe bypass memory, so there they are a condition of their own (`totals`, the paper's
B.1.3 delivery), off in every other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from pytest_memeval.errors import ConfigError

from .environments import COIN, COIN_THETAS, COIN_TURNS, N_TYPES, REC_TURNS, RECOMMENDER

SINGLE_TURN, PASSIVE, SELF_ANCHORED = "single_turn", "passive", "self_anchored"
IDENTICAL, INDEXED = "identical", "indexed"
TASKS = ("unknown_bias", "fair", "unspecified")
PROFILES = ("anonymized", "explicit", "zero_shot")
BATCHES = (1, 2, 5, 10, 25, 50, 100)
SIZES = ("smoke", "small", "full")
TRIALS = {"smoke": 1, "small": 2, "full": 5}
#: the published seed (--memeval-seed overrides it)
DEFAULT_SEED = 2026
#: the id prefix of recommender episodes on the authors' released model (released.py)
RELEASED_PREFIX = "bayesbench-"


@dataclass(frozen=True)
class Condition:
    env: str
    delivery: str
    batch: int = 1
    #: coin, multi-turn only: how each observation is worded in memory
    obs: str | None = None
    #: coin only: the task description (paper B.1.1)
    task: str | None = None
    #: recommender only: the population information the model gets (paper C.1.1)
    profile: str | None = None
    #: a memory condition whose probes state the running totals (the paper's multi-turn
    #: delivery, B.1.3): they no longer need memory
    totals: bool = False

    @property
    def key(self) -> str:
        """'passive_b10-identical-unknown_bias', 'single_turn-explicit', ...; unique per env."""
        parts = [f"{self.delivery}_b{self.batch}" if self.delivery == PASSIVE else self.delivery]
        parts += [p for p in (self.obs, self.task, self.profile) if p is not None]
        if self.totals:
            parts.append("totals")
        return "-".join(parts)

    @property
    def turns(self) -> int:
        return COIN_TURNS if self.env == COIN else REC_TURNS

    @property
    def uses_memory(self) -> bool:
        return self.delivery != SINGLE_TURN

    @property
    def states_totals(self) -> bool:
        """Whether the probes state the running totals: every single-turn probe (paper B.1.2,
        C.1.3), and those of a memory condition with `totals`."""
        return self.totals or self.delivery == SINGLE_TURN

    @property
    def sessions(self) -> int:
        """How many sessions an episode writes to memory."""
        return -(-self.turns // self.batch) if self.uses_memory else 0


@dataclass(frozen=True)
class Episode:
    seed: int
    condition: Condition
    #: coin: index into COIN_THETAS; recommender: the user's type (0-based)
    truth: int
    trial: int
    #: recommender on the authors' released fit (--memeval-data) instead of the seed's generated model
    released: bool = False

    @property
    def env(self) -> str:
        return self.condition.env

    @property
    def truth_label(self) -> str:
        if self.env == COIN:
            return f"theta{round(COIN_THETAS[self.truth] * 100)}"
        return f"type{self.truth + 1}"

    @property
    def prefix(self) -> str:
        return RELEASED_PREFIX if self.released else ""

    @property
    def id(self) -> str:
        return f"{self.prefix}s{self.seed}-{self.env}-{self.condition.key}-{self.truth_label}-trial{self.trial}"

    @property
    def stream(self) -> str:
        """The evidence stream: every condition of the same (truth, trial) sees the same observations."""
        return f"{self.prefix}s{self.seed}-{self.env}-{self.truth_label}-trial{self.trial}"


def coin_conditions(size: str) -> list[Condition]:
    memory = [
        Condition(COIN, PASSIVE, 1, IDENTICAL, "unknown_bias"),
        Condition(COIN, PASSIVE, 1, INDEXED, "unknown_bias"),
        Condition(COIN, SELF_ANCHORED, 1, IDENTICAL, "unknown_bias"),
    ]
    if size == "smoke":
        return [
            Condition(COIN, SINGLE_TURN, task="unknown_bias"),
            *memory,
            Condition(COIN, PASSIVE, 10, IDENTICAL, "unknown_bias"),
        ]
    conditions = [Condition(COIN, SINGLE_TURN, task=task) for task in TASKS]
    conditions += memory + [Condition(COIN, SELF_ANCHORED, 1, INDEXED, "unknown_bias")]
    conditions += [Condition(COIN, PASSIVE, 1, IDENTICAL, task) for task in TASKS[1:]]
    conditions += [
        Condition(COIN, PASSIVE, b, obs, "unknown_bias") for b in BATCHES[1:] for obs in (IDENTICAL, INDEXED)
    ]
    if size == "full":
        conditions.append(Condition(COIN, PASSIVE, 1, IDENTICAL, "unknown_bias", totals=True))
    return conditions


def recommender_conditions(size: str) -> list[Condition]:
    if size == "smoke":
        return [
            Condition(RECOMMENDER, SINGLE_TURN, profile="anonymized"),
            Condition(RECOMMENDER, PASSIVE, profile="anonymized"),
            Condition(RECOMMENDER, SELF_ANCHORED, profile="anonymized"),
            Condition(RECOMMENDER, PASSIVE, profile="explicit"),
            Condition(RECOMMENDER, PASSIVE, profile="zero_shot"),
        ]
    conditions = [
        Condition(RECOMMENDER, d, profile=p) for p in PROFILES[:2] for d in (SINGLE_TURN, PASSIVE, SELF_ANCHORED)
    ]
    conditions += [Condition(RECOMMENDER, d, profile="zero_shot") for d in (SINGLE_TURN, PASSIVE)]
    if size == "full":
        conditions.append(Condition(RECOMMENDER, PASSIVE, profile="anonymized", totals=True))
    return conditions


def episodes(size: str, seeds: tuple[int, ...], released: bool = False) -> list[Episode]:
    """The episodes of a run, grouped by seed, environment and condition; `released`: the
    recommender's on the authors' fit (the coin has no released data: it is the same)."""
    if size not in SIZES:
        raise ConfigError(f"bayes: unknown size {size!r} (sizes: {', '.join(SIZES)})")
    trials = TRIALS[size]
    out = []
    for seed in seeds:
        for condition in coin_conditions(size):
            out += [Episode(seed, condition, i, trial) for i in range(len(COIN_THETAS)) for trial in range(trials)]
        for condition in recommender_conditions(size):
            out += [Episode(seed, condition, z, trial, released) for z in range(N_TYPES) for trial in range(trials)]
    return out


_ID = re.compile(
    rf"(?P<released>{RELEASED_PREFIX})?s(?P<seed>\d+)-(?P<env>coin|recommender)-(?P<key>.+)-(?P<truth>theta\d+|type\d)-trial(?P<trial>\d+)"
)


def parse_episode_id(episode_id: str) -> Episode:
    """The episode an id names, for any condition of any size; a ConfigError otherwise."""
    match = _ID.fullmatch(episode_id)
    condition = _conditions_by_key().get((match["env"], match["key"])) if match else None
    if match is None or condition is None or (match["released"] and match["env"] == COIN):
        raise ConfigError(
            f"bayes: {episode_id!r} is not an episode id (e.g. s{DEFAULT_SEED}-coin-passive_b1-identical-unknown_bias-theta25-trial0)"
        )
    truth = _truth_index(match["env"], match["truth"])
    trial = int(match["trial"])
    if truth is None or trial >= TRIALS["full"]:
        raise ConfigError(f"bayes: {episode_id!r} names no episode (true parameter or trial out of range)")
    return Episode(int(match["seed"]), condition, truth, trial, bool(match["released"]))


@lru_cache(maxsize=1)
def _conditions_by_key() -> dict[tuple[str, str], Condition]:
    return {(c.env, c.key): c for c in coin_conditions("full") + recommender_conditions("full")}


def _truth_index(env: str, label: str) -> int | None:
    if env == COIN:
        values = [f"theta{round(t * 100)}" for t in COIN_THETAS]
    else:
        values = [f"type{z + 1}" for z in range(N_TYPES)]
    return values.index(label) if label in values else None


# --- markers --------------------------------------------------------------------------------


def marker_descriptions() -> dict[str, str]:
    markers = {
        "coin_flip": "bayes coin flip: estimate a coin's bias from flips (Beta-Bernoulli, T=100)",
        "recommender": "bayes recommender: infer a user's type from ratings and predict a held-out rating (T=50)",
        "single_turn": "bayes: the evidence so far is inline in each probe, with its running totals as in the paper; memory is not used (the model's own fidelity, the control)",
        "multi_turn_passive": "bayes: each observation (or batch) is written to memory as its own session, acknowledged with 'Noted.'",
        "multi_turn_self_anchored": "bayes: like passive, but the stored reply is the model's own previous answer (stored outputs may contaminate later beliefs)",
        "batched": "bayes: several observations per stored session (batch size above 1)",
        "obs_identical": "bayes: every observation is stored with the same wording ('The flip was: heads'): a deduplicating or consolidating memory undercounts evidence",
        "obs_indexed": "bayes: observations are stored with their index ('Flip #17 was heads'): nothing to deduplicate",
        "running_totals": "bayes: a memory condition whose probes state the running totals, as the paper's multi-turn ones do; the probe can bypass memory",
        "topk_capped": "bayes: more sessions are written than k memories are retrieved (at the run's first --memeval-k): top-k retrieval caps the evidence",
    }
    markers.update({f"batch_{b}": f"bayes: {b} observation(s) per stored session" for b in BATCHES})
    markers.update({f"task_{t}": f"bayes coin task description: {t.replace('_', ' ')}" for t in TASKS})
    markers.update(
        {f"profile_{p}": f"bayes recommender population information: {p.replace('_', ' ')}" for p in PROFILES}
    )
    markers.update({f"theta_{round(t * 100)}": f"bayes coin with true bias {t}" for t in COIN_THETAS})
    markers.update({f"user_type_{z + 1}": f"bayes recommender user of type {z + 1}" for z in range(N_TYPES)})
    return markers


def episode_marks(episode: Episode, k: int) -> tuple[str, ...]:
    c = episode.condition
    marks = ["coin_flip" if c.env == COIN else "recommender"]
    if c.delivery == SINGLE_TURN:
        marks.append("single_turn")
    else:
        marks.append("multi_turn_passive" if c.delivery == PASSIVE else "multi_turn_self_anchored")
        marks.append(f"batch_{c.batch}")
        if c.batch > 1:
            marks.append("batched")
        if c.sessions > k:
            marks.append("topk_capped")
    if c.obs is not None:
        marks.append(f"obs_{c.obs}")
    if c.task is not None:
        marks.append(f"task_{c.task}")
    if c.profile is not None:
        marks.append(f"profile_{c.profile}")
    if c.totals:
        marks.append("running_totals")
    if c.env == COIN:
        marks.append(f"theta_{round(COIN_THETAS[episode.truth] * 100)}")
    else:
        marks.append(f"user_type_{episode.truth + 1}")
    return tuple(marks)
