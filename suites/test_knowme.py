"""Person understanding over a flashback-aware life stream (KnowMe-Bench, Wu et al.).

One test per question of the seven tasks; a life's stream is stored once per run, each
question is answered from what the memory system returns for it.
"""

import pytest

from pytest_memeval import Outcome, check


@pytest.mark.memeval("knowme")
def test_knowme(memeval_result: Outcome) -> None:
    check(memeval_result)
