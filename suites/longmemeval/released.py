"""LongMemEval's released files as shipped, read without loading a whole file.

Each file (`longmemeval_oracle.json`, `longmemeval_s_cleaned.json`, `longmemeval_m_cleaned.json`)
is one JSON array of question objects:

    question_id           an `_abs` suffix marks an abstention question
    question_type         one of QUESTION_TYPES
    question, answer      the answer may be a number in the release
    question_date         e.g. "2023/05/30 (Tue) 23:40"
    haystack_session_ids  one id per session; evidence sessions' ids start with "answer_"
    haystack_dates        one date per session
    haystack_sessions     sessions, each a list of {role, content, has_answer?}
    answer_session_ids    the evidence sessions

`longmemeval_m_cleaned.json` is 2.75 GB (about 1.5M tokens of haystack per question), so:

- `scan` reads the array one question object at a time (the standard library's C decoder
  on a sliding buffer), keeps what the suite needs without the haystack's text (ids,
  dates, turn counts, where the evidence turns are), the object's byte span, and the
  file's sha256, which it computes on the way;
- `stream_sessions` seeks to one question's span and yields its sessions one at a time
  with ijson (an incremental parser): a process holds one session of a haystack at a time.

Anything malformed is a `DataError` with one line naming the file and the question.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import ijson

from pytest_memeval.errors import DataError
from pytest_memeval.files import json_input
from pytest_memeval.files.user_files import open_bytes

#: in the order print_qa_metrics.py prints them
QUESTION_TYPES = (
    "single-session-user",
    "single-session-preference",
    "single-session-assistant",
    "multi-session",
    "temporal-reasoning",
    "knowledge-update",
)
ABSTENTION_MARK = "_abs"
ROLES = ("user", "assistant")
#: bytes read at a time while scanning
CHUNK = 1 << 20
#: a question object larger than this is taken for a malformed file rather than buffered
MAX_OBJECT = 256 << 20
_WHITESPACE = " \t\n\r"


@dataclass(frozen=True)
class Evidence:
    """A turn marked `has_answer: true`: its session's position, its own, and its role."""

    session: int
    turn: int
    role: str


@dataclass(frozen=True)
class Question:
    """One question of a released file, without its haystack's text."""

    question_id: str
    question_type: str
    question: str
    #: the released answer as text (str() of a number, as evaluate_qa.py's str.format writes it)
    answer: str
    question_date: str
    session_ids: tuple[str, ...]
    dates: tuple[str, ...]
    #: turns per session
    turns: tuple[int, ...]
    answer_session_ids: tuple[str, ...]
    evidence: tuple[Evidence, ...]
    #: the object's byte span in the file
    start: int
    end: int

    @property
    def abstention(self) -> bool:
        return ABSTENTION_MARK in self.question_id

    def to_json(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in self.__dataclass_fields__}
        data["evidence"] = [[e.session, e.turn, e.role] for e in self.evidence]
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Question:
        values = {name: data[name] for name in cls.__dataclass_fields__}
        for name in ("session_ids", "dates", "turns", "answer_session_ids"):
            values[name] = tuple(values[name])
        values["evidence"] = tuple(Evidence(s, t, r) for s, t, r in data["evidence"])
        return cls(**values)


@dataclass(frozen=True)
class ReleasedFile:
    """A scanned file: its questions in file order and its sha256."""

    path: Path
    sha256: str
    questions: tuple[Question, ...]


def scan(path: Path) -> ReleasedFile:
    """Every question of `path` in file order, read one object at a time."""
    hasher = hashlib.sha256()
    questions = []
    seen: set[str] = set()
    for position, (start, end, value) in enumerate(_array_elements(path, hasher)):
        question = _question(path, position, value, start, end)
        if question.question_id in seen:
            raise DataError(f"{path.name}: question_id {question.question_id!r} appears twice")
        seen.add(question.question_id)
        questions.append(question)
    if not questions:
        raise DataError(f"{path.name}: holds no questions")
    return ReleasedFile(path, hasher.hexdigest(), tuple(questions))


def stream_sessions(path: Path, question: Question) -> Iterator[list[dict[str, Any]]]:
    """The question's haystack sessions in order, parsed one at a time from its byte span."""
    expected = len(question.session_ids)
    count = 0
    try:
        with open_bytes(path) as handle:
            handle.seek(question.start)
            reader = _Span(handle, question.end - question.start)
            for session in ijson.items(reader, "haystack_sessions.item", use_float=True):
                count += 1
                if count > expected:
                    break
                yield session
    except (ijson.JSONError, OSError) as exc:
        raise DataError(f"{path.name}: question {question.question_id}: cannot read its sessions ({exc})") from None
    if count != expected:
        raise DataError(
            f"{path.name}: question {question.question_id}: {count} sessions where the index holds {expected} "
            "(the file changed since it was indexed?)"
        )


class _Span:
    """A read-only view of `length` bytes of a file from its current position."""

    def __init__(self, handle: BinaryIO, length: int) -> None:
        self.handle, self.left = handle, length

    def read(self, size: int = -1) -> bytes:
        if self.left <= 0:
            return b""
        size = self.left if size < 0 else min(size, self.left)
        data = self.handle.read(size)
        self.left -= len(data)
        return data


def _array_elements(path: Path, hasher: Any) -> Iterator[tuple[int, int, Any]]:
    """(byte start, byte end, value) of each element of the file's top-level JSON array."""
    utf8 = codecs.getincrementaldecoder("utf-8")()
    try:
        handle = open_bytes(path)
    except OSError as exc:
        raise DataError(f"{path}: cannot open ({exc.strerror})") from None
    with handle:
        buffer = _Buffer(handle, hasher, utf8, path.name)
        buffer.skip_whitespace()
        if not buffer.take("["):
            raise DataError(f"{path.name}: not a JSON array (the released files are one array of questions)")
        buffer.skip_whitespace()
        if buffer.take("]"):
            buffer.expect_end()
            return
        while True:
            start = buffer.offset
            value, length = buffer.decode()
            yield start, start + length, value
            buffer.skip_whitespace()
            if buffer.take("]"):
                buffer.expect_end()
                return
            if not buffer.take(","):
                raise DataError(f"{path.name}: expected ',' or ']' after question {start}..{start + length}")
            buffer.skip_whitespace()


class _Buffer:
    """Decoded text not yet consumed, and the byte offset of its first character."""

    def __init__(self, handle: BinaryIO, hasher: Any, utf8: codecs.IncrementalDecoder, name: str) -> None:
        self.handle, self.hasher, self.utf8, self.name = handle, hasher, utf8, name
        self.text = ""
        self.offset = 0
        self.eof = False

    def fill(self, at_least: int = CHUNK) -> bool:
        """Read more; False at the end of the file."""
        if self.eof:
            return False
        data = self.handle.read(max(CHUNK, at_least))
        self.hasher.update(data)
        if not data:
            self.eof = True
            try:
                self.text += self.utf8.decode(b"", final=True)
            except UnicodeDecodeError:
                raise DataError(f"{self.name}: not UTF-8 at its end") from None
            return False
        try:
            self.text += self.utf8.decode(data)
        except UnicodeDecodeError as exc:
            raise DataError(f"{self.name}: not UTF-8 near byte {self.offset + exc.start}") from None
        return True

    def consume(self, chars: int) -> int:
        """Drop the first `chars` characters; their length in bytes."""
        head = self.text[:chars]
        length = len(head) if head.isascii() else len(head.encode("utf-8"))
        self.text = self.text[chars:]
        self.offset += length
        return length

    def skip_whitespace(self) -> None:
        while True:
            stripped = self.text.lstrip(_WHITESPACE)
            self.consume(len(self.text) - len(stripped))
            if self.text or not self.fill():
                return

    def take(self, char: str) -> bool:
        if not self.text:
            self.fill()
        if self.text.startswith(char):
            self.consume(1)
            return True
        return False

    def expect_end(self) -> None:
        self.skip_whitespace()
        if self.text:
            raise DataError(f"{self.name}: text after the array's end at byte {self.offset}")

    def decode(self) -> tuple[Any, int]:
        """The next JSON value and its length in bytes, reading on while it is cut off."""
        while True:
            try:
                value, end = json_input.raw_decode(self.text, constants=True)  # the numbers read are checked
            except json_input.UnreadableJSON as exc:
                raise DataError(f"{self.name}: the question object at byte {self.offset} is {exc.msg}") from None
            except json.JSONDecodeError as exc:
                if len(self.text) > MAX_OBJECT:
                    raise DataError(
                        f"{self.name}: no question object ends within {MAX_OBJECT >> 20} MB of byte {self.offset}"
                    ) from None
                if not self.fill(len(self.text)):  # doubling: each object is re-parsed a few times at most
                    raise DataError(f"{self.name}: malformed JSON after byte {self.offset} ({exc.msg})") from None
                continue
            return value, self.consume(end)


def _question(path: Path, position: int, value: Any, start: int, end: int) -> Question:
    where = f"{path.name}: question {position}"
    if not isinstance(value, dict):
        raise DataError(f"{where}: not an object")
    qid = value.get("question_id")
    if not isinstance(qid, str) or not qid:
        raise DataError(f"{where}: no question_id")
    where = f"{path.name}: question {qid}"

    def text(name: str) -> str:
        field = value.get(name)
        if not isinstance(field, str):
            raise DataError(f"{where}: {name} is not a string")
        return field

    def strings(name: str) -> tuple[str, ...]:
        field = value.get(name)
        if not isinstance(field, list) or not all(isinstance(v, str) for v in field):
            raise DataError(f"{where}: {name} is not a list of strings")
        return tuple(field)

    question_type = text("question_type")
    if question_type not in QUESTION_TYPES:
        raise DataError(f"{where}: unknown question_type {question_type!r} (known: {', '.join(QUESTION_TYPES)})")
    answer = value.get("answer")
    if isinstance(answer, bool) or not isinstance(answer, (str, int, float)):
        raise DataError(f"{where}: answer is not a string or a number")
    if isinstance(answer, float) and not math.isfinite(answer):
        raise DataError(f"{where}: answer is {answer}, not a number a gold answer can be")
    session_ids, dates = strings("haystack_session_ids"), strings("haystack_dates")
    sessions = value.get("haystack_sessions")
    if not isinstance(sessions, list) or not len(sessions) == len(session_ids) == len(dates):
        raise DataError(f"{where}: haystack_sessions, haystack_session_ids and haystack_dates differ in length")
    evidence = []
    for s, session in enumerate(sessions):
        if not isinstance(session, list):
            raise DataError(f"{where}: session {session_ids[s]} is not a list of turns")
        for t, turn in enumerate(session):
            _check_turn(where, session_ids[s], t, turn)
            if turn.get("has_answer") is True:
                evidence.append(Evidence(s, t, turn["role"]))
    return Question(
        question_id=qid,
        question_type=question_type,
        question=text("question"),
        answer=str(answer),
        question_date=text("question_date"),
        session_ids=session_ids,
        dates=dates,
        turns=tuple(len(session) for session in sessions),
        answer_session_ids=strings("answer_session_ids"),
        evidence=tuple(evidence),
        start=start,
        end=end,
    )


def _check_turn(where: str, session_id: str, position: int, turn: Any) -> None:
    if not isinstance(turn, dict):
        raise DataError(f"{where}: session {session_id} turn {position} is not an object")
    if turn.get("role") not in ROLES or not isinstance(turn.get("content"), str):
        raise DataError(f"{where}: session {session_id} turn {position} needs a role (user, assistant) and a content")
    if "has_answer" in turn and not isinstance(turn["has_answer"], bool):
        raise DataError(f"{where}: session {session_id} turn {position}: has_answer is not true or false")


def turns_of(session: Any, where: str, session_id: str) -> list[tuple[str, str]]:
    """(role, content) of each turn of a streamed session, checked as `scan` checks them."""
    if not isinstance(session, list):
        raise DataError(f"{where}: session {session_id} is not a list of turns")
    out = []
    for position, turn in enumerate(session):
        _check_turn(where, session_id, position, turn)
        out.append((turn["role"], turn["content"]))
    return out
