"""The cache key of one exchange through the gateway: an OpenAI-compatible request body as a
memory system's own client sent it, and the response it got.

The key is the SHA-256 of a canonical form of everything that determines the answer: the
route (chat/completions, completions, embeddings), the whole body (model, messages, tools,
tool_choice, response_format, temperature, max_tokens, ...) and the item's repeat. Left
out, because they say how the answer travels and not what it says: `stream` and
`stream_options` (the gateway always asks the endpoint for the whole answer and streams
it itself when a client asked for a stream).

Two things in a memory system's prompts change from run to run without changing what is
asked, and would make every replay a miss; the canonical form masks them:

- The time of the call. mem0 writes today's date into its extraction prompt, Letta the
  current date and the time its memory was last edited, A-MEM the minute a note was
  written, graphiti the time of an episode without a timestamp. A date or time whose
  calendar day lies within `NOW_DAYS` of the day the key is made becomes `<now>`; dates
  from the benchmark's data (other days) stay as they are.
- Identifiers the system draws at random (UUIDs, with or without dashes, cut short, or
  elided in the middle where a validation error quotes one):
  LangMem shows its LLM the keys of existing memories, Letta its agent's id and the ids of
  the tool calls it makes up. Each distinct identifier
  becomes `<id-N>`, numbered by first appearance, so two requests that differ only in
  which random ids they carry have one key. A list of such identifiers (comma-separated,
  quoted or not) has its placeholders in order of their numbers: LangMem's extractor
  (trustcall) lists the memories its LLM may remove sorted by their random ids, so their
  order changes from run to run while the memories shown above it do not. A replayed
  response gets the current run's identifiers back (`restore_ids`), so a model that
  answered "update memory <id>" names the memory as this run knows it.

One more, Letta's: its agent lists its memory blocks (`<memory_blocks>`: `<human>`,
`<persona>`, ...) in the system prompt in an order it does not fix from one agent to the
next; the key sorts them by name.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from datetime import UTC, date, datetime
from typing import Any

#: bump when the canonical form changes (old recordings then miss, never answer wrongly)
EXCHANGE_FORMAT = 1
#: request fields about how the answer travels, not what it says
TRANSPORT_FIELDS = ("stream", "stream_options")
#: dates this many days from the day a key is made count as the time of the call
NOW_DAYS = 2
NOW = "<now>"

_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_TIMESTAMP = re.compile(
    r"(?P<iso>(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})"
    r"(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s?[AaPp][Mm])?(?:\s?(?:Z|[A-Z]{2,5})?(?:[+-]\d{2}:?\d{2})?)?)?)"
    rf"|(?P<named>(?P<month>{_MONTHS}) (?P<day>\d{{1,2}}), (?P<year>\d{{4}}))"
    r"|(?<!\d)(?P<compact>(?P<cy>20\d{2})(?P<cm>\d{2})(?P<cd>\d{2})\d{4})(?!\d)"
)
#: a UUID, also cut short in its last group (Letta's tool-call ids), or its 32 hex digits, or
#: one elided in the middle as pydantic's validation errors print a long input
#: (`932b44c8-8df8-...-b2bf-43f6843421c4`)
_ID = re.compile(
    r"(?<![0-9A-Fa-f])(?:"
    r"[0-9a-fA-F]{4,}(?:-[0-9a-fA-F]{1,12})*-?\.\.\.-?(?:[0-9a-fA-F]{1,12}-)*[0-9a-fA-F]{4,}"
    r"|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{1,12}|[0-9a-f]{32})"
    r"(?![0-9A-Fa-f])"
)
#: two or more renamed identifiers in a list: `<id-3>, <id-1>`, `'<id-3>', '<id-1>'` (also JSON-escaped quotes)
_ID_LIST = re.compile(r"<id-\d+>(?:\\?['\"]?\s*,\s*\\?['\"]?<id-\d+>)+")
_PLACEHOLDER = re.compile(r"<id-(\d+)>")


#: Letta's memory blocks in its system prompt, and one block (newlines as JSON text has them)
_MEMORY_BLOCKS = re.compile(r"<memory_blocks>(?P<inner>.*?)</memory_blocks>", re.S)
_MEMORY_BLOCK = re.compile(r"<(?P<name>[A-Za-z_][\w-]*)>(?:\\n|\n)<description>.*?</(?P=name)>", re.S)


#: an endpoint's refusal of a request longer than the model's context: OpenAI's and
#: llama-cpp-python's wording and code, llama.cpp's server's
_CONTEXT_OVERFLOW = re.compile(r"maximum context length|context_length_exceeded|exceeds the available context size")


def is_recorded_answer(status: int, body: bytes) -> bool:
    """Whether an endpoint's answer is recorded: a 200, or a 400 refusing a request longer
    than the model's context, which depends on the request and the model alone (a system
    whose prompt outgrows a small model then replays to the same error). Other errors
    (rate limits, outages, a refused form the gateway sends again) are not answers."""
    return status == 200 or (status == 400 and _CONTEXT_OVERFLOW.search(body.decode(errors="replace")) is not None)


def with_status(request_text: str, status: int) -> str:
    """The stored request of an exchange answered with `status` (not 200): replay answers
    with it (`recorded_status`). It is not part of the key."""
    return json.dumps({**json.loads(request_text), "status": status}, sort_keys=True, ensure_ascii=False)


def recorded_status(request_text: str) -> int:
    if '"status"' not in request_text:  # nearly every row: not parsed again on each hit
        return 200
    status = json.loads(request_text).get("status", 200)
    return status if isinstance(status, int) else 200


def exchange_key(route: str, body: Mapping[str, Any], repeat: int = 0, today: date | None = None) -> str:
    """The key of `body` sent to `route`; `today` is the day of the call (default: now)."""
    text = json.dumps(canonical(route, body, repeat), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    masked, _ = rename_ids(mask_now(sort_memory_blocks(text), today))
    return hashlib.sha256(masked.encode()).hexdigest()


def canonical(route: str, body: Mapping[str, Any], repeat: int = 0) -> dict[str, Any]:
    """What is stored beside the answer (verbatim: masking happens only in the key)."""
    data: dict[str, Any] = {
        "format": EXCHANGE_FORMAT,
        "kind": "exchange",
        "route": route,
        "body": {name: value for name, value in body.items() if name not in TRANSPORT_FIELDS},
    }
    if repeat:
        data["repeat"] = repeat
    return data


def mask_now(text: str, today: date | None = None) -> str:
    """`text` with every date or time within NOW_DAYS of `today` replaced by `<now>`."""
    day = today or datetime.now(UTC).date()

    def replace(match: re.Match[str]) -> str:
        found = _day_of(match)
        return NOW if found is not None and abs((found - day).days) <= NOW_DAYS else match.group(0)

    return _TIMESTAMP.sub(replace, text)


def sort_memory_blocks(text: str) -> str:
    """`text` with the blocks of each `<memory_blocks>` section in the order of their names."""

    def sort(section: re.Match[str]) -> str:
        inner = section.group("inner")
        blocks = sorted(_MEMORY_BLOCK.finditer(inner), key=lambda block: block.group("name"))
        in_order = iter(block.group(0) for block in blocks)
        return "<memory_blocks>" + _MEMORY_BLOCK.sub(lambda _: next(in_order), inner) + "</memory_blocks>"

    return _MEMORY_BLOCKS.sub(sort, text)


def rename_ids(text: str) -> tuple[str, list[str]]:
    """`text` with each distinct random identifier replaced by `<id-N>` (first appearance
    first), and the identifiers in that order."""
    order: dict[str, int] = {}

    def replace(match: re.Match[str]) -> str:
        number = order.setdefault(match.group(0), len(order) + 1)
        return f"<id-{number}>"

    return _sort_id_lists(_ID.sub(replace, text)), list(order)


def _sort_id_lists(text: str) -> str:
    """`text` with the placeholders of each list of identifiers in order of their numbers."""

    def sort(found: re.Match[str]) -> str:
        numbers = iter(sorted(int(number) for number in _PLACEHOLDER.findall(found.group(0))))
        return _PLACEHOLDER.sub(lambda _: f"<id-{next(numbers)}>", found.group(0))

    return _ID_LIST.sub(sort, text)


def restore_ids(response: str, recorded_request: str, current_request: str) -> str:
    """The recorded `response` with the identifiers of the recorded request replaced by
    those in the same places of the current one (their keys are equal, so they pair up)."""
    _, recorded = rename_ids(recorded_request)
    _, current = rename_ids(current_request)
    mapping = {old: new for old, new in zip(recorded, current, strict=False) if old != new}
    if not mapping:
        return response
    return _ID.sub(lambda match: mapping.get(match.group(0), match.group(0)), response)


def _day_of(match: re.Match[str]) -> date | None:
    try:
        if match.group("iso"):
            return date(int(match.group("y")), int(match.group("m")), int(match.group("d")))
        if match.group("named"):
            month = _MONTHS.split("|").index(match.group("month")) + 1
            return date(int(match.group("year")), month, int(match.group("day")))
        return date(int(match.group("cy")), int(match.group("cm")), int(match.group("cd")))
    except ValueError:  # not a calendar day (2024-13-45): data, not a time
        return None
