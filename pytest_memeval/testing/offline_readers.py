"""What the bundled suites' offline readers can read of an adapter's memories.

A probe is a question of one suite with the messages that answer it, written as that suite
writes them (knowme's rendered unit, longmemeval's dated turns, locomo's turn). The kit
stores them, retrieves with the question, and asks the suite's own offline reader: a
reader that answers right has read the adapter's memories. One that does not is told
apart by what came back: the message's lines, written otherwise (a template, JSON), can be
made readable by the adapter; no line of it, the memory system rewrote the message
(extracted facts, notes) and is measured with an LLM responder instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..framework.memory_text import message_texts
from ..protocols import MemorySystem, ResponseModel
from ..suites.knowme.reader import KnowmeReader
from ..suites.knowme.stream import Unit, render
from ..suites.locomo.reader import LocomoReader
from ..suites.longmemeval.catalog import dated_text
from ..suites.longmemeval.reader import LongMemEvalReader
from ..suites.longmemeval.sample import happened
from ..types import Answer, ItemView, Memory, Message

#: what the kit tells an adapter whose memories the readers cannot read
ADVICE = (
    "keep each message's text in Memory.text as it was ingested, each line beginning as it did "
    '(the readers read past a "[timestamp] role: " prefix, nothing else), or return it as well in '
    "Memory.verbatim; a system that rewrites what it stores declares rewrites_messages = True and is "
    "measured with an LLM responder (docs/adapters.md, 'What the offline readers read')"
)
REWRITES = (
    "the memories hold no line of the messages as written (the system rewrites what it stores: "
    "facts, notes, a graph), so the suites' offline readers cannot read them; measure it with an LLM "
    "responder (--memeval-responder=openai:MODEL), and declare rewrites_messages = True to say so"
)
DECLARED_REWRITES = (
    "declares rewrites_messages = True: the suites' offline readers cannot read what it stores; "
    "measure it with an LLM responder (--memeval-responder=openai:MODEL)"
)


@dataclass(frozen=True)
class Probe:
    suite: str
    messages: tuple[Message, ...]
    view: ItemView
    #: whether the reader's answer is the right one
    right: Callable[[Answer], bool]
    reader: Callable[[], ResponseModel]

    @property
    def query(self) -> str:
        return self.view.question

    def reads(self, memories: Sequence[Memory]) -> bool:
        return self.right(self.reader().answer(self.view, memories))

    def lines_kept(self, memories: Sequence[Memory]) -> bool:
        """Whether every line of the probe's messages is somewhere in what came back (in the
        readers' view of it, or in the memory's text, escaped or not)."""
        kept = "\n".join([*message_texts(memories), *(m.text for m in memories)])
        kept += "\n" + kept.replace("\\n", "\n").replace('\\"', '"')
        return all(line in kept for message in self.messages for line in message.content.splitlines())


def probes(code: str) -> tuple[Probe, ...]:
    """One probe per suite whose reader anchors what it reads at the start of a line;
    `code` (letters only) makes its messages unique to the run."""
    unit = Unit(0, "2011-03-14 09:30:00", f"the {code} pier", action=f"I buy {code} bread for Ada.")
    first, second = ("2023/05/01 (Mon) 10:00", "2023-05-01T10:00:00"), ("2023/05/11 (Thu) 10:00", "2023-05-11T10:00:00")
    return (
        Probe(
            "knowme",
            (Message("user", render(unit), timestamp=unit.timestamp),),
            ItemView("knowme", "open", f"What did I buy at the {code} pier?"),
            lambda answer: f"I buy {code} bread for Ada." in (answer.label or ""),
            KnowmeReader,
        ),
        Probe(
            "longmemeval",
            (
                Message("user", dated_text(first[0], "user", happened(f"visited the {code} gallery")), first[1]),
                Message("user", dated_text(second[0], "user", happened(f"finished the {code} puzzle")), second[1]),
            ),
            ItemView(
                "longmemeval",
                "temporal-reasoning",
                f"How many days passed between the day I visited the {code} gallery and the day I finished "
                f"the {code} puzzle?",
            ),
            lambda answer: answer.label == "10 days",
            LongMemEvalReader,
        ),
        Probe(
            "locomo",
            (Message("user", f"8 May, 2023 | Caroline: I went to the {code} museum yesterday.", "8 May, 2023"),),
            ItemView("locomo", "2", f"When did Caroline go to the {code} museum?"),
            lambda answer: answer.label == "7 May 2023",
            LocomoReader,
        ),
    )


@dataclass(frozen=True)
class Reading:
    """What the offline readers made of an adapter's memories: `problem` is None when every
    probe was answered right, else what to say; `rewrites` when no probe's message came
    back in any form (nothing for the adapter to change)."""

    problem: str | None
    rewrites: bool = False


def offline_reading(
    system: MemorySystem, namespace: str, code: str, retrieve: Callable[[str], Sequence[Memory]]
) -> Reading:
    """Store every probe's messages in `namespace` of `system`, then ask each suite's reader
    what `retrieve(question)` returns for its probe."""
    asked = probes(code)
    for message in (message for probe in asked for message in probe.messages):
        system.ingest(namespace, (message,))  # each a session: a day of longmemeval, a knowme unit
    returned = [(probe, retrieve(probe.query)) for probe in asked]
    failed = [(probe, memories) for probe, memories in returned if not probe.reads(memories)]
    if not failed:
        return Reading(None)
    if not any(probe.lines_kept(memories) for probe, memories in failed):
        return Reading(REWRITES, rewrites=True)
    suites = ", ".join(probe.suite for probe, _ in failed)
    probe, memories = failed[0]
    shown = memories[0].text if memories else "nothing"
    return Reading(
        f"the offline readers of {suites} cannot read this adapter's memories: it stored "
        f"{probe.messages[0].content!r:.120} and returned {shown!r:.160}; {ADVICE}"
    )
