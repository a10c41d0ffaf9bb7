"""Keeping a secret (the API key) out of everything a server sends back.

A server may echo the key, whole or in part, in any field: an error body, the content,
the model name, or spread over the log-probability tokens of a completion so that no one
token holds it but their concatenation does. `redact` replaces every stretch of a text
that holds a piece of the secret of `MIN_REDACTED` or more characters; `redact_joined`
does so on the concatenation of a sequence of texts (tokens) and gives back the sequence
with the same boundaries, so that joining the result gives the redacted join.

Every place that stores or shows text from a server passes it through these (see
`Secret.scrub` in llm/settings.py, `Completion.scrubbed` in llm/calls.py).
"""

from __future__ import annotations

from collections.abc import Sequence

#: pieces of the secret shorter than this are not redacted (nor secrets shorter than this,
#: e.g. vLLM's placeholder "EMPTY")
MIN_REDACTED = 8
REDACTED = "<redacted>"


def redact(text: str, secret: str) -> str:
    """`text` with every stretch that holds MIN_REDACTED or more characters of `secret`
    in a row replaced by one REDACTED."""
    spans = _secret_spans(text, secret)
    if not spans:
        return text
    parts, position = [], 0
    for start, end in spans:
        parts += [text[position:start], REDACTED]
        position = end
    parts.append(text[position:])
    return "".join(parts)


def redact_joined(parts: Sequence[str], secret: str) -> tuple[str, ...]:
    """`parts` redacted as one text: a stretch of the secret that crosses part boundaries
    is removed from every part it touches, and REDACTED stands in the part where it began.
    ``"".join(redact_joined(parts, s)) == redact("".join(parts), s)``."""
    joined = "".join(parts)
    spans = _secret_spans(joined, secret)
    if not spans:
        return tuple(parts)
    out, offset = [], 0
    for part in parts:
        start, end = offset, offset + len(part)
        kept = []
        for position in range(start, end):
            span = _span_at(spans, position)
            if span is None:
                kept.append(joined[position])
            elif position == span[0]:
                kept.append(REDACTED)
        out.append("".join(kept))
        offset = end
    return tuple(out)


def _span_at(spans: list[tuple[int, int]], position: int) -> tuple[int, int] | None:
    for span in spans:
        if span[0] <= position < span[1]:
            return span
    return None


def _secret_spans(text: str, secret: str) -> list[tuple[int, int]]:
    """The merged [start, end) stretches of `text` covered by a MIN_REDACTED-character
    piece of `secret` (every longer piece is covered by its MIN_REDACTED-character windows)."""
    if len(secret) < MIN_REDACTED or len(text) < MIN_REDACTED:
        return []
    pieces = {secret[i : i + MIN_REDACTED] for i in range(len(secret) - MIN_REDACTED + 1)}
    starts: set[int] = set()
    for piece in pieces:
        found = text.find(piece)
        while found != -1:
            starts.add(found)
            found = text.find(piece, found + 1)
    spans: list[tuple[int, int]] = []
    for start in sorted(starts):
        end = start + MIN_REDACTED
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], end))
        else:
            spans.append((start, end))
    return spans
