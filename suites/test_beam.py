"""Long-term memory over 100K to 10M tokens (BEAM, Tavakoli et al., 2025).

One test per probing question: its conversation is stored batch by batch, the question is
asked and the answer graded against the question's rubric.
"""

import pytest

from pytest_memeval import Outcome, check


@pytest.mark.memeval("beam")
def test_beam(memeval_result: Outcome) -> None:
    check(memeval_result)
