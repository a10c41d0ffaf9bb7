"""When a suite's offline reader cannot read what a memory system returned, it says so.

The offline readers parse the suites' own wordings. A memory system that rewrites what it
stores (extracted facts, notes, graph edges) returns text they recognise nothing in, and
their abstentions would otherwise score as the system's failures. Each reader marks such an
item's answer (`Answer.memory_unreadable`: memories came back, none was recognised);
`count_unreadable` counts the marks of a run and `unreadable_note` words the run's note,
which a gate on that run reports as its failure.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from ..results.records import Record
from ..types import Answer, Memory


def is_unreadable(memories: Sequence[Memory], recognised: int) -> bool:
    """Memories with text came back and the reader recognised nothing in them."""
    return recognised == 0 and any(m.text.strip() for m in memories)


def marked(answer: Answer, memories: Sequence[Memory], recognised: int) -> Answer:
    """`answer`, marked `memory_unreadable` when the memories were unreadable."""
    return replace(answer, memory_unreadable=True) if is_unreadable(memories, recognised) else answer


def count_unreadable(records: Iterable[Record]) -> tuple[int, int]:
    """(items marked unreadable, items scored) over one run's records."""
    scored = [r for r in records if r.is_scored]
    return sum(r.memory_unreadable for r in scored), len(scored)


def unreadable_note(memsystem: str, marked: int, answered: int) -> str | None:
    """The run's note (and a gate's failure message), or None when every memory was read."""
    if marked == 0:
        return None
    return (
        f"the offline reader cannot read {memsystem}'s memories ({marked} of {answered} items); use an LLM "
        "responder, or see what the conformance kit advises (pytest --pyargs pytest_memeval.testing)"
    )
