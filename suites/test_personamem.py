"""Personalised answers from a user's long history (PersonaMem, COLM 2025).

One test per released question: the sessions before it are stored, and it is answered, four
options, from what the memory system returns for it and the ongoing session.
"""

import pytest

from pytest_memeval import Outcome, check


@pytest.mark.memeval("personamem")
def test_personamem(memeval_result: Outcome) -> None:
    check(memeval_result)
