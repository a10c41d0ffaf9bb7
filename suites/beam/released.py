"""BEAM's release as shipped (github.com/mohammadtavakoli78/BEAM), read without holding a chat.

    chats/{100K,500K,1M,10M}/N/chat.json            the conversation
    chats/.../N/chat_trunecated.json                 (sic) the conversation the official
                                                     answer generation uses where it exists
    chats/.../N/probing_questions/probing_questions.json

A chat file is a JSON array of batches `{batch_number, turns, time_anchor}`; a turn is a
list of messages `{role, id, content}` (a batch's first user message also has
`time_anchor`, "March-15-2024"; main questions `index` and `question_type`). `id` counts
every message of the conversation from 0; the probing questions' `source_chat_ids` name
them. The 10M conversations' root file combines ten plans: an array of `{"plan-K": [batch,
...]}`, ids already global (the 10M directories' `plan-*/chat.json` are not read).

`batches` streams a chat one batch at a time with ijson, whichever the form, so that a 10M
conversation is never held whole. The probing questions (under 50 kB a file) are read
whole: a dict of the 10 abilities, each a list of questions with `question`, `rubric` and
ability-specific fields; only `rubric` is scored.

Anything malformed is a `DataError` of one line naming the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import ijson

from pytest_memeval.errors import DataError
from pytest_memeval.files.user_files import open_bytes
from pytest_memeval.framework.data_files import read_json

#: in the order of probing_questions.json and of report_results.py's columns
ABILITIES = (
    "abstention",
    "contradiction_resolution",
    "event_ordering",
    "information_extraction",
    "instruction_following",
    "knowledge_update",
    "multi_session_reasoning",
    "preference_following",
    "summarization",
    "temporal_reasoning",
)
SCALES = ("100K", "500K", "1M", "10M")
#: the truncated file first, as answer_generation.py prefers it
CHAT_FILES = ("chat_trunecated.json", "chat.json")
QUESTIONS_FILE = Path("probing_questions") / "probing_questions.json"
#: each ability's reference answer field (instruction and preference following have none)
REFERENCE_FIELDS = ("answer", "ideal_response", "ideal_answer", "ideal_summary")
ROLES = ("user", "assistant")
TIME_ANCHOR = "%B-%d-%Y"
_PLAN = re.compile(r"^item\.plan-\d+\.item$")


@dataclass(frozen=True)
class Question:
    """One probing question: what the judge reads (the rubric), the public question, and
    the message ids it was written from."""

    ability: str
    position: int
    question: str
    rubric: tuple[str, ...]
    difficulty: str
    reference: str
    source_ids: tuple[int, ...]


@dataclass(frozen=True)
class ChatMessage:
    role: str
    id: int
    content: str
    #: the batch's time anchor as an ISO date, on every message of the batch
    date: str | None


def conversation_dirs(root: Path, scale: str) -> list[Path]:
    """The conversation directories of one scale, in answer_generation.py's order (by number)."""
    directory = root / "chats" / scale
    if not directory.is_dir():
        return []
    return sorted((p for p in directory.iterdir() if p.is_dir() and p.name.isdigit()), key=lambda p: int(p.name))


def chat_file(directory: Path) -> Path | None:
    """The chat the official code evaluates: the truncated file where it exists."""
    return next((directory / name for name in CHAT_FILES if (directory / name).is_file()), None)


def read_questions(path: Path) -> tuple[Question, ...]:
    """Every question of a probing_questions.json, ability by ability in file order."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise DataError(f"{path}: not an object of abilities")
    unknown = sorted(set(data) - set(ABILITIES))
    if unknown:
        raise DataError(f"{path}: unknown abilities {unknown} (known: {', '.join(ABILITIES)})")
    out: list[Question] = []
    for ability in ABILITIES:
        questions = data.get(ability, [])
        if not isinstance(questions, list):
            raise DataError(f"{path}: {ability} is not a list of questions")
        out.extend(_question(path, ability, position, raw) for position, raw in enumerate(questions))
    return tuple(out)


def _question(path: Path, ability: str, position: int, raw: Any) -> Question:
    where = f"{path}: {ability}[{position}]"
    if not isinstance(raw, dict):
        raise DataError(f"{where}: not an object")
    question, rubric = raw.get("question"), raw.get("rubric")
    if not isinstance(question, str) or not question.strip():
        raise DataError(f"{where}: no question")
    if not isinstance(rubric, list) or not rubric or not all(isinstance(r, str) for r in rubric):
        raise DataError(f"{where}: rubric is not a non-empty list of strings")
    reference = next((raw[f] for f in REFERENCE_FIELDS if isinstance(raw.get(f), str)), "")
    return Question(
        ability=ability,
        position=position,
        question=question,
        rubric=tuple(rubric),
        difficulty=str(raw.get("difficulty", "")),
        reference=reference,
        source_ids=tuple(sorted(set(_ids(raw.get("source_chat_ids"))))),
    )


def _ids(value: Any) -> Iterator[int]:
    """The message ids of a `source_chat_ids`: a list (of ids or lists of ids), an object of
    such lists, or absent."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, list):
        for entry in value:
            yield from _ids(entry)
    elif isinstance(value, dict):
        for entry in value.values():
            yield from _ids(entry)


def batches(path: Path) -> Iterator[list[ChatMessage]]:
    """The chat's batches in order, each its messages, parsed one batch at a time."""
    try:
        with open_bytes(path) as handle:
            combined = _combined(handle)
            handle.seek(0)
            wanted = _PLAN.match if combined else "item".__eq__
            last = -1
            for position, batch in enumerate(_objects(ijson.parse(handle, use_float=True), wanted)):
                messages = _messages(path, position, batch)
                if messages and messages[0].id <= last:
                    raise DataError(
                        f"{path}: batch {position + 1}: message ids go back ({messages[0].id} after {last})"
                    )
                last = messages[-1].id if messages else last
                yield messages
    except ijson.JSONError as exc:
        raise DataError(f"{path}: malformed JSON ({exc})") from None
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror or exc})") from None


def _combined(handle: Any) -> bool:
    """Whether the chat is the 10M combined form (its first element's key is plan-K)."""
    for prefix, event, value in ijson.parse(handle):
        if prefix == "item" and event == "map_key":
            return isinstance(value, str) and value.startswith("plan-")
        if prefix == "" and event == "end_array":
            break
        if prefix == "" and event not in ("start_array",):
            raise DataError(f"{getattr(handle, 'name', 'chat')}: not a JSON array of batches")
    return False


def _objects(events: Iterator[tuple[str, str, Any]], wanted: Any) -> Iterator[Any]:
    """The values that start with a map at a prefix `wanted` accepts, built one at a time."""
    builder: ijson.ObjectBuilder | None = None
    depth = 0
    for prefix, event, value in events:
        if builder is None:
            if event != "start_map" or not wanted(prefix):
                continue
            builder, depth = ijson.ObjectBuilder(), 0
        builder.event(event, value)
        if event in ("start_map", "start_array"):
            depth += 1
        elif event in ("end_map", "end_array"):
            depth -= 1
            if depth == 0:
                yield builder.value
                builder = None


def _messages(path: Path, position: int, batch: Any) -> list[ChatMessage]:
    where = f"{path}: batch {position + 1}"
    turns = batch.get("turns") if isinstance(batch, dict) else None
    if not isinstance(turns, list):
        raise DataError(f"{where}: no list of turns")
    out: list[ChatMessage] = []
    date: str | None = None
    for t, turn in enumerate(turns):
        if not isinstance(turn, list):
            raise DataError(f"{where}: turn {t + 1} is not a list of messages")
        for raw in turn:
            if not isinstance(raw, dict):
                raise DataError(f"{where}: turn {t + 1} holds a message that is not an object")
            role, message_id, content = raw.get("role"), raw.get("id"), raw.get("content")
            if role not in ROLES or not isinstance(content, str):
                raise DataError(f"{where}: turn {t + 1}: a message needs a role (user, assistant) and a content")
            if isinstance(message_id, bool) or not isinstance(message_id, int):
                raise DataError(f"{where}: turn {t + 1}: a message id is not an integer")
            if out and message_id <= out[-1].id:
                raise DataError(f"{where}: message id {message_id} after {out[-1].id}")
            anchor = raw.get("time_anchor")
            if date is None and isinstance(anchor, str):
                date = iso_date(anchor)
            out.append(ChatMessage(role, message_id, content, None))
    return [ChatMessage(m.role, m.id, m.content, date) for m in out]


def iso_date(anchor: str) -> str | None:
    """BEAM's "March-15-2024" as "2024-03-15"; None when written otherwise."""
    try:
        return datetime.strptime(anchor, TIME_ANCHOR).date().isoformat()
    except ValueError:
        return None


def count_batches(path: Path) -> int:
    """How many batches the chat has (one pass over the file, nothing kept)."""
    return sum(1 for _ in batches(path))
