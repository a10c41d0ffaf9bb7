"""What the offline readers read of a memory: the text of the messages it was made from.

The readers parse the suites' own wordings, some of them anchored at the start of a line
(knowme's "2011-03-14 09:30:00 | place" header, locomo's "date | speaker: text" turn,
longmemeval's "[date] user: " stamp). An adapter that stores a message as
`f"[{m.timestamp}] {m.role}: {m.content}"` or `f"{m.role}: {m.content}"` adds a prefix of
its own before them, and one that writes memories in a form of its own (JSON, a template)
can declare the messages' own text in `Memory.verbatim`. So a reader reads
`stored_text(memory)`, the declared text where there is one, and the anchored readers
read `message_text(memory)`, that text with each line's message prefixes set aside.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..types import Memory

_ROLE = r"(?i:user|assistant|system)[ \t]*:[ \t]*"
#: one message prefix at the start of a line: a bracketed stamp, a role, or a stamp and a
#: role; a stamp without brackets (an ISO time, None) only before a role
_PREFIX = re.compile(
    r"(?:\[(?P<stamp>[^\]\n]{1,64})\][ \t]*(?:" + _ROLE + r")?"
    r"|(?P<bare>None|\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?)[ \t]+"
    + _ROLE
    + r"|"
    + _ROLE
    + r")"
)


def stored_text(memory: Memory) -> str:
    """The messages' own text the adapter declares (`Memory.verbatim`), else `Memory.text`."""
    return memory.verbatim if memory.verbatim is not None else memory.text


def stored_texts(memories: Iterable[Memory]) -> list[str]:
    return [stored_text(memory) for memory in memories]


def split_prefixes(line: str) -> tuple[tuple[str, ...], str]:
    """(the stamps of the message prefixes at the start of `line`, outermost first; the
    rest of the line). `[2023-05-30T23:40:00] user: [2023/05/30 (Tue) 23:40] user: Hi`
    gives the two stamps and `Hi`."""
    stamps: list[str] = []
    position = 0
    while found := _PREFIX.match(line, position):
        if found.end() == position:
            break
        stamp = found.group("stamp") or found.group("bare")
        if stamp is not None:
            stamps.append(stamp)
        position = found.end()
    return tuple(stamps), line[position:]


def message_text(memory: Memory) -> str:
    """`stored_text(memory)` with every line's message prefixes set aside."""
    text = stored_text(memory)
    if "[" not in text and ":" not in text:
        return text
    return "\n".join(split_prefixes(line)[1] for line in text.split("\n"))


def message_texts(memories: Iterable[Memory]) -> list[str]:
    return [message_text(memory) for memory in memories]
