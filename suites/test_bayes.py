"""Belief trajectories as evidence accumulates through memory (BayesBench, Samanta et al.).

One test per episode: every observation is written to memory as its own session and
the belief is probed between writes from what the memory returns. The test passes when
the trajectory stays within tolerance of the exact Bayesian posterior.
"""

import pytest

from pytest_memeval import Outcome, check


@pytest.mark.memeval("bayes")
def test_bayes(memeval_result: Outcome) -> None:
    check(memeval_result)
