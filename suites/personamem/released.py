"""The PersonaMem release as shipped on Hugging Face (bowen-upenn/PersonaMem), read as it is.

    questions_{32k,128k,1M}.csv          one row per question, written by Python's csv module
    shared_contexts_{32k,128k,1M}.jsonl  one {"<shared_context_id>": [{"role", "content"}, ...]} per line

A question sees the messages of its shared context before `end_index_in_shared_context`
(the official evaluation slices `context[:end]`, so a negative end counts from the end as a
Python slice does). `all_options` is the text of a Python list of strings, "(a) ..." to
"(d) ...", which the official prompt embeds as it is; it is read here with
`ast.literal_eval` only to check it and to give the offline reader the options.
`correct_answer` is "(a)" to "(d)".

A shared context is a sequence of sessions ("blocks"), each opened by a system message
"Current user persona: ..." (then, in the 128k and 1M files, filler sessions of other
datasets, then the session's own turns): `session_starts` finds them.
"""

from __future__ import annotations

import ast
import csv
import io
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_memeval.errors import DataError
from pytest_memeval.files import json_input
from pytest_memeval.files.user_files import open_regular
from pytest_memeval.framework.data_files import open_text

from .scoring import gold_letter

#: the files of one context length: (questions, shared contexts)
SIZES = ("32k", "128k", "1M")
#: the columns the suite reads; the release has six more (context_length_in_letters, the
#: distances to the reference, num_irrelevant_tokens ...), kept in the row but not needed
REQUIRED_COLUMNS = (
    "persona_id",
    "question_id",
    "question_type",
    "topic",
    "user_question_or_message",
    "correct_answer",
    "all_options",
    "shared_context_id",
    "end_index_in_shared_context",
)
#: the first message of every session of a shared context
PERSONA_PREFIX = "Current user persona: "
_KEY = re.compile(r'^\{\s*"((?:[^"\\]|\\.)*)"\s*:')


def questions_file(size: str) -> str:
    return f"questions_{size}.csv"


def contexts_file(size: str) -> str:
    return f"shared_contexts_{size}.jsonl"


@dataclass(frozen=True)
class Question:
    """One row of questions_<size>.csv, typed."""

    row: int
    persona_id: str
    question_id: str
    question_type: str
    topic: str
    question: str
    correct_answer: str
    all_options: str
    options: tuple[str, ...]
    shared_context_id: str
    end_index: int
    context_length_in_tokens: int | None


@dataclass(frozen=True)
class Turn:
    role: str
    content: str


def read_questions(path: Path) -> list[Question]:
    """Every row of a questions file; a DataError of one line naming the row at the first bad one."""
    try:
        with open_text(path, newline="") as handle:
            text = handle.read()
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 ({exc})") from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or ())]
    if missing:
        raise DataError(f"{path}: not a PersonaMem questions file (no column {', '.join(missing)})")
    questions = []
    try:
        for row in reader:
            questions.append(_question(row, reader.line_num))
    except csv.Error as exc:
        raise DataError(f"{path}: line {reader.line_num}: not CSV ({exc})") from None
    except ValueError as exc:
        raise DataError(f"{path}: line {reader.line_num}: {exc}") from None
    if not questions:
        raise DataError(f"{path}: no questions")
    return questions


def _question(row: dict[str, str], line: int) -> Question:
    if None in row or any(value is None for value in row.values()):
        raise ValueError("the row has another number of fields than the header")
    options = _options(row["all_options"])
    correct = row["correct_answer"]
    letter = gold_letter(correct)
    if len(letter) != 1 or not "a" <= letter < chr(ord("a") + len(options)):
        raise ValueError(f"correct_answer {correct!r} is not one of the {len(options)} options")
    tokens = row.get("context_length_in_tokens", "")
    return Question(
        row=line,
        persona_id=row["persona_id"].strip(),
        question_id=row["question_id"],
        question_type=row["question_type"],
        topic=row["topic"],
        question=row["user_question_or_message"],
        correct_answer=correct,
        all_options=row["all_options"],
        options=options,
        shared_context_id=row["shared_context_id"],
        end_index=_integer(row["end_index_in_shared_context"], "end_index_in_shared_context"),
        context_length_in_tokens=_integer(tokens, "context_length_in_tokens") if tokens.strip() else None,
    )


def _integer(text: str, column: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{column} {text!r} is not an integer") from None


def _options(text: str) -> tuple[str, ...]:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise ValueError(f"all_options is not a Python list of strings: {text[:60]!r}") from None
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise ValueError(f"all_options is not a list of strings: {text[:60]!r}")
    return tuple(value)


def index_contexts(path: Path) -> dict[str, int]:
    """shared_context_id -> the byte offset of its line, read once (the official loader's
    index). The key is read from the start of each line; a line that does not start with
    one is parsed whole."""
    offsets: dict[str, int] = {}
    try:
        with open(open_regular(path), "rb") as handle:
            offset = 0
            for number, line in enumerate(handle, start=1):
                if line.strip():
                    key = _line_key(line, path, number)
                    if key in offsets:
                        raise DataError(f"{path}: line {number}: shared context {key[:16]}... repeats")
                    offsets[key] = offset
                offset += len(line)
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror})") from None
    return offsets


def _line_key(line: bytes, path: Path, number: int) -> str:
    found = _KEY.match(line[:512].decode("utf-8", "replace"))
    if found and "\\" not in found.group(1):
        return found.group(1)
    value = _json_line(line, path, number)
    return next(iter(value))


def _json_line(line: bytes, path: Path, number: int) -> dict[str, object]:
    try:
        value = json_input.loads(line.decode("utf-8"), constants=True)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: line {number}: not JSON ({exc})") from None
    if not isinstance(value, dict) or len(value) != 1:
        raise DataError(f"{path}: line {number}: not one {{shared_context_id: [messages]}} object")
    return value


def load_context(path: Path, offset: int) -> list[Turn]:
    """The messages of the shared context whose line starts at `offset`."""
    try:
        with open(open_regular(path), "rb") as handle:
            handle.seek(offset)
            line = handle.readline()
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror})") from None
    value = next(iter(_json_line(line, path, 0).values()))
    if not isinstance(value, list):
        raise DataError(f"{path}: a shared context is not a list of messages")
    turns = []
    for message in value:
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise DataError(f"{path}: a message is not a {{role, content}} object: {str(message)[:60]}")
        content = message.get("content")
        # the generator drops messages without content; one kept anyway is stored empty
        turns.append(Turn(message["role"], content if isinstance(content, str) else ""))
    return turns


def cut(end_index: int, length: int) -> int:
    """How many messages `context[:end_index]` keeps (a negative end counts from the end)."""
    return len(range(length)[:end_index])


def session_starts(turns: Sequence[Turn]) -> list[int]:
    """Where each session of a shared context begins: at each persona system message (and at 0)."""
    starts = [i for i, t in enumerate(turns) if t.role == "system" and t.content.startswith(PERSONA_PREFIX)]
    return starts if starts and starts[0] == 0 else [0, *starts]


def sessions_before(turns: Sequence[Turn], end: int) -> Iterator[tuple[int, int]]:
    """(start, stop) of each session of turns[:end], the last one cut at `end`."""
    starts = [s for s in session_starts(turns) if s < end]
    for first, start in enumerate(starts):
        stop = starts[first + 1] if first + 1 < len(starts) else end
        yield start, stop
