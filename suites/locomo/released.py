"""The released `locomo10.json` (snap-research/LoCoMo, `data/`), read as shipped.

A JSON array of conversations, each `{sample_id, conversation, qa, observation,
session_summary, event_summary}`. `conversation` holds `speaker_a`, `speaker_b`, and per
session N `session_N` (a list of turns `{speaker, dia_id, text}`; image turns add
`blip_caption`, `img_url`, `query`, sometimes `re-download`) and `session_N_date_time`
("1:56 pm on 8 May, 2023"). Sessions are taken in the order of their numbers, never of
the keys; a date without a session (conv-26 has dates up to session 35 and 19 sessions)
is ignored. `qa` entries are `{question, answer, evidence, category}`; the file's quirks
are read, not refused:

- `answer` may be an integer (2022); it is kept as released, and scored as `str()` of it,
  as the official scorer does;
- a `category` written as a float by a tool that rewrote the file (1.0) is read as its
  integer (1); a category that is no integer (1.5, NaN) is refused;
- category 5 (adversarial) keeps its distractor under `adversarial_answer`, and most have
  no `answer`; the two that have one keep it beside the distractor;
- evidence strings may be malformed: "D8:6; D9:17" and "D9:1 D4:4 D4:6" (several in
  one), "D:11:26" (a stray colon), "D30:05" (a leading zero), "D" (nothing), or name a
  turn that does not exist. Each is read as the dia_ids it spells; ids of no turn are left
  out; the release's notes say what was read how.

Anything else out of shape (a missing key, a wrong type, an unknown category) is a
DataError naming the conversation and the field.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from pytest_memeval.errors import DataError
from pytest_memeval.files import json_input
from pytest_memeval.files.user_files import read_bytes
from pytest_memeval.results.schema import SchemaError, convert

FILE_NAME = "locomo10.json"
CATEGORIES = (1, 2, 3, 4, 5)
_SESSION = re.compile(r"session_(\d+)")
_DIA_ID = re.compile(r"D:?(\d+):(\d+)")
_CANONICAL = re.compile(r"D[1-9]\d*:[1-9]\d*")
T = TypeVar("T")


@dataclass(frozen=True)
class Turn:
    speaker: str
    dia_id: str
    text: str
    #: the image's caption on turns that share one (the official scripts show it)
    blip_caption: str | None = None


@dataclass(frozen=True)
class Session:
    number: int
    date_time: str
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class QA:
    """One question as released; `index` is its position in the conversation's `qa`."""

    index: int
    question: str
    category: int
    #: the released `answer` (str or int); None where there is none (most of category 5)
    answer: str | int | None
    #: category 5's distractor
    adversarial_answer: str | None
    #: the dia_ids the evidence strings spell that name a turn of the conversation
    evidence: tuple[str, ...]
    #: the evidence strings as released
    raw_evidence: tuple[str, ...]


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    speaker_a: str
    speaker_b: str
    sessions: tuple[Session, ...]
    qa: tuple[QA, ...]

    def turns(self) -> list[Turn]:
        return [turn for session in self.sessions for turn in session.turns]


@dataclass(frozen=True)
class Release:
    path: Path
    sha256: str
    conversations: tuple[Conversation, ...]
    #: what reading the quirks did, one line each
    notes: tuple[str, ...]


def find_file(data_dir: Path) -> Path:
    """`locomo10.json` in `data_dir`, or in its `data/` (a clone of the repository)."""
    for candidate in (data_dir / FILE_NAME, data_dir / "data" / FILE_NAME):
        if candidate.is_file():
            return candidate
    raise DataError(f"no {FILE_NAME} in {data_dir} or {data_dir / 'data'} (see docs/suites/locomo.md)")


def load_release(path: Path) -> Release:
    try:
        raw = read_bytes(path)
    except OSError as exc:
        raise DataError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return parse_release(raw, path)


def parse_release(raw: bytes, path: Path) -> Release:
    """The release from the bytes of a file (`path` names it in messages)."""
    try:
        data = json_input.loads(raw, constants=True)  # each number read is checked
    except ValueError as exc:
        raise DataError(f"{path}: not JSON: {exc}") from None
    if not isinstance(data, list) or not data:
        raise DataError(f"{path}: expected a non-empty JSON array of conversations")
    notes: list[str] = []
    conversations = tuple(read_conversation(entry, f"{path.name}[{i}]", notes) for i, entry in enumerate(data))
    ids = [c.sample_id for c in conversations]
    if len(set(ids)) != len(ids):
        raise DataError(f"{path}: sample_id values repeat")
    return Release(path, hashlib.sha256(raw).hexdigest(), conversations, tuple(notes))


class _TurnJSON(msgspec.Struct, frozen=True):
    """A turn as released (its other keys, such as img_url and query, are not read)."""

    speaker: str
    dia_id: str
    text: str
    blip_caption: str | None = None


class _QAJSON(msgspec.Struct, frozen=True):
    question: str
    #: read by `_category`: a float of an integer (1.0) is that integer
    category: Any = None
    answer: str | int | None = None
    adversarial_answer: str | None = None
    evidence: list[str] = []


class _ConversationJSON(msgspec.Struct, frozen=True):
    """A conversation as released (observation and the summaries are not read); the keys of
    its `conversation` beside the speakers are its sessions (`_sessions`)."""

    conversation: dict[str, Any]
    qa: list[_QAJSON]


class _SpeakersJSON(msgspec.Struct, frozen=True):
    speaker_a: str
    speaker_b: str


def _read(data: Any, kind: type[T], where: str) -> T:
    try:
        return convert(data, kind, where)
    except SchemaError as exc:
        raise DataError(str(exc)) from None


def read_conversation(entry: Any, where: str, notes: list[str]) -> Conversation:
    sample_id = entry.get("sample_id") if isinstance(entry, dict) else None
    if not isinstance(sample_id, str):
        raise DataError(f"{where}: 'sample_id' must be a string")
    where = f"{where} ({sample_id})"
    released = _read(entry, _ConversationJSON, where)
    speakers = _read(released.conversation, _SpeakersJSON, f"{where}: conversation")
    sessions = _sessions(released.conversation, where)
    known = {turn.dia_id for session in sessions for turn in session.turns}
    if len(known) != sum(len(s.turns) for s in sessions):
        raise DataError(f"{where}: dia_id values repeat")
    qa = tuple(_qa(q, i, f"{where}: qa[{i}]", known, notes) for i, q in enumerate(released.qa))
    return Conversation(sample_id, speakers.speaker_a, speakers.speaker_b, sessions, qa)


def _sessions(conversation: Mapping[str, Any], where: str) -> tuple[Session, ...]:
    numbers = sorted(int(m.group(1)) for key in conversation if (m := _SESSION.fullmatch(key)))
    if not numbers:
        raise DataError(f"{where}: no session_N in the conversation")
    sessions = []
    for number in numbers:
        key = f"session_{number}"
        turns = _read(conversation[key], list[_TurnJSON], f"{where}: {key}")
        date_time = _read(conversation.get(f"{key}_date_time"), str, f"{where}: {key}_date_time")
        sessions.append(
            Session(number, date_time, tuple(Turn(t.speaker, t.dia_id, t.text, t.blip_caption) for t in turns))
        )
    return tuple(sessions)


def _qa(entry: _QAJSON, index: int, where: str, known: set[str], notes: list[str]) -> QA:
    category = _category(entry.category)
    if category not in CATEGORIES:
        raise DataError(f"{where}: category {entry.category!r} is not one of 1-5")
    if category == 5 and entry.adversarial_answer is None:
        raise DataError(f"{where}: a category-5 question without adversarial_answer")
    if category != 5 and entry.answer is None:
        raise DataError(f"{where}: no answer")
    return QA(
        index=index,
        question=entry.question,
        category=category,
        answer=entry.answer,
        adversarial_answer=entry.adversarial_answer,
        evidence=read_evidence(entry.evidence, known, where, notes),
        raw_evidence=tuple(entry.evidence),
    )


def read_evidence(raw: Sequence[str], known: set[str], where: str, notes: list[str]) -> tuple[str, ...]:
    """The dia_ids the evidence strings spell, in order, once each, that name a known turn."""
    found: list[str] = []
    for text in raw:
        spelled = [f"D{int(a)}:{int(b)}" for a, b in _DIA_ID.findall(text)]
        if not _CANONICAL.fullmatch(text):
            notes.append(f"{where}: evidence {text!r} read as {', '.join(spelled) or 'nothing'}")
        for dia_id in spelled:
            if dia_id not in known:
                notes.append(f"{where}: evidence {dia_id} names no turn; left out")
            elif dia_id not in found:
                found.append(dia_id)
    return tuple(found)


def _category(value: Any) -> int | None:
    """The category as an integer: 1.0 (a file rewritten by a tool that made it a float) is 1;
    anything else that is not an integer is no category."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) else None
