"""Reading HaluMem's released files: one user per JSON line, as MemTensor/HaluMem ships them.

`HaluMem-Medium.jsonl` and `HaluMem-Long.jsonl` (the official scripts name them with a lower-case
`medium`/`long`; both spellings are read): per user `uuid`, `persona_info` and `sessions`, each
session with its `dialogue` (`role`, `content`, `timestamp`, `dialogue_turn`), its gold
`memory_points` and, on about two sessions in three, its `questions`. The Long file adds filler
sessions (`is_generated_qa_session`), which the protocol stores and never scores.

Quirks of the release kept as they are: `is_update` is the string "True" or "False";
`importance` may be missing on interference points; a session without questions has no
`questions` key at all. A scan keeps what the index needs (no dialogue text) and where each
user's line starts, so that a user's sessions are parsed again only when that user runs.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_memeval.errors import DataError
from pytest_memeval.files import json_input
from pytest_memeval.files.user_files import open_bytes

#: the question types of the release (config.json, stage 6), in the paper's order
QUESTION_TYPES = (
    "Basic Fact Recall",
    "Multi-hop Inference",
    "Dynamic Update",
    "Memory Boundary",
    "Generalization & Application",
    "Memory Conflict",
)
MEMORY_TYPES = ("Persona Memory", "Event Memory", "Relationship Memory")
INTERFERENCE = "interference"
#: how the official scripts read the user's name (eval_memzero.py's extract_user_name)
NAME = re.compile(r"Name:\s*(.*?); Gender:")


@dataclass(frozen=True)
class Turn:
    role: str
    content: str
    timestamp: str


@dataclass(frozen=True)
class MemoryPoint:
    content: str
    memory_type: str
    source: str
    #: the release's string, "True" or "False" (kept as a string: the official rules compare it)
    is_update: str
    original: tuple[str, ...]
    importance: float | None

    @property
    def interference(self) -> bool:
        return self.source == INTERFERENCE

    @property
    def probed(self) -> bool:
        """Whether the protocol probes it after its session (eval_memzero.py: every point
        but those with is_update "False" or no original memories)."""
        return self.is_update != "False" and bool(self.original)


@dataclass(frozen=True)
class Question:
    question: str
    answer: str
    evidence: tuple[str, ...]
    difficulty: str
    question_type: str


@dataclass(frozen=True)
class Session:
    start_time: str
    generated: bool
    dialogue: tuple[Turn, ...]
    points: tuple[MemoryPoint, ...]
    #: None where the session has no `questions` key (the release omits it)
    questions: tuple[Question, ...] | None


@dataclass(frozen=True)
class UserEntry:
    """A user as the index sees it: sessions without their dialogue, and the user's line."""

    uuid: str
    name: str
    offset: int
    sessions: tuple[Session, ...]


@dataclass(frozen=True)
class ReleasedFile:
    path: Path
    sha256: str
    users: tuple[UserEntry, ...]


def scan(path: Path) -> ReleasedFile:
    """Every user of the file with its sessions' gold (dialogues left out); a DataError of one
    line naming the file and the line when anything is not in the release's format."""
    digest = hashlib.sha256()
    users = []
    try:
        with open_bytes(path) as handle:
            offset = 0
            for number, raw in enumerate(handle, 1):
                digest.update(raw)
                if raw.strip():
                    data = _line(path, number, raw)
                    users.append(_user(data, offset, f"{path.name}:{number}", with_dialogue=False))
                offset += len(raw)
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror})") from None
    if not users:
        raise DataError(f"{path}: no users (expected one JSON object per line)")
    uuids = [u.uuid for u in users]
    if len(set(uuids)) != len(uuids):
        raise DataError(f"{path}: a uuid appears on two lines")
    return ReleasedFile(path, digest.hexdigest(), tuple(users))


def user_sessions(path: Path, user: UserEntry) -> tuple[Session, ...]:
    """The user's sessions with their dialogues, read again from the user's line."""
    try:
        with open_bytes(path) as handle:
            handle.seek(user.offset)
            raw = handle.readline()
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror})") from None
    where = f"{path.name}: user {user.uuid}"
    data = _line(path, 0, raw)
    if data.get("uuid") != user.uuid:
        raise DataError(f"{where}: the file changed since it was indexed")
    return _user(data, user.offset, where, with_dialogue=True).sessions


def _line(path: Path, number: int, raw: bytes) -> dict[str, Any]:
    where = f"{path.name}:{number}" if number else path.name
    try:
        data = json_input.loads(raw.decode("utf-8"), constants=True)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataError(f"{where}: not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise DataError(f"{where}: a user is a JSON object")
    return data


def _user(data: Mapping[str, Any], offset: int, where: str, *, with_dialogue: bool) -> UserEntry:
    uuid = _text(data, "uuid", where)
    persona = _text(data, "persona_info", where)
    found = NAME.search(persona)
    if found is None:
        raise DataError(f"{where}: persona_info has no 'Name: ...; Gender:' (the official scripts read the name so)")
    sessions = data.get("sessions")
    if not isinstance(sessions, list) or not sessions:
        raise DataError(f"{where}: sessions must be a non-empty list")
    parsed = tuple(_session(s, f"{where}: session {position}", with_dialogue) for position, s in enumerate(sessions))
    return UserEntry(uuid, found.group(1), offset, parsed)


def _session(data: Any, where: str, with_dialogue: bool) -> Session:
    if not isinstance(data, dict):
        raise DataError(f"{where}: a session is a JSON object")
    dialogue = data.get("dialogue")
    if not isinstance(dialogue, list):
        raise DataError(f"{where}: dialogue must be a list")
    turns = tuple(_turn(t, f"{where}: turn {i}") for i, t in enumerate(dialogue)) if with_dialogue else ()
    points = data.get("memory_points", [])
    if not isinstance(points, list):
        raise DataError(f"{where}: memory_points must be a list")
    questions = data.get("questions")
    if questions is not None and not isinstance(questions, list):
        raise DataError(f"{where}: questions must be a list")
    return Session(
        start_time=_text(data, "start_time", where),
        generated=data.get("is_generated_qa_session", False) is True,
        dialogue=turns,
        points=tuple(_point(p, f"{where}: memory point {i}") for i, p in enumerate(points)),
        questions=None
        if questions is None
        else tuple(_question(q, f"{where}: question {i}") for i, q in enumerate(questions)),
    )


def _turn(data: Any, where: str) -> Turn:
    if not isinstance(data, dict):
        raise DataError(f"{where}: a turn is a JSON object")
    role = _text(data, "role", where)
    if role not in ("user", "assistant"):
        raise DataError(f"{where}: role {role!r} is not user or assistant")
    stamp = data.get("timestamp", "")
    return Turn(role, _text(data, "content", where), stamp if isinstance(stamp, str) else str(stamp))


def _point(data: Any, where: str) -> MemoryPoint:
    if not isinstance(data, dict):
        raise DataError(f"{where}: a memory point is a JSON object")
    is_update = data.get("is_update", "False")
    if is_update not in ("True", "False"):
        raise DataError(f"{where}: is_update {is_update!r} is not the string 'True' or 'False'")
    original = data.get("original_memories", [])
    if not isinstance(original, list) or not all(isinstance(m, str) for m in original):
        raise DataError(f"{where}: original_memories must be a list of strings")
    importance = data.get("importance")
    if importance is not None and (isinstance(importance, bool) or not isinstance(importance, (int, float))):
        raise DataError(f"{where}: importance {importance!r} is not a number")
    memory_type = _text(data, "memory_type", where)
    if memory_type not in MEMORY_TYPES:
        raise DataError(f"{where}: memory_type {memory_type!r} is not one of {', '.join(MEMORY_TYPES)}")
    return MemoryPoint(
        content=_text(data, "memory_content", where),
        memory_type=memory_type,
        source=_text(data, "memory_source", where),
        is_update=is_update,
        original=tuple(original),
        importance=None if importance is None else float(importance),
    )


def _question(data: Any, where: str) -> Question:
    if not isinstance(data, dict):
        raise DataError(f"{where}: a question is a JSON object")
    question_type = _text(data, "question_type", where)
    if question_type not in QUESTION_TYPES:
        raise DataError(f"{where}: question_type {question_type!r} is not one of {', '.join(QUESTION_TYPES)}")
    evidence = data.get("evidence", [])
    if not isinstance(evidence, list) or not all(isinstance(e, dict) for e in evidence):
        raise DataError(f"{where}: evidence must be a list of objects")
    return Question(
        question=_text(data, "question", where),
        answer=_text(data, "answer", where),
        evidence=tuple(_text(e, "memory_content", f"{where}: evidence") for e in evidence),
        difficulty=str(data.get("difficulty", "")),
        question_type=question_type,
    )


def _text(data: Mapping[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise DataError(f"{where}: {key} must be a string")
    return value


def sessions_to_run(sessions: Sequence[Session], limit: int | None) -> Iterator[tuple[int, Session]]:
    """The first `limit` sessions (all: None) with their positions."""
    for position, session in enumerate(sessions):
        if limit is not None and position >= limit:
            return
        yield position, session
