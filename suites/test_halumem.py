"""Hallucinations in memory systems (HaluMem, Chen et al. 2025): extraction, update, answers.

One test per memory point, session and question; a user's sessions are stored one at a time
and each session's probes and questions are asked right after it. An item whose extraction
cannot be scored (the memory system's dump() returns None) is skipped as n/a, never failed.
"""

import pytest
from pytest_memeval.suites.halumem.judge import NA_DUMP

from pytest_memeval import Outcome, check


@pytest.mark.memeval("halumem")
def test_halumem(memeval_result: Outcome) -> None:
    if memeval_result.verdict.detail.get("na"):
        pytest.skip(NA_DUMP)
    check(memeval_result)
