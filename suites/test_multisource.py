"""Selective QA over conflicting multi-source personal memory (Yang, Schonlau, Sucholutsky).

One test per (seed, persona, question); the persona's five sources are stored once per
run, the question is answered from what the memory system returns.
"""

import pytest

from pytest_memeval import Outcome, check


@pytest.mark.memeval("multisource")
def test_multisource(memeval_result: Outcome) -> None:
    check(memeval_result)
