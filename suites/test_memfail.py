"""MemFail: attribute each failure to summarization, storage, retrieval or reasoning (Garg et al.).

One test per graded question; each dataset fills one shared store per memory system, as in
the paper. A failing test names the stage that failed.
"""

import pytest

from pytest_memeval import Outcome, check


@pytest.mark.memeval("memfail")
def test_memfail(memeval_result: Outcome) -> None:
    check(memeval_result)
