"""Split a session into the units a vector store embeds."""

from __future__ import annotations

from collections.abc import Sequence

from ..types import Message
from .tokens import count_tokens


def chunk_session(session: Sequence[Message], max_tokens: int) -> list[str]:
    """One chunk per message; a message longer than `max_tokens` is cut at line breaks.

    Keeping messages whole keeps each stored memory self-describing (a dated day entry
    stays with its date); a single line longer than the budget becomes its own chunk.
    """
    chunks: list[str] = []
    for message in session:
        text = message.content.strip()
        if not text:
            continue
        if count_tokens(text) <= max_tokens:
            chunks.append(text)
            continue
        chunks.extend(_split_lines(text, max_tokens))
    return chunks


def _split_lines(text: str, max_tokens: int) -> list[str]:
    pieces: list[str] = []
    current: list[str] = []
    used = 0
    for line in text.splitlines():
        size = count_tokens(line)
        if current and used + size > max_tokens:
            pieces.append("\n".join(current))
            current, used = [], 0
        current.append(line)
        used += size
    if current:
        pieces.append("\n".join(current))
    return [piece for piece in pieces if piece.strip()]
