"""Which conversations and questions a run uses, and each conversation as a context.

The data: `--memeval-data DIR` is a clone of github.com/mohammadtavakoli78/BEAM (DIR/chats/
...); without it the generated sample (sample.py) is written once under the cache
directory and read by the same code. The `scale` suite option picks the scales (100K,
500K, 1M, 10M; default: every scale DIR/chats holds); the run's size how many
conversations of each: smoke the first, small the first 3, full all of them (by number,
as answer_generation.py orders them). Every question of a conversation runs: 10 abilities
x 2.

One context per conversation: its chat streamed from the file batch by batch as the
memory system ingests it (one session per batch, so the progress line counts batches); a
message keeps its content as shipped ("->-> 1,2" markers included, as the official
baselines read it), its id in the file as `Message.id`, and its batch's time anchor as
`Message.timestamp` (an ISO date). The cluster of an item is its conversation; its evidence
(`Item.evidence`) the messages its `source_chat_ids` name.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_memeval.errors import ConfigError, DataError
from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.types import Context, Evidence, Item, ItemView, Message

from .released import QUESTIONS_FILE, SCALES, Question, batches, chat_file, conversation_dirs, read_questions
from .sample import VERSION, write_sample
from .scoring import scoring_setting

DOWNLOAD = "git clone https://github.com/mohammadtavakoli78/BEAM (or the Hugging Face datasets Mohammadta/BEAM, -10M)"
#: size -> conversations per scale (None: all)
SIZES: dict[str, int | None] = {"smoke": 1, "small": 3, "full": None}
DEFAULT_SEED = 0


def scale_setting(raw: str | None) -> tuple[str, ...] | None:
    """--memeval-suite-option beam.scale: scales joined by commas, any case (None: every
    scale the data holds)."""
    if raw is None:
        return None
    by_name = {s.lower(): s for s in SCALES}
    asked = [part.strip().lower() for part in raw.split(",") if part.strip()]
    unknown = [part for part in asked if part not in by_name]
    if unknown or not asked:
        raise ConfigError(
            f"--memeval-suite-option beam.scale={raw}: scales among {', '.join(SCALES)}, joined by commas"
        )
    return tuple(s for s in SCALES if s.lower() in asked)


def marker_of(scale: str) -> str:
    return f"beam_{scale.lower()}"


@dataclass(frozen=True)
class Conversation:
    scale: str
    number: int
    chat: Path
    questions: tuple[Question, ...]

    @property
    def id(self) -> str:
        return f"{self.scale}-{self.number}"


def item_id(conversation: Conversation, question: Question) -> str:
    return f"{conversation.id}-{question.ability}-{question.position + 1}"


class Catalog:
    def __init__(self, options: SuiteOptions) -> None:
        self.options = options
        self.scoring = scoring_setting(options.params.get("scoring"))
        self.scales = scale_setting(options.params.get("scale"))
        self.seed = options.seeds[0] if options.seeds else DEFAULT_SEED
        self.sample = options.data_dir is None
        self.root = self._sample_root() if self.sample else _release_root(options.data_dir)
        self.conversations = {c.id: c for c in self._conversations()}
        self.items = {item_id(c, q): (c, q) for c in self.conversations.values() for q in c.questions}
        self._sources: dict[str, dict[str, Message]] = {}

    def _sample_root(self) -> Path:
        root = self.options.cache_dir / "beam" / f"sample-v{VERSION}-{self.options.size}-seed{self.seed}"
        if not (root / "chats").is_dir():
            # written aside and renamed: xdist workers may write it at once
            partial = root.with_name(f".{root.name}.{os.getpid()}.part")
            shutil.rmtree(partial, ignore_errors=True)
            write_sample(partial, self.options.size, self.seed)
            try:
                partial.rename(root)
            except OSError:
                shutil.rmtree(partial, ignore_errors=True)  # another process renamed its copy first
        return root

    def _conversations(self) -> Iterator[Conversation]:
        held = [s for s in SCALES if conversation_dirs(self.root, s)]
        scales = self.scales or tuple(held)
        if not scales:
            raise ConfigError(f"--memeval-data {self.root}: no chats/<scale>/<N>/ directories ({DOWNLOAD})")
        limit = SIZES[self.options.size]
        for scale in scales:
            directories = conversation_dirs(self.root, scale)
            if not directories:
                raise ConfigError(f"--memeval-data {self.root}: no chats/{scale}/<N>/ (scales held: {', '.join(held)})")
            for directory in directories[:limit]:
                chat = chat_file(directory)
                where = directory.relative_to(self.root)
                if chat is None:
                    raise ConfigError(
                        f"--memeval-data: {where} has no chat.json (a clone without its large files? "
                        "git lfs or the Hugging Face release has them; beam.scale picks the scales to run)"
                    )
                if not (directory / QUESTIONS_FILE).is_file():
                    raise ConfigError(f"--memeval-data: {where} has no {QUESTIONS_FILE}")
                yield Conversation(scale, int(directory.name), chat, read_questions(directory / QUESTIONS_FILE))

    def entry(self, item: str) -> tuple[Conversation, Question]:
        try:
            return self.items[item]
        except KeyError:
            raise DataError(f"no beam item {item!r} in this run") from None

    def context(self, context_id: str) -> Context:
        try:
            conversation = self.conversations[context_id]
        except KeyError:
            raise DataError(f"no beam conversation {context_id!r} in this run") from None
        return Context(context_id, Chat(conversation.chat))

    def item(self, item: str) -> Item:
        conversation, q = self.entry(item)
        return Item(
            id=item,
            context_id=conversation.id,
            cluster=conversation.id,
            view=ItemView(suite="beam", task=q.ability, question=q.question),
            gold=list(q.rubric),
            strata={"ability": q.ability, "scale": conversation.scale, "difficulty": q.difficulty},
            private={"rubric": list(q.rubric), "reference": q.reference, "scoring": self.scoring},
            evidence=self._evidence(conversation, q),
        )

    def _evidence(self, conversation: Conversation, q: Question) -> Evidence | None:
        """The question's source messages (`source_chat_ids`) as the context stores them; None
        for a question without any (abstention questions)."""
        if conversation.id not in self._sources:
            # one pass per conversation and process, up to the last message any question names
            wanted = {str(i) for question in conversation.questions for i in question.source_ids}
            found: dict[str, Message] = {}
            for session in Chat(conversation.chat):
                found.update((m.id, m) for m in session if m.id in wanted)
                if len(found) == len(wanted):
                    break
            self._sources[conversation.id] = found
        held = self._sources[conversation.id]
        messages = tuple(held[str(i)] for i in q.source_ids if str(i) in held)
        return Evidence(messages) if messages else None

    def describe(self) -> dict[str, Any]:
        """What the report says about the data."""
        by_scale: dict[str, int] = {}
        for c in self.conversations.values():
            by_scale[c.scale] = by_scale.get(c.scale, 0) + 1
        return {
            "sample": self.sample,
            "conversations": by_scale,
            "questions": len(self.items),
            "truncated_chats": sum(c.chat.name != "chat.json" for c in self.conversations.values()),
            "scoring": self.scoring,
        }


class Chat(Sequence[tuple[Message, ...]]):
    """A conversation's batches as sessions, read from its file each time they are iterated
    (one batch held at a time)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._length: int | None = None

    def __len__(self) -> int:
        if self._length is None:
            self._length = sum(1 for _ in batches(self.path))
        return self._length

    def __iter__(self) -> Iterator[tuple[Message, ...]]:
        for batch in batches(self.path):
            yield tuple(Message(m.role, m.content, timestamp=m.date, id=str(m.id)) for m in batch)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self)[index]
        position = index if index >= 0 else len(self) + index
        for n, session in enumerate(self):
            if n == position:
                return session
        raise IndexError(index)


def _release_root(directory: Path | None) -> Path:
    assert directory is not None
    if not (directory / "chats").is_dir():
        raise ConfigError(f"--memeval-data {directory}: no chats/ directory (a clone of BEAM: {DOWNLOAD})")
    return directory
