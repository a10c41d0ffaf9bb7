"""LoCoMo: very long-term conversational memory (Maharana et al., 2024), as memory systems publish it.

One test per question (categories 1-4 unless `locomo.categories` adds 5); a conversation is
stored once per run and each question answered from what the memory system returns. Without
`--memeval-data` the suite runs on a generated sample, which the summary says.
"""

import pytest

from pytest_memeval import Outcome, check


@pytest.mark.memeval("locomo")
def test_locomo(memeval_result: Outcome) -> None:
    check(memeval_result)
