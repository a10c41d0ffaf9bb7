"""The behavior suite (seed 004, "Beyond Recall"): representational accuracy, i.e. whether
the context a memory provides lets a model predict how a person decides in situations it
has never seen. Synthetic subjects with latent principles, a training half of episodes, a
held-out half of situations with the gold behaviour; Behavioral Specifications, facts and
corpus as conditions; the paper's 1-5 rubric; statistics with the subject as the unit."""

from .conditions import CONDITIONS, PAIRS, Condition
from .suite import BehaviorSuite

__all__ = ["CONDITIONS", "PAIRS", "BehaviorSuite", "Condition"]
