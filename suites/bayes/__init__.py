"""The ``bayes`` suite: do beliefs rebuilt from memory follow the Bayesian posterior?

After BayesBench (seed 003): a coin-flip environment (estimate a bias, Beta-Bernoulli) and
a recommender (infer a user's latent type from ratings, predict a held-out rating), each
with an exact Bayesian reference at every turn. Observations are written to a memory
system one session at a time; between writes the belief is probed from what the memory
returns, and the trajectory is compared with the reference. Nothing here imports pytest.

    suite = BayesSuite(options)                      # one test per episode
    answer = suite.interact(item, memory, responder, k)   # the belief trajectory
    verdict = suite.judge().score(item, answer, trace)    # errors against Bayes

Self-test agents (agents.py) and a deduplicating memory (dedup_memory.py) check the
metrics against theory; offline.run_episodes runs episodes without pytest.
"""

from __future__ import annotations

from .agents import BeliefAgent, last_k, memoryless, perfect_bayesian, tempered
from .conditions import DEFAULT_SEED, Condition, Episode, episodes, parse_episode_id
from .dedup_memory import DeduplicatingMemory
from .environments import COIN_THETAS, TYPE_PRIOR, coin_flips, recommender_model, recommender_ratings
from .judge import COIN_TOLERANCE, REC_TOLERANCE, TrajectoryJudge
from .offline import run_episodes
from .prompt import BayesPrompt
from .reference import coin_mean, fit_coin_weight, fit_type_weight, rating_predictive, tvd, type_posterior
from .suite import BayesSuite

__all__ = [
    "BayesPrompt",
    "BayesSuite",
    "BeliefAgent",
    "COIN_THETAS",
    "COIN_TOLERANCE",
    "Condition",
    "DEFAULT_SEED",
    "DeduplicatingMemory",
    "Episode",
    "REC_TOLERANCE",
    "TYPE_PRIOR",
    "TrajectoryJudge",
    "coin_flips",
    "coin_mean",
    "episodes",
    "fit_coin_weight",
    "fit_type_weight",
    "last_k",
    "memoryless",
    "parse_episode_id",
    "perfect_bayesian",
    "rating_predictive",
    "recommender_model",
    "recommender_ratings",
    "run_episodes",
    "tempered",
    "tvd",
    "type_posterior",
]
