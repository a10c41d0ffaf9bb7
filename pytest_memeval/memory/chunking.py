"""Split a session into the units a vector store embeds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..types import Message
from .tokens import count_tokens


@dataclass(frozen=True)
class Chunk:
    """One unit to embed, and the id of the message it was cut from (None when unnamed)."""

    text: str
    source: str | None


def chunk_messages(session: Sequence[Message], max_tokens: int) -> list[Chunk]:
    """One chunk per message; a message longer than `max_tokens` is cut at line breaks.

    Keeping messages whole keeps each stored memory self-describing (a dated day entry
    stays with its date); a single line longer than the budget becomes its own chunk.
    """
    chunks: list[Chunk] = []
    for message in session:
        text = message.content.strip()
        if not text:
            continue
        pieces = [text] if count_tokens(text) <= max_tokens else _split_lines(text, max_tokens)
        chunks.extend(Chunk(piece, message.id) for piece in pieces)
    return chunks


def chunk_session(session: Sequence[Message], max_tokens: int) -> list[str]:
    """The texts of `chunk_messages`, for stores that keep no provenance."""
    return [chunk.text for chunk in chunk_messages(session, max_tokens)]


def split_at_spaces(text: str, max_tokens: int) -> list[str]:
    """`text` whole when it fits `max_tokens`, else cut at spaces (for a chunk that is one
    very long line, where a store rejects long texts)."""
    return [text] if count_tokens(text) <= max_tokens else _pack(text.split(" "), " ", max_tokens)


def _split_lines(text: str, max_tokens: int) -> list[str]:
    return _pack(text.splitlines(), "\n", max_tokens)


def _pack(parts: Sequence[str], separator: str, max_tokens: int) -> list[str]:
    """`parts` joined greedily into pieces of at most `max_tokens` (a part over the budget
    alone is a piece of its own); blank pieces left out."""
    pieces: list[str] = []
    current: list[str] = []
    used = 0
    for part in parts:
        size = count_tokens(part)
        if current and used + size > max_tokens:
            pieces.append(separator.join(current))
            current, used = [], 0
        current.append(part)
        used += size
    if current:
        pieces.append(separator.join(current))
    return [piece for piece in pieces if piece.strip()]
