"""Which file and which questions a run uses, and each question as a context and an item.

The file: `--memeval-data DIR` holds the release (the `file` suite option picks
longmemeval_s_cleaned.json, the default, longmemeval_m_cleaned.json or
longmemeval_oracle.json; the names of the official README, longmemeval_s.json and
longmemeval_m.json, are read where the cleaned file is absent); without it the generated
sample (sample.py) is written once under the cache directory and read by the same code.

Scanning a file (released.scan) reads all of it once; its index (what each question needs
without its haystack's text, and where its object lies in the file) is cached beside the
sample, keyed by the file's path, size and modification time, so that xdist workers and
later runs read a few megabytes instead of gigabytes.

Sizes: smoke takes the first 2 questions of each type and the first 4 abstention
questions (all 16 of the sample), small 10 and 10, full every question.

One context per question: its haystack sessions in date order, streamed from the file as
the memory system ingests them (`_Haystack`). Each message's id is opaque: a hash of the question and its
session id (LongMemEval's evidence sessions are named "answer_..."), a colon, the turn's
position. The item's private part names the evidence sessions and turns by those ids.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from pytest_memeval.errors import ConfigError, DataError
from pytest_memeval.framework.data_files import released_file
from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.types import Context, Evidence, Item, ItemView, Message

from .released import QUESTION_TYPES, Question, ReleasedFile, scan, stream_sessions, turns_of
from .sample import DATE_FORMAT, FILES, VERSION, write_sample

DOWNLOAD = "https://huggingface.co/datasets/xiaowu0162/longmemeval-cleaned"
#: the names a released file may have, the first preferred: the cleaned release's (FILES),
#: then the official README's (github.com/xiaowu0162/LongMemEval)
RELEASED_NAMES: dict[str, tuple[str, ...]] = {
    "s": (FILES["s"], "longmemeval_s.json"),
    "m": (FILES["m"], "longmemeval_m.json"),
    "oracle": (FILES["oracle"],),
}
#: size -> (questions per type that are not abstention questions, abstention questions); None = all
SIZES: dict[str, tuple[int | None, int | None]] = {"smoke": (2, 4), "small": (10, 10), "full": (None, None)}
#: how a message carries its session's date: in its text (every memory system keeps it) or
#: only in Message.timestamp (for systems that index time themselves)
DATE_MODES = ("text", "timestamp")
INDEX_VERSION = "1"


def marker_of(question_type: str) -> str:
    return question_type.replace("-", "_")


#: a message's text in the `text` date mode: "[2023/05/30 (Tue) 23:40] user: ..."
DATED = re.compile(r"^\[(?P<date>[^\]\n]+)\] (?P<role>user|assistant): ")


def dated_text(date: str, role: str, content: str) -> str:
    return f"[{date}] {role}: {content}"


def split_dated(text: str) -> tuple[str, str, str] | None:
    """(date, role, content) of a text `dated_text` wrote (as a memory system returns it
    verbatim), else None."""
    found = DATED.match(text)
    return (found.group("date"), found.group("role"), text[found.end() :]) if found else None


def iso_timestamp(date: str) -> str | None:
    """LongMemEval's "2023/05/30 (Tue) 23:40" as ISO 8601, or None when it is written otherwise."""
    try:
        return datetime.strptime(date, DATE_FORMAT).isoformat()
    except ValueError:
        return None


def session_key(question_id: str, session_id: str) -> str:
    return hashlib.sha256(f"{question_id}\0{session_id}".encode()).hexdigest()[:16]


def turn_id(question_id: str, session_id: str, position: int) -> str:
    return f"{session_key(question_id, session_id)}:{position + 1}"


def session_of(message_id: str) -> str:
    """The session part of a message id made by `turn_id`."""
    return message_id.rpartition(":")[0]


def file_setting(raw: str | None) -> str:
    """--memeval-suite-option longmemeval.file (None: the default, s)."""
    variant = "s" if raw is None else raw
    if variant not in FILES:
        raise ConfigError(
            f"--memeval-suite-option longmemeval.file={variant}: one of {', '.join(FILES)} ({', '.join(FILES.values())})"
        )
    return variant


def dates_setting(raw: str | None) -> str:
    """--memeval-suite-option longmemeval.dates (None: the default, text)."""
    dates = DATE_MODES[0] if raw is None else raw
    if dates not in DATE_MODES:
        raise ConfigError(f"--memeval-suite-option longmemeval.dates={dates}: one of {', '.join(DATE_MODES)}")
    return dates


class Catalog:
    def __init__(self, options: SuiteOptions) -> None:
        self.options = options
        self.variant = file_setting(options.params.get("file"))
        self.dates = dates_setting(options.params.get("dates"))
        self.sample = options.data_dir is None
        released = options.data_dir
        self.path = (
            self._sample_path() if released is None else released_file(released, RELEASED_NAMES[self.variant], DOWNLOAD)
        )
        self.file = _indexed(self.path, options.cache_dir / "longmemeval")
        self.questions = {q.question_id: q for q in _selected(self.file.questions, options.size)}

    def _sample_path(self) -> Path:
        directory = self.options.cache_dir / "longmemeval" / f"sample-v{VERSION}"
        path = directory / FILES[self.variant]
        if not path.is_file():
            write_sample(directory)
        return path

    def question(self, question_id: str) -> Question:
        try:
            return self.questions[question_id]
        except KeyError:
            raise DataError(f"no longmemeval question {question_id!r} in this run") from None

    def context(self, question_id: str) -> Context:
        return Context(question_id, _Haystack(self.path, self.question(question_id), self.dates))

    def item(self, question_id: str) -> Item:
        q = self.question(question_id)
        user_evidence = [e for e in q.evidence if e.role == "user" and q.session_ids[e.session] in q.answer_session_ids]
        turns = tuple(turn_id(q.question_id, q.session_ids[e.session], e.turn) for e in user_evidence)
        sessions = tuple(dict.fromkeys(session_of(t) for t in turns))
        # as the official retrieval evaluation: abstention questions, and questions with no
        # evidence turn on the user's side, are left out of recall
        recall = not q.abstention and bool(turns)
        return Item(
            id=q.question_id,
            context_id=q.question_id,
            cluster=q.question_id,
            view=ItemView(
                suite="longmemeval",
                task=q.question_type,
                question=q.question,
                extra={"question_date": q.question_date},
            ),
            gold=q.answer,
            strata={"question_type": q.question_type, "abstention": "yes" if q.abstention else "no"},
            private={
                "abstention": q.abstention,
                "evidence_sessions": sessions if recall else (),
                "evidence_turns": turns if recall else (),
            },
            evidence=self._evidence(q, turns) if recall else None,
        )

    def _evidence(self, q: Question, turns: Sequence[str]) -> Evidence | None:
        """The evidence turns as the context stores them, read from the haystack up to the
        last session that holds one."""
        wanted, found = set(turns), dict[str | None, Message]()
        for session in _Haystack(self.path, q, self.dates):
            found.update((m.id, m) for m in session if m.id in wanted)
            if len(found) == len(wanted):
                break
        held = tuple(found[t] for t in turns if t in found)
        return Evidence(held) if held else None

    def describe(self) -> dict[str, Any]:
        """What the report says about the data."""
        return {
            "file": self.path.name,
            "sha256": self.file.sha256,
            "sample": self.sample,
            "questions_in_file": len(self.file.questions),
            "questions_run": len(self.questions),
            "dates": self.dates,
        }


class _Haystack(Sequence[tuple[Message, ...]]):
    """A question's sessions as messages in date order, read from the file each time they
    are iterated. The s and m files list sessions in date order and are streamed one
    session at a time; the oracle file does not (its README says so), and its few evidence
    sessions are read whole and put in date order, so that a memory system sees an update
    after what it updates."""

    def __init__(self, path: Path, question: Question, dates: str) -> None:
        self.path, self.question, self.dates = path, question, dates

    def __len__(self) -> int:
        return len(self.question.session_ids)

    def __iter__(self) -> Iterator[tuple[Message, ...]]:
        q = self.question
        order = chronological(q.dates)
        sessions: Iterator[tuple[int, Any]] = enumerate(stream_sessions(self.path, q))
        if order != sorted(order):
            held = list(sessions)
            sessions = (held[position] for position in order)
        where = f"{self.path.name}: question {q.question_id}"
        for position, raw in sessions:
            session_id, date = q.session_ids[position], q.dates[position]
            yield tuple(
                self._message(date, role, content, turn_id(q.question_id, session_id, t))
                for t, (role, content) in enumerate(turns_of(raw, where, session_id))
            )

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self)[index]
        for position, session in enumerate(self):
            if position == (index if index >= 0 else len(self) + index):
                return session
        raise IndexError(index)

    def _message(self, date: str, role: str, content: str, message_id: str) -> Message:
        text = dated_text(date, role, content) if self.dates == "text" else content
        return Message(role=role, content=text, timestamp=iso_timestamp(date), id=message_id)


def chronological(dates: Sequence[str]) -> list[int]:
    """Session positions in date order (ties and unreadable dates keep the file's order)."""
    parsed = [iso_timestamp(date) for date in dates]
    if None in parsed:
        return list(range(len(dates)))
    return sorted(range(len(dates)), key=lambda position: parsed[position] or "")


def _selected(questions: Sequence[Question], size: str) -> list[Question]:
    per_type, abstentions = SIZES[size]
    taken: dict[str, int] = dict.fromkeys(QUESTION_TYPES, 0)
    abstained = 0
    out = []
    for q in questions:
        if q.abstention:
            if abstentions is None or abstained < abstentions:
                abstained += 1
                out.append(q)
        elif per_type is None or taken[q.question_type] < per_type:
            taken[q.question_type] += 1
            out.append(q)
    return out


def _indexed(path: Path, directory: Path) -> ReleasedFile:
    """The file's scan, from the cached index when the file is unchanged since."""
    try:
        status = path.stat()
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror})") from None
    key = hashlib.sha256(f"{path.resolve()}\0{status.st_size}\0{status.st_mtime_ns}".encode()).hexdigest()[:24]
    index = directory / f"index-v{INDEX_VERSION}-{key}.json"
    if index.is_file():
        try:
            data = json.loads(index.read_text(encoding="utf-8"))
            return ReleasedFile(path, data["sha256"], tuple(Question.from_json(q) for q in data["questions"]))
        except (OSError, ValueError, KeyError, TypeError):
            pass  # a damaged index is rebuilt
    scanned = scan(path)
    directory.mkdir(parents=True, exist_ok=True)
    partial = index.with_name(f".{index.name}.{os.getpid()}.part")
    partial.write_text(
        json.dumps(
            {"file": path.name, "sha256": scanned.sha256, "questions": [q.to_json() for q in scanned.questions]}
        ),
        encoding="utf-8",
    )
    partial.replace(index)
    return scanned
