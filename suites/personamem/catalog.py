"""Which files and questions a run uses, and how a question's visible prefix is stored.

The files: `--memeval-data DIR` holds the release (questions_<length>.csv and
shared_contexts_<length>.jsonl for each context length the `file` suite option names, 32k
by default); without it the generated sample (sample.py) is written once under the cache
directory and read by the same code. Sizes: the release gives the first 2 (smoke) or 10
(small) questions of each question type of each file, or all (full); the sample has 2, 4
or 8 personas per seed and every question.

A question sees `shared_context[:end_index_in_shared_context]`. How that prefix reaches the
memory system is the `fill` suite option:

- `session` (the default): one namespace per shared context, filled once with the sessions
  before the session that holds the earliest question of that context in the file (every
  session opens with the persona's system message, released.session_starts). In the
  authors' generator every question is asked in the last session or at the end of the
  text, and its reference lies in an earlier session, so this store is the long history
  every question of the context may see, and no question sees a message asked after it.
  The question's own session up to the question (the messages from that session's start
  to the end index) is the ongoing conversation: it goes with the question, in the view
  (`ItemView.extra["conversation"]`), to the responder, as a chat assistant holds its
  current conversation in its window and its memory for the rest.
- `prefix`: one namespace per distinct prefix, filled with all of it: the literal reading
  of the protocol, at the cost of storing a context again for every distinct end index.

Ids: an item is `<length>-<question_id>`; a context `<length>-<first 16 hex of the shared
context id>` (and `-<cut>` under `prefix`); a message is `m<position in the shared context>`.
The cluster is the persona: a persona's questions share its sessions (and, across context
lengths, its conversations), so they are not independent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from pytest_memeval.errors import ConfigError, DataError
from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.types import Context, Item, ItemView, Message

from .released import (
    SIZES,
    Question,
    Turn,
    contexts_file,
    cut,
    index_contexts,
    load_context,
    questions_file,
    read_questions,
    session_starts,
    sessions_before,
)
from .sample import DEFAULT_SEED, VERSION, write_sample

DOWNLOAD = "https://huggingface.co/datasets/bowen-upenn/PersonaMem"
FILLS = ("session", "prefix")
#: questions per question type per file, by --memeval-size (None: all)
RELEASED_PER_TYPE: dict[str, int | None] = {"smoke": 2, "small": 10, "full": None}
#: the paper's seven question types, and the other names the released files and the
#: authors' scripts give them (the three files do not use one vocabulary)
QUESTION_TYPES: dict[str, tuple[str, ...]] = {
    "recall_user_shared_facts": ("recalling_facts_mentioned_by_the_user",),
    "suggest_new_ideas": ("identifying_new_things_not_mentioned_by_the_user",),
    "acknowledge_latest_user_preferences": ("acknowledge_latest_preferences", "recalling_the_latest_user_preferences"),
    "track_full_preference_evolution": (
        "track_full_preference_updates",
        "tracking_the_full_sequence_of_preference_updates",
    ),
    "revisit_reasons_behind_preference_updates": ("recalling_the_reasons_behind_previous_updates",),
    "provide_preference_aligned_recommendations": ("recommendation_aligned_with_users_latest_preferences",),
    "generalize_to_new_scenarios": (
        "generalizing_to_new_scenarios",
        "generalizing_past_reasons_in_memory_to_new_scenarios",
    ),
}
_CANONICAL = {alias: name for name, aliases in QUESTION_TYPES.items() for alias in (name, *aliases)}
OTHER_TYPE = "other"


def canonical_type(released: str) -> str:
    """The paper's name of a released question type ("other" for a name it does not know)."""
    return _CANONICAL.get(released.strip(), OTHER_TYPE)


def length_marker(length: str) -> str:
    return f"context_{length}"


def lengths_setting(value: str | None) -> tuple[str, ...]:
    """The `file` suite option: context lengths, comma-separated, in the release's order."""
    if value is None:
        return ("32k",)
    names = {part.strip() for part in value.split(",") if part.strip()}
    unknown = sorted(names - set(SIZES))
    if unknown or not names:
        raise ConfigError(f"personamem.file={value!r}: name one or more of {', '.join(SIZES)}")
    return tuple(size for size in SIZES if size in names)


def fill_setting(value: str | None) -> str:
    if value is None:
        return "session"
    if value.strip() not in FILLS:
        raise ConfigError(f"personamem.fill={value!r}: one of {', '.join(FILLS)}")
    return value.strip()


@dataclass(frozen=True)
class _Entry:
    length: str
    question: Question
    context_id: str


@dataclass
class _File:
    """One context length's two files and what the run has read of them."""

    length: str
    questions_path: Path
    contexts_path: Path
    #: shared context id -> the earliest cut of any question of the file on it (raw end index)
    ends: dict[str, list[int]]
    _offsets: dict[str, int] | None = None

    def offsets(self) -> dict[str, int]:
        if self._offsets is None:
            self._offsets = index_contexts(self.contexts_path)
        return self._offsets


class Catalog:
    def __init__(self, options: SuiteOptions, lengths: Sequence[str], fill: str) -> None:
        self.options, self.fill = options, fill
        self.sample = options.data_dir is None
        self.seeds = tuple(options.seeds or (DEFAULT_SEED,)) if self.sample else ()
        self.files: dict[str, list[_File]] = {}
        self.entries: dict[str, _Entry] = {}
        limit = None if self.sample else RELEASED_PER_TYPE[options.size]
        for length in lengths:
            for directory in self._directories(length):
                self._read(length, directory, limit)
        self._contexts: dict[str, tuple[_File, str, int | None]] = {}
        for entry in self.entries.values():
            self._contexts.setdefault(entry.context_id, self._context_key(entry))

    def _directories(self, length: str) -> list[Path]:
        if not self.sample:
            assert self.options.data_dir is not None
            return [self.options.data_dir]
        directories = []
        for seed in self.seeds:
            directory = self.options.cache_dir / "personamem-sample" / f"v{VERSION}" / self.options.size / f"seed{seed}"
            if not (directory / questions_file(length)).is_file() or not (directory / contexts_file(length)).is_file():
                write_sample(directory, self.options.size, length, seed)
            directories.append(directory)
        return directories

    def _read(self, length: str, directory: Path, limit: int | None) -> None:
        questions_path, contexts_path = directory / questions_file(length), directory / contexts_file(length)
        for path in (questions_path, contexts_path):
            if not path.exists():
                raise DataError(
                    f"{path}: no such file; --memeval-data DIR holds the PersonaMem release "
                    f"(questions_<length>.csv and shared_contexts_<length>.jsonl, from {DOWNLOAD})"
                )
        questions = read_questions(questions_path)
        ends: dict[str, list[int]] = {}
        for q in questions:
            ends.setdefault(q.shared_context_id, []).append(q.end_index)
        file = _File(length, questions_path, contexts_path, ends)
        self.files.setdefault(length, []).append(file)
        taken: dict[str, int] = {}
        for q in questions:
            kind = canonical_type(q.question_type)
            if limit is not None and taken.get(kind, 0) >= limit:
                continue
            taken[kind] = taken.get(kind, 0) + 1
            item_id = f"{length}-{q.question_id}"
            if item_id in self.entries:
                raise DataError(f"{questions_path}: line {q.row}: question_id {q.question_id!r} repeats")
            context_id = f"{length}-{q.shared_context_id[:16]}"
            if self.fill == "prefix":
                context_id += f"-{q.end_index}"
            self.entries[item_id] = _Entry(length, q, context_id)

    def _context_key(self, entry: _Entry) -> tuple[_File, str, int | None]:
        file = next(f for f in self.files[entry.length] if entry.question.shared_context_id in f.ends)
        return file, entry.question.shared_context_id, entry.question.end_index if self.fill == "prefix" else None

    def ordered(self) -> list[_Entry]:
        """The run's questions grouped by context, each context in the order of its first question."""
        order: dict[str, int] = {}
        for entry in self.entries.values():
            order.setdefault(entry.context_id, len(order))
        return sorted(self.entries.values(), key=lambda e: order[e.context_id])

    def turns(self, file: _File, shared_id: str) -> tuple[Turn, ...]:
        offset = file.offsets().get(shared_id)
        if offset is None:
            raise DataError(f"{file.contexts_path}: no shared context {shared_id[:16]}... (a question names it)")
        return _load(file.contexts_path, offset)

    def memory_cut(self, file: _File, shared_id: str, turns: Sequence[Turn]) -> int:
        """Under `session`: where the stored history ends, the start of the session holding
        the earliest question of the file on this shared context."""
        earliest = min(cut(end, len(turns)) for end in file.ends[shared_id])
        return max((s for s in session_starts(turns) if s <= earliest), default=0)

    def context(self, context_id: str) -> Context:
        found = self._contexts.get(context_id)
        if found is None:
            raise DataError(f"no PersonaMem context {context_id!r} in this run")
        file, shared_id, end = found
        turns = self.turns(file, shared_id)
        stop = cut(end, len(turns)) if end is not None else self.memory_cut(file, shared_id, turns)
        return Context(
            context_id, tuple(_messages(turns, start, finish) for start, finish in sessions_before(turns, stop))
        )

    def item(self, item_id: str) -> Item:
        entry = self.entries.get(item_id)
        if entry is None:
            raise DataError(f"no PersonaMem item {item_id!r} in this run")
        q = entry.question
        conversation: list[list[str]] = []
        stored = None
        if self.fill == "session":
            file, shared_id, _ = self._contexts[entry.context_id]
            turns = self.turns(file, shared_id)
            stored = self.memory_cut(file, shared_id, turns)
            conversation = [[t.role, t.content] for t in turns[stored : cut(q.end_index, len(turns))]]
        extra: dict[str, Any] = {"options": list(q.options), "all_options": q.all_options, "conversation": conversation}
        private: dict[str, Any] = {
            "correct_answer": q.correct_answer,
            "released_type": q.question_type,
            "end_index_in_shared_context": q.end_index,
            "shared_context_id": q.shared_context_id,
            "row": q.row,
            "stored_messages": stored,
        }
        return Item(
            id=item_id,
            context_id=entry.context_id,
            cluster=f"persona-{q.persona_id}",
            view=ItemView(suite="personamem", task="choice", question=q.question, extra=extra),
            gold=q.correct_answer,
            strata={
                "question_type": canonical_type(q.question_type),
                "released_type": q.question_type,
                "topic": q.topic,
                "context_length": entry.length,
                "persona": q.persona_id,
            },
            private=private,
        )

    def describe(self) -> dict[str, Any]:
        return {
            "sample": self.sample,
            "seeds": list(self.seeds),
            "fill": self.fill,
            "files": {length: [str(f.questions_path.name) for f in files] for length, files in self.files.items()},
        }

    def data_files(self) -> list[Path]:
        return [p for files in self.files.values() for f in files for p in (f.questions_path, f.contexts_path)]


@lru_cache(maxsize=2)
def _load(path: Path, offset: int) -> tuple[Turn, ...]:
    """A shared context's messages; the last two read are kept (a context's questions come together)."""
    return tuple(load_context(path, offset))


def _messages(turns: Sequence[Turn], start: int, stop: int) -> tuple[Message, ...]:
    return tuple(Message(role=t.role, content=t.content, id=f"m{i}") for i, t in enumerate(turns[start:stop], start))
