"""An item's gold evidence (`Evidence`): the messages its answer rests on, each with its id."""

from __future__ import annotations

import pytest

from pytest_memeval import Evidence, Message


def test_evidence_keeps_its_messages_and_their_ids() -> None:
    first, second = Message("user", "I moved to Lima.", id="D1:3"), Message("user", "I adopted a cat.", id="D2:1")
    evidence = Evidence([first, second])  # type: ignore[arg-type]  # a list is stored as a tuple
    assert evidence.messages == (first, second)
    assert evidence.ids == {"D1:3", "D2:1"}


def test_evidence_without_messages_or_ids_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one message"):
        Evidence(())
    with pytest.raises(ValueError, match="needs its id"):
        Evidence((Message("user", "no id"),))
