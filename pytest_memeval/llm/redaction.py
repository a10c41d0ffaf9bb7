"""Keeping a secret (the API key) out of everything a server sends back.

A server may echo the key, whole or in part, in any field: an error body, the content,
the model name, or spread over the log-probability tokens of a completion so that no one
token holds it but their concatenation does. `redact` replaces every stretch of a text
that holds a piece of the secret of `MIN_REDACTED` or more characters; `redact_joined`
does so on the concatenation of a sequence of texts (tokens) and gives back the sequence
with the same boundaries, so that joining the result gives the redacted join.

A body a server sends (JSON, or server-sent events of JSON chunks) says more than its raw
text shows: a string may spell the key in escapes (`"\\u0073\\u006b\\u002d..."`), which a
client decodes into the key, a log-probability token spells it again in its `bytes`, and a
stream may split it over the deltas of several events, which a client joins. `redact_body`
redacts the texts a body decodes to, those at one path joined in the order they come (the
path is the keys that lead to a text, list positions aside: every event's
`choices.delta.content`, every `logprobs.content.token`, each a text a client may join); a
text that held a piece is written again, the rest of the body is left byte for byte. Texts
at different paths are not joined: a piece that ends one field and a piece that begins the
next are no text any client reads as one.

Every place that stores or shows text from a server passes it through these (see
`Secret.scrub` and `Secret.scrub_body` in llm/secret.py, `Completion.scrubbed` in
llm/calls.py; the gateway scrubs every body it returns or records).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Final

#: pieces of the secret shorter than this are not redacted (nor secrets shorter than this,
#: e.g. vLLM's placeholder "EMPTY")
MIN_REDACTED = 8
REDACTED = "<redacted>"
#: a JSON string, a list of small integers (a token's bytes), or a character of JSON structure
_JSON_TOKEN: Final = re.compile(r'"(?:[^"\\]|\\.)*"|\[\s*\d{1,3}(?:\s*,\s*\d{1,3})*\s*\]|[{}\[\]:]')


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


def redact_body(text: str, secret: str) -> str:
    """A server's body (JSON, server-sent events, or any text) with every stretch of
    MIN_REDACTED or more characters of `secret` redacted in what it decodes to (see the
    module's docstring), and in its raw text."""
    if len(secret) < MIN_REDACTED:
        return text
    texts = _decoded_texts(text)
    redacted = [decoded for _, decoded, _ in texts]
    groups: dict[tuple[str, ...], list[int]] = {}
    for position, (_, _, path) in enumerate(texts):
        groups.setdefault(path, []).append(position)
    joins = "\0".join("".join(redacted[p] for p in positions) for positions in groups.values())
    if not _secret_spans(joins, secret):  # one search for the common case: nothing to redact
        return redact(text, secret)
    for positions in groups.values():
        for position, clean in zip(positions, redact_joined([redacted[p] for p in positions], secret), strict=True):
            redacted[position] = clean
    parts, end = [], 0
    for (match, decoded, path), clean in zip(texts, redacted, strict=True):
        if clean != decoded:
            spelled = list(clean.encode("utf-8", "surrogateescape")) if path[-1:] == ("bytes",) else clean
            parts += [text[end : match.start()], json.dumps(spelled)]  # escaped: a lone surrogate too
            end = match.end()
    parts.append(text[end:])
    return redact("".join(parts), secret)


def _decoded_texts(text: str) -> list[tuple[re.Match[str], str, tuple[str, ...]]]:
    """Each text a JSON document of `text` (or each of several, as a stream's events) spells:
    its strings, and the UTF-8 of a token's `bytes`; with its match in `text` and its path
    (the keys of the objects around it, its own key last; ("", key) for a key itself)."""
    found: list[tuple[re.Match[str], str, tuple[str, ...]]] = []
    keys: list[str | None] = []  # per open container: an object's current key, None for a list
    path: tuple[str, ...] = ()
    matches = list(_JSON_TOKEN.finditer(text))
    for index, match in enumerate(matches):
        token = match.group()
        if token[0] == '"':
            decoded = _decoded(token)
            if index + 1 < len(matches) and matches[index + 1].group() == ":" and keys and keys[-1] is not None:
                keys[-1] = decoded
                path = _path(keys)
                found.append((match, decoded, ("", decoded)))
            else:
                found.append((match, decoded, path))
        elif len(token) > 1:  # a list of small integers: a token's bytes when its key says so
            values = [int(number) for number in token[1:-1].split(",")]
            if path[-1:] == ("bytes",) and max(values) < 256:
                found.append((match, bytes(values).decode("utf-8", "surrogateescape"), path))
        elif token in "{[":
            keys.append("" if token == "{" else None)
            path = _path(keys)
        elif token in "}]" and keys:
            keys.pop()
            path = _path(keys)
    return found


def _path(keys: list[str | None]) -> tuple[str, ...]:
    return tuple(key for key in keys if key is not None)


def _decoded(token: str) -> str:
    if "\\" not in token:  # nothing escaped: the text between the quotes
        return token[1:-1]
    try:
        value = json.loads(token)
    except ValueError:  # not a JSON string after all (a quotation in plain text)
        return token[1:-1]
    return value if isinstance(value, str) else token[1:-1]


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
