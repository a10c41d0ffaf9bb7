"""mem0 with infer=True: facts extracted by a real small model (SmolLM2-135M behind llama.cpp's
server), with the compact extraction prompt and its schema; reset, ingest, retrieve and
dump all work, and the adapter says how many memories each session produced."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from live import LIVE, SMOLLM

from pytest_memeval.types import Message

pytestmark = [*LIVE, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

SESSIONS = (
    [
        Message(
            "user",
            "My name is Dana Whitfield. I moved to Lisbon in March 2024 and I work as a nurse at the city hospital.",
        ),
        Message("assistant", "Nice to meet you, Dana! How do you like Lisbon?"),
    ],
    [
        Message(
            "user", "I swim at the municipal pool every Tuesday at 7 am, and my sister Ines visits me each December."
        ),
        Message("assistant", "A good routine."),
    ],
)


def test_mem0_extracts_facts_through_a_local_model(local_models, tmp_path: Path) -> None:
    if importlib.util.find_spec("mem0") is None:  # not imported here: the adapter turns telemetry off first
        pytest.skip('the [mem0] extra is not installed (pip install "pytest-memeval[mem0]")')
    from pytest_memeval.memory.mem0 import Mem0Memory

    memory = Mem0Memory(
        path=tmp_path / "mem0",
        llm_model=SMOLLM,
        llm_base_url=local_models.base_url,
        llm_timeout=300.0,
        llm_max_retries=0,
        llm_max_tokens=256,
        extraction_prompt="compact",
        extraction_schema=True,
    )
    try:
        assert memory.infer
        memory.reset("dana")
        for session in SESSIONS:
            memory.ingest("dana", session)
        memory.reset("other")
        memory.ingest("other", [Message("user", "I am Olek and I collect vintage radios from the 1950s.")])

        stats = memory.ingest_stats("dana")
        added = stats["added_per_session"]
        assert stats["infer"] is True and len(added) == 2
        stored = memory.dump("dana")
        assert stored is not None and len(stored) == sum(added) >= 1, (stats, stored)
        assert all(m.text.strip() for m in stored)  # extracted sentences, not the raw turns
        assert [m.text for m in stored] != [t.content for s in SESSIONS for t in s]

        found = memory.retrieve("dana", "Where does Dana work?", 3)
        assert found and {m.id for m in found} <= {m.id for m in stored}
        theirs = {m.id for m in memory.dump("other") or []}
        assert not theirs & {m.id for m in memory.retrieve("dana", "vintage radios", 10)}  # namespaces stay apart

        memory.reset("dana")
        assert memory.dump("dana") == [] and memory.ingest_stats("dana")["added_per_session"] == []
    finally:
        memory.close()
