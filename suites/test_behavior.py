"""Beyond recall: does memory capture how a person interprets? (seed 004)

One test per (subject, held-out question, condition[, memory system]). The condition is
in the item id and its markers (`-m behavior_C4a`, `-m "behavior_C1 or behavior_C3"`);
the `behavior_condition` fixture hands a test the condition its item was served under.
An item passes when the prediction gets at least the direction right (rubric 4 or 5).
"""

import pytest
from pytest_memeval.suites.behavior import CONDITIONS, Condition

from pytest_memeval import Outcome, check


@pytest.fixture
def behavior_condition(memeval_result: Outcome) -> Condition:
    """What this item's response model was served (C5 nothing ... C3_native retrieval + spec)."""
    return CONDITIONS[memeval_result.item.strata["condition"]]


@pytest.mark.memeval("behavior")
def test_behavior(memeval_result: Outcome, behavior_condition: Condition) -> None:
    check(memeval_result, note=f"[{behavior_condition.key}: {behavior_condition.title}]")
