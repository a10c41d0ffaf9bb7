"""Which conversations and questions a run uses, as contexts and items.

The data is the release (`--memeval-data DIR` holding `locomo10.json`) or, without it, the
generated sample (sample.py), read by the same loader. One context per conversation: its
sessions in the order of their numbers, each turn one message whose id is its dia_id
(which carries no gold) and whose text is `<session date> | <speaker>: <text>`, the
line Mem0's full-context baseline writes, with ` and shared <blip_caption>` on image
turns as the official scripts write them. Speaker A's turns are the user's, speaker B's
the assistant's, as Mem0's evaluation files speaker A's store.

One item per question of the selected categories, its id `<sample_id>-q<index>` (the
question's position in the released `qa`). Sizes: the release gives the first 10 (smoke)
or 50 (small) selected questions of each conversation, or all (full); the sample has 4, 8
or 16 conversations per seed and every question.

Category 5 is asked as the official scripts ask it: the question, then "Select the
correct answer: (a) ... (b) ...", one option "Not mentioned in the conversation" and the
other the distractor, in an order fixed by the item id; its gold is the first option.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_memeval.errors import DataError
from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.types import Context, Evidence, Item, ItemView, Message

from .categories import label
from .released import QA, Conversation, Release, Turn, find_file, load_release, parse_release
from .sample import DEFAULT_SEED, sample_bytes

NOT_MENTIONED = "Not mentioned in the conversation"
RELEASED_PER_CONVERSATION = {"smoke": 10, "small": 50, "full": None}
SAMPLE_CONVERSATIONS = {"smoke": 4, "small": 8, "full": 16}


@dataclass(frozen=True)
class Source:
    """Where the run's conversations come from, as the summary states it."""

    #: "release" or "sample"
    kind: str
    description: str
    sha256: tuple[str, ...]


def turn_text(turn: Turn, date_time: str) -> str:
    text = f"{date_time} | {turn.speaker}: {turn.text}"
    return f"{text} and shared {turn.blip_caption}" if turn.blip_caption is not None else text


def options_question(question: str, item_id: str, distractor: str) -> tuple[str, tuple[str, str]]:
    """Category 5 as the official scripts ask it, with the option order fixed by the item id."""
    first = hashlib.sha256(item_id.encode()).digest()[0] % 2 == 0
    options = (NOT_MENTIONED, distractor) if first else (distractor, NOT_MENTIONED)
    return f"{question} Select the correct answer: (a) {options[0]} (b) {options[1]}. ", options


class Catalog:
    def __init__(self, options: SuiteOptions, categories: tuple[int, ...], reading: str) -> None:
        self.options, self.categories, self.reading = options, categories, reading
        releases: list[Release]
        if options.data_dir is not None:
            releases = [load_release(find_file(options.data_dir))]
            self.source = Source("release", f"{releases[0].path.name} (the LoCoMo release)", (releases[0].sha256,))
        else:
            seeds = options.seeds or (DEFAULT_SEED,)
            count = SAMPLE_CONVERSATIONS[options.size]
            releases = [
                parse_release(sample_bytes(seed, count), Path(f"generated sample (seed {seed})")) for seed in seeds
            ]
            self.source = Source(
                "sample",
                f"a generated sample (seeds {', '.join(map(str, seeds))}, {count} conversations each), "
                "not the LoCoMo benchmark; --memeval-data DIR reads locomo10.json",
                tuple(r.sha256 for r in releases),
            )
        self.notes = tuple(note for r in releases for note in r.notes)
        self.conversations = {c.sample_id: c for r in releases for c in r.conversations}
        if len(self.conversations) != sum(len(r.conversations) for r in releases):
            raise DataError("sample_id values repeat across the run's data")
        limit = RELEASED_PER_CONVERSATION[options.size] if self.source.kind == "release" else None
        self.questions: dict[str, tuple[Conversation, QA]] = {}
        self._messages: dict[str, dict[str | None, Message]] = {}
        for conversation in self.conversations.values():
            selected = [q for q in conversation.qa if q.category in categories][:limit]
            for qa in selected:
                self.questions[item_id(conversation.sample_id, qa.index)] = (conversation, qa)

    def context(self, context_id: str) -> Context:
        conversation = self.conversations.get(context_id)
        if conversation is None:
            raise DataError(f"no LoCoMo conversation {context_id!r} in this run")
        return Context(context_id, messages(conversation))

    def _turns(self, conversation: Conversation) -> dict[str | None, Message]:
        """The conversation's messages by dia_id (kept: every item of it reads them)."""
        if conversation.sample_id not in self._messages:
            turns = {m.id: m for session in messages(conversation) for m in session}
            self._messages[conversation.sample_id] = turns
        return self._messages[conversation.sample_id]

    def item(self, value: str) -> Item:
        found = self.questions.get(value)
        if found is None:
            raise DataError(f"no LoCoMo item {value!r} in this run")
        conversation, qa = found
        private: dict[str, Any] = {
            "category": qa.category,
            "evidence": list(qa.evidence),
            "raw_evidence": list(qa.raw_evidence),
        }
        extra: dict[str, Any] = {}
        question, gold = qa.question, qa.answer
        if qa.category == 5:
            distractor = qa.adversarial_answer or ""
            question, options = options_question(qa.question, value, distractor)
            extra["options"] = list(options)
            gold = NOT_MENTIONED
            private.update(adversarial_answer=distractor, released_answer=qa.answer)
        turns = self._turns(conversation)
        evidence = Evidence(tuple(turns[d] for d in qa.evidence)) if qa.evidence else None
        return Item(
            id=value,
            context_id=conversation.sample_id,
            evidence=evidence,
            cluster=conversation.sample_id,
            view=ItemView(
                suite="locomo", task="options" if qa.category == 5 else "open", question=question, extra=extra
            ),
            gold=gold,
            strata={
                "category": str(qa.category),
                "category_name": label(qa.category, self.reading),
                "conversation": conversation.sample_id,
            },
            private=private,
        )


def messages(conversation: Conversation) -> tuple[tuple[Message, ...], ...]:
    """The conversation's sessions as stored: one message per turn, its dia_id its id."""
    roles = {conversation.speaker_a: "user", conversation.speaker_b: "assistant"}
    return tuple(
        tuple(
            Message(
                role=roles.get(turn.speaker, "user"),
                content=turn_text(turn, session.date_time),
                timestamp=session.date_time,
                id=turn.dia_id,
            )
            for turn in session.turns
        )
        for session in conversation.sessions
    )


def item_id(sample_id: str, index: int) -> str:
    return f"{sample_id}-q{index:03d}"
