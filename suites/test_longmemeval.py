"""Long-term interactive memory (LongMemEval, Wu et al., ICLR 2025).

One test per question: its haystack sessions are stored, the question is asked at its date
and answered from what the memory system returns for it.
"""

import pytest

from pytest_memeval import Outcome, check


@pytest.mark.memeval("longmemeval")
def test_longmemeval(memeval_result: Outcome) -> None:
    check(memeval_result)
