"""A small generated sample of LongMemEval in the released format (not the benchmark).

The released data lives on Hugging Face; without it the suite runs on this sample, read
by the same loader as the real files. It has the release's three files (oracle: the
evidence sessions only; s: a few filler sessions around them; m: many), the same
questions in each: two of every question type and four abstention questions, whose gold
the generator writes as the release does (an answer, a rubric for preferences, an
explanation for abstentions). Evidence sessions' ids start with "answer_" and their
evidence turns carry `has_answer: true`, as in the release.

Every evidence sentence follows one of a few wordings (see `Facts`), so that the suite's
offline reader can answer from what a memory system returns; filler sessions are generic
requests that state nothing about the user.

    python -m pytest_memeval.suites.longmemeval.sample DIR   # writes the three files
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from .released import ABSTENTION_MARK

#: bump when the sample's content changes (the cached copy is rewritten)
VERSION = "1"
DEFAULT_SEED = 2025
FILES = {"s": "longmemeval_s_cleaned.json", "m": "longmemeval_m_cleaned.json", "oracle": "longmemeval_oracle.json"}
#: filler sessions per question in each file
FILLERS = {"oracle": 0, "s": 6, "m": 30}
DATE_FORMAT = "%Y/%m/%d (%a) %H:%M"


@dataclass
class Draft:
    """One question before its haystack is laid out: its evidence sessions in order."""

    question_id: str
    question_type: str
    question: str
    answer: str | int
    #: each evidence session as turns; a turn is (role, content, has_answer)
    sessions: list[list[tuple[str, str, bool]]]
    #: days from the first evidence session to each (0 first; one per session)
    gaps: list[int] = field(default_factory=list)
    #: days from the last evidence session to the question
    asked_after: int = 3


# --- the wordings the offline reader knows ------------------------------------------------


def stated(attribute: str, value: str) -> str:
    return f"I should mention that {attribute} is {value}."


def updated(attribute: str, value: str) -> str:
    return f"Quick update: {attribute} is now {value}."


def recommended(value: str, purpose: str) -> str:
    return f"I recommend {value} for {purpose}."


def liked(preference: str) -> str:
    return f"I've been really into {preference} lately."


def happened(event: str) -> str:
    return f"Today I {event}."


def counted(noun: str, verb: str, thing: str) -> str:
    return f"Add this to the {noun} I have {verb}: {thing}."


ATTRIBUTES = [
    ("the name of my new puppy", "Biscuit", "the name of my new kitten"),
    ("my favourite coffee shop", "Blue Heron Cafe", "my favourite bakery"),
    ("my sister's hometown", "Tromso", "my brother's hometown"),
    ("the colour of my new bike", "teal", "the colour of my new car"),
    ("my gym's opening hour", "6 am", "my pool's opening hour"),
    ("my manager's name", "Priya", "my mentor's name"),
]
UPDATES = [
    ("my commute time", "40 minutes", "25 minutes", "my lunch break"),
    ("my running distance per week", "12 km", "20 km", "my cycling distance per week"),
    ("the number of books on my shelf", "35", "48", "the number of records on my shelf"),
]
RECOMMENDATIONS = [
    ("The Left Hand of Darkness", "a long train ride", "Can you suggest a novel for a long train ride?"),
    ("a cast-iron skillet", "searing steaks at home", "What pan should I get for searing steaks at home?"),
    ("the Kungsleden trail", "a week of hiking in Sweden", "Where could I go for a week of hiking in Sweden?"),
]
PREFERENCES = [
    ("Korean street food", "a dinner recipe", "Can you suggest a dinner recipe for this weekend?"),
    ("watercolour painting", "a relaxing hobby", "Can you suggest a relaxing hobby for this weekend?"),
    ("jazz piano", "a playlist", "Can you suggest a playlist for this weekend?"),
]
EVENTS = [
    ("planted tomatoes in the backyard", "harvested the first tomatoes", "sold tomatoes at the market"),
    ("started a pottery course", "finished my first vase", "glazed a teapot"),
    ("booked flights to Lisbon", "landed in Lisbon", "flew back from Porto"),
]
COLLECTIONS = [
    ("plants", "planted in the garden", ["a fig tree", "a lavender bush", "a lemon tree"], "rose bushes"),
    ("classes", "signed up for", ["a salsa class", "a coding bootcamp", "a first-aid course"], "workshops"),
    ("board games", "bought", ["Catan", "Azul", "Wingspan"], "puzzles"),
]
FILLER_TOPICS = [
    "writing a haiku about autumn",
    "converting 3 cups to millilitres",
    "the rules of chess castling",
    "how photosynthesis works",
    "a packing list for a weekend trip",
    "the plot of Hamlet",
    "tips for a job interview",
    "how to fold a paper crane",
    "the difference between weather and climate",
    "a warm-up routine before running",
    "how compound interest works",
    "naming a sourdough starter",
]


def _reply(topic: str) -> str:
    return f"Sure, here is a short overview of {topic}. Start with the basics, then practise a little every day."


def _ask(topic: str) -> str:
    return f"Can you help me with {topic}?"


def _session(lines: Sequence[tuple[str, str, bool]], rng: random.Random) -> list[tuple[str, str, bool]]:
    """An evidence session: a generic exchange around the evidence turns."""
    topic = rng.choice(FILLER_TOPICS)
    return [("user", _ask(topic), False), ("assistant", _reply(topic), False), *lines]


def _said(text: str, reply: str = "Thanks for letting me know, I'll keep that in mind.") -> list[tuple[str, str, bool]]:
    return [("user", text, True), ("assistant", reply, False)]


def drafts(seed: int = DEFAULT_SEED) -> list[Draft]:
    """The sample's questions: two of every type, then four abstention questions."""
    rng = random.Random(seed)
    out: list[Draft] = []

    def qid(kind: str) -> str:
        return hashlib.sha256(f"{seed}-{kind}-{len(out)}".encode()).hexdigest()[:8]

    for attribute, value, _ in rng.sample(ATTRIBUTES, 2):
        out.append(
            Draft(
                qid("ssu"),
                "single-session-user",
                f"What is {attribute}?",
                value,
                [_session(_said(stated(attribute, value)), rng)],
            )
        )
    for value, purpose, request in rng.sample(RECOMMENDATIONS, 2):
        turns = [("user", request, False), ("assistant", recommended(value, purpose), True)]
        out.append(
            Draft(
                qid("ssa"),
                "single-session-assistant",
                f"What did you recommend for {purpose}?",
                value,
                [_session(turns, rng)],
            )
        )
    for preference, thing, request in rng.sample(PREFERENCES, 2):
        rubric = (
            f'The user would prefer suggestions of {thing} involving "{preference}", drawing on their stated '
            "interest. They might not prefer generic suggestions that ignore it."
        )
        out.append(
            Draft(qid("ssp"), "single-session-preference", request, rubric, [_session(_said(liked(preference)), rng)])
        )
    first, second, _ = EVENTS[0]
    days = rng.randint(9, 30)
    out.append(
        Draft(
            qid("tr"),
            "temporal-reasoning",
            f"How many days passed between the day I {first} and the day I {second}?",
            f"{days} days",
            [_session(_said(happened(first)), rng), _session(_said(happened(second)), rng)],
            gaps=[0, days],
        )
    )
    event = EVENTS[1][0]
    ago = rng.randint(5, 20)
    out.append(
        Draft(
            qid("tr"),
            "temporal-reasoning",
            f"How many days have passed since the day I {event}?",
            f"{ago} days",
            [_session(_said(happened(event)), rng)],
            gaps=[0],
            asked_after=ago,
        )
    )
    for attribute, old, new, _ in rng.sample(UPDATES, 2):
        out.append(
            Draft(
                qid("ku"),
                "knowledge-update",
                f"What is {attribute}?",
                new,
                [_session(_said(stated(attribute, old)), rng), _session(_said(updated(attribute, new)), rng)],
                gaps=[0, rng.randint(10, 40)],
            )
        )
    for noun, verb, things, _ in rng.sample(COLLECTIONS, 2):
        sessions = [_session(_said(counted(noun, verb, thing)), rng) for thing in things]
        out.append(
            Draft(
                qid("ms"),
                "multi-session",
                f"How many {noun} have I {verb}?",
                len(things),  # a number, as some released answers are
                sessions,
                gaps=[0, *sorted(rng.sample(range(1, 60), len(things) - 1))],
            )
        )
    out.extend(_abstentions(rng, qid))
    for draft in out:
        draft.gaps = draft.gaps or [0] * len(draft.sessions)
    return out


def _abstentions(rng: random.Random, qid: Any) -> list[Draft]:
    """Questions about something the history never states, next to something it does."""
    attribute, value, missing = rng.choice(ATTRIBUTES)
    counted_noun, verb, things, other_noun = rng.choice(COLLECTIONS)
    start, _, never = EVENTS[2]
    update_attribute, old, new, other_attribute = rng.choice(UPDATES)

    def why(said: str, asked: str) -> str:
        said, asked = (text.replace("my ", "your ") for text in (said, asked))
        return f"The information provided is not enough. You mentioned {said} but not {asked}."

    return [
        Draft(
            qid("ssu") + ABSTENTION_MARK,
            "single-session-user",
            f"What is {missing}?",
            why(attribute, missing),
            [_session(_said(stated(attribute, value)), rng)],
        ),
        Draft(
            qid("ms") + ABSTENTION_MARK,
            "multi-session",
            f"How many {other_noun} have I {verb}?",
            why(f"the {counted_noun} you {verb}", f"any {other_noun}"),
            [_session(_said(counted(counted_noun, verb, thing)), rng) for thing in things[:2]],
            gaps=[0, rng.randint(3, 20)],
        ),
        Draft(
            qid("tr") + ABSTENTION_MARK,
            "temporal-reasoning",
            f"How many days passed between the day I {start} and the day I {never}?",
            why(f"the day you {start}", f"the day you {never}"),
            [_session(_said(happened(start)), rng)],
        ),
        Draft(
            qid("ku") + ABSTENTION_MARK,
            "knowledge-update",
            f"What is {other_attribute}?",
            why(update_attribute, other_attribute),
            [_session(_said(stated(update_attribute, old)), rng), _session(_said(updated(update_attribute, new)), rng)],
            gaps=[0, rng.randint(10, 40)],
        ),
    ]


def question_objects(
    variant: str, seed: int = DEFAULT_SEED, fillers: int | None = None, filler_turns: int = 2
) -> Iterator[dict[str, Any]]:
    """The released objects of one file, one at a time. `fillers` and `filler_turns` size the
    haystack (the defaults are the variant's; tests make large files with them)."""
    count = FILLERS[variant] if fillers is None else fillers
    for draft in drafts(seed):
        yield _laid_out(draft, random.Random(f"{seed}-{draft.question_id}"), count, filler_turns)


def _laid_out(draft: Draft, rng: random.Random, fillers: int, filler_turns: int) -> dict[str, Any]:
    """The draft's evidence sessions among `fillers` filler sessions, all in date order; the
    evidence sessions on the days its `gaps` say, the question `asked_after` days after the last."""
    base = datetime(2023, 1, 2, 9, 0) + timedelta(days=rng.randint(0, 90))
    evidence_ids = [
        f"answer_{draft.question_id.removesuffix(ABSTENTION_MARK)}_{n + 1}" for n in range(len(draft.sessions))
    ]
    dated = [
        (base + timedelta(days=gap, minutes=rng.randint(0, 600)), session_id, [_turn(*turn) for turn in turns])
        for gap, session_id, turns in zip(draft.gaps, evidence_ids, draft.sessions)
    ]
    asked = base + timedelta(days=draft.gaps[-1] + draft.asked_after, hours=12)
    earliest, latest = base - timedelta(days=30), asked - timedelta(hours=2)
    span = int((latest - earliest).total_seconds() // 60)
    for n in range(fillers):
        day = earliest + timedelta(minutes=rng.randint(0, span))
        dated.append((day, f"sharegpt_{rng.getrandbits(32):08x}_{n}", _filler(rng, filler_turns)))
    dated.sort(key=lambda entry: entry[0])
    return {
        "question_id": draft.question_id,
        "question_type": draft.question_type,
        "question": draft.question,
        "answer": draft.answer,
        "question_date": asked.strftime(DATE_FORMAT),
        "haystack_session_ids": [session_id for _, session_id, _ in dated],
        "haystack_dates": [day.strftime(DATE_FORMAT) for day, _, _ in dated],
        "haystack_sessions": [turns for _, _, turns in dated],
        "answer_session_ids": evidence_ids,
    }


def _turn(role: str, content: str, has_answer: bool) -> dict[str, Any]:
    return {"role": role, "content": content, "has_answer": has_answer}


def _filler(rng: random.Random, turns: int) -> list[dict[str, Any]]:
    out = []
    for _ in range(turns // 2 or 1):
        topic = rng.choice(FILLER_TOPICS)
        out += [{"role": "user", "content": _ask(topic)}, {"role": "assistant", "content": _reply(topic)}]
    return out


def write_file(path: Path, objects: Iterator[dict[str, Any]]) -> None:
    """One released file, written object by object, atomically (a reader never sees half)."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.part")
    with partial.open("w", encoding="utf-8") as handle:
        handle.write("[")
        for n, obj in enumerate(objects):
            handle.write(("," if n else "") + json.dumps(obj))
        handle.write("]")
    partial.replace(path)


def write_sample(directory: Path, seed: int = DEFAULT_SEED) -> dict[str, Path]:
    """The three files of the sample under `directory`; their paths by variant."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = {}
    for variant, name in FILES.items():
        paths[variant] = directory / name
        write_file(paths[variant], question_objects(variant, seed))
    return paths


def main(argv: Sequence[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m pytest_memeval.suites.longmemeval.sample DIR", file=sys.stderr)
        return 4
    for path in write_sample(Path(argv[0])).values():
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
