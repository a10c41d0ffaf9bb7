"""A small generated sample of HaluMem in the released format (not the benchmark).

The release (CC-BY-NC-ND-4.0) is read from the user's download; without it the suite runs on
this sample, written as `HaluMem-Medium.jsonl` and `HaluMem-Long.jsonl` and read by the same
loader. Each user's sessions state one fact each about the user (a `system` or `secondary`
memory point), some update an earlier fact (`is_update` "True" with its `original_memories`),
some carry an interference point (the assistant asserts a wrong fact and the user lets it
pass), and about two sessions in three have questions of the six types. The Long file adds
generated filler sessions between them (`is_generated_qa_session`), as the release does.

Every fact follows one wording ("my <attribute> is <value>"), so that the offline reader and
the offline judge have something to read; the release's text is free.

    python -m pytest_memeval.suites.halumem.sample DIR [SEED] [SIZE]   # writes both files
"""

from __future__ import annotations

import json
import os
import random
import sys
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

#: bump when the sample's content changes (the cached copy is rewritten)
VERSION = "1"
DEFAULT_SEED = 2025
FILES = {"medium": "HaluMem-Medium.jsonl", "long": "HaluMem-Long.jsonl"}
#: size -> (users, sessions per user)
SHAPES = {"smoke": (2, 4), "small": (3, 6), "full": (4, 9)}
TIME_FORMAT = "%b %d, %Y, %H:%M:%S"

NAMES = ("Ada Lind", "Tomas Reyes", "Mei Okafor", "Lars Brandt", "Nina Petrova", "Omar Haddad")
#: attribute -> values (the first values are stated, later ones replace them in updates)
ATTRIBUTES = {
    "favourite drink": ("green tea", "black coffee", "mango lassi", "sparkling water"),
    "home city": ("Valencia", "Lisbon", "Tallinn", "Osaka"),
    "job": ("marine biologist", "school librarian", "bridge engineer", "pastry chef"),
    "pet": ("a grey parrot", "a beagle", "two goldfish", "a tabby cat"),
    "weekend sport": ("bouldering", "rowing", "table tennis", "trail running"),
    "musical instrument": ("the cello", "the banjo", "the harmonica", "the oboe"),
}
#: attributes no session mentions (Memory Boundary questions ask about them)
UNKNOWN = ("blood group", "shoe measurement", "passport digits")
ANSWER_UNKNOWN = "The information is not mentioned in the conversations, so it is unknown."
MEMORY_TYPE = {
    "favourite drink": "Persona Memory",
    "home city": "Persona Memory",
    "job": "Persona Memory",
    "pet": "Relationship Memory",
    "weekend sport": "Event Memory",
    "musical instrument": "Event Memory",
}


@dataclass
class Fact:
    attribute: str
    value: str

    def point(self, name: str) -> str:
        return f"{name}'s {self.attribute} is {self.value}."


def write_sample(directory: Path, seed: int = DEFAULT_SEED, size: str = "smoke") -> None:
    """Both files of the sample under `directory` (atomically, so that workers may race)."""
    directory.mkdir(parents=True, exist_ok=True)
    users = make_users(seed, size)
    for variant, name in FILES.items():
        lines = [json.dumps(long_version(u, seed) if variant == "long" else u, ensure_ascii=False) for u in users]
        partial = directory / f".{name}.{os.getpid()}.part"
        partial.write_text("\n".join(lines) + "\n", encoding="utf-8")
        partial.replace(directory / name)


def make_users(seed: int, size: str) -> list[dict[str, Any]]:
    n_users, n_sessions = SHAPES[size]
    rng = random.Random(f"halumem-sample-{seed}")
    return [make_user(rng, NAMES[i % len(NAMES)], n_sessions) for i in range(n_users)]


def make_user(rng: random.Random, name: str, n_sessions: int) -> dict[str, Any]:
    start = datetime(2025, 1, 6, 9, 0, 0) + timedelta(days=rng.randrange(60))
    known: dict[str, Fact] = {}
    attributes = list(ATTRIBUTES)
    rng.shuffle(attributes)
    sessions = []
    for position in range(n_sessions):
        when = start + timedelta(days=3 * position, minutes=rng.randrange(600))
        stale = [a for a in known if known[a].value == ATTRIBUTES[a][0]]
        if position >= 2 and stale and rng.random() < 0.5:
            attribute = rng.choice(sorted(stale))
            sessions.append(update_session(rng, name, known, attribute, when))
        else:
            attribute = attributes[position % len(attributes)]
            sessions.append(fact_session(rng, name, known, attribute, when))
    user_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    persona = (
        f"[Recorded on {start:%b %d, %Y}] Name: {name}; Gender: Unspecified; Birth Date: 1990-0{rng.randrange(1, 9)}-1"
        f"{rng.randrange(10)}; Location: {ATTRIBUTES['home city'][0]}; Current Age: 35; Tags: sample, generated."
    )
    return {
        "uuid": user_id,
        "persona_info": persona,
        "sessions": sessions,
        "total_dialogue_token_length": sum(s["dialogue_token_length"] for s in sessions),
        "total_question_count": sum(s.get("question_count", 0) for s in sessions),
        "token_cost": {"current_stage": "sample"},
    }


def fact_session(
    rng: random.Random, name: str, known: dict[str, Fact], attribute: str, when: datetime
) -> dict[str, Any]:
    fact = Fact(attribute, ATTRIBUTES[attribute][0])
    known[attribute] = fact
    rounds = [
        (f"By the way, my {attribute} is {fact.value}.", "Thanks for telling me, I will remember that."),
    ]
    points = [point(fact.point(name), attribute, "system", "False", (), 1.0, when)]
    others = [a for a in ATTRIBUTES if a not in known]
    if others and rng.random() < 0.5:
        wrong = Fact(others[0], ATTRIBUTES[others[0]][-1])
        rounds.append(
            (
                "Could you suggest a quiet evening plan?",
                f"Sure. Since your {wrong.attribute} is {wrong.value}, try that tonight.",
            )
        )
        rounds.append(("Maybe, let us leave it there.", "Of course."))
        points.append(point(wrong.point(name), wrong.attribute, "interference", "False", (), None, when))
    return session(rng, name, known, rounds, points, when, asked=fact)


def update_session(
    rng: random.Random, name: str, known: dict[str, Fact], attribute: str, when: datetime
) -> dict[str, Any]:
    old = known[attribute]
    new = Fact(attribute, ATTRIBUTES[attribute][1])
    known[attribute] = new
    rounds = [
        (f"Update on me: my {attribute} is {new.value} now, no longer {old.value}.", "Got it, I have updated that.")
    ]
    points = [point(new.point(name), attribute, "secondary", "True", (old.point(name),), 0.75, when)]
    return session(rng, name, known, rounds, points, when, asked=new, replaced=old)


def point(
    content: str,
    attribute: str,
    source: str,
    is_update: str,
    original: tuple[str, ...],
    importance: float | None,
    when: datetime,
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "index": 0,
        "memory_content": content,
        "memory_type": MEMORY_TYPE[attribute],
        "is_update": is_update,
        "original_memories": list(original),
        "memory_source": source,
    }
    if importance is not None:  # the release's interference points have no importance
        data["importance"] = importance
    data["timestamp"] = f"{when:{TIME_FORMAT}}"
    return data


def session(
    rng: random.Random,
    name: str,
    known: dict[str, Fact],
    rounds: list[tuple[str, str]],
    points: list[dict[str, Any]],
    when: datetime,
    asked: Fact,
    replaced: Fact | None = None,
) -> dict[str, Any]:
    dialogue: list[dict[str, Any]] = []
    for turn, (user, assistant) in enumerate(rounds):
        stamp = f"{when + timedelta(minutes=2 * turn):{TIME_FORMAT}}"
        dialogue.append({"role": "user", "content": user, "timestamp": stamp, "dialogue_turn": turn})
        dialogue.append({"role": "assistant", "content": assistant, "timestamp": stamp, "dialogue_turn": turn})
    for index, p in enumerate(points, 1):
        p["index"] = index
    end = when + timedelta(minutes=2 * len(rounds))
    data: dict[str, Any] = {
        "start_time": f"{when:{TIME_FORMAT}}",
        "end_time": f"{end:{TIME_FORMAT}}",
        "memory_points_count": len(points),
        "memory_points": points,
        "dialogue_turn_num": len(rounds),
        "dialogue": dialogue,
        "dialogue_token_length": sum(len(t["content"].split()) for t in dialogue),
    }
    if rng.random() < 0.7:
        questions = make_questions(rng, name, known, asked, replaced)
        data["questions"] = questions
        data["question_count"] = len(questions)
    return data


def make_questions(
    rng: random.Random, name: str, known: dict[str, Fact], asked: Fact, replaced: Fact | None
) -> list[dict[str, Any]]:
    def evidence(*facts: Fact) -> list[dict[str, str]]:
        return [{"memory_content": f.point(name), "memory_type": MEMORY_TYPE[f.attribute]} for f in facts]

    def question(
        text: str, answer: str, kind: str, facts: tuple[Fact, ...], difficulty: str = "easy"
    ) -> dict[str, Any]:
        return {
            "question": text,
            "answer": answer,
            "evidence": evidence(*facts),
            "difficulty": difficulty,
            "question_type": kind,
        }

    if replaced is not None:
        out = [question(f"What is {name}'s {asked.attribute} now?", asked.value, "Dynamic Update", (asked,), "medium")]
        false = f"Since {name}'s {asked.attribute} is still {replaced.value}, what should I keep in mind?"
        out.append(question(false, asked.value, "Memory Conflict", (asked,), "hard"))
        return out
    out = [question(f"What is {name}'s {asked.attribute}?", asked.value, "Basic Fact Recall", (asked,))]
    kind = rng.choice(("Memory Boundary", "Multi-hop Inference", "Generalization & Application"))
    others = [f for a, f in sorted(known.items()) if a != asked.attribute]
    if kind == "Memory Boundary" or not others:
        unknown = rng.choice(UNKNOWN)
        out.append(question(f"What is {name}'s {unknown}?", ANSWER_UNKNOWN, "Memory Boundary", (), "medium"))
    elif kind == "Multi-hop Inference":
        other = rng.choice(others)
        text = f"What is {name}'s {asked.attribute}, and what is {name}'s {other.attribute}?"
        out.append(question(text, f"{asked.value} and {other.value}", kind, (asked, other), "hard"))
    else:
        text = f"I am planning a gift for {name}: which {asked.attribute} would suit {name} best?"
        out.append(question(text, asked.value, kind, (asked,), "medium"))
    return out


def long_version(user: dict[str, Any], seed: int) -> dict[str, Any]:
    """The user as the Long file has it: a generated filler session after every second
    session (never first or last), and every session numbered by `session_id`."""
    rng = random.Random(f"halumem-sample-long-{seed}-{user['uuid']}")
    sessions: list[dict[str, Any]] = []
    for position, s in enumerate(user["sessions"]):
        sessions.append(dict(s))
        if position % 2 == 1 and position < len(user["sessions"]) - 1:
            sessions.append(filler(rng, s["end_time"]))
    for number, s in enumerate(sessions):
        s["session_id"] = number
    return {**user, "sessions": sessions}


def filler(rng: random.Random, time: str) -> dict[str, Any]:
    a, b = rng.randrange(10, 99), rng.randrange(10, 99)
    dialogue = [
        {"role": "user", "content": f"What is {a} plus {b}?", "timestamp": time},
        {"role": "assistant", "content": f"{a} plus {b} is {a + b}.", "timestamp": time},
    ]
    return {
        "start_time": time,
        "end_time": time,
        "title": "Pure_QA_Session",
        "memory_points_count": 0,
        "memory_points": [],
        "dialogue_turn_num": 1,
        "dialogue_token_length": 12,
        "dialogue": dialogue,
        "questions": [],
        "question_count": 0,
        "is_generated_qa_session": True,
        "generation_source": "stage6_3_supplement",
    }


if __name__ == "__main__":  # pragma: no cover - a convenience for looking at the sample
    write_sample(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else DEFAULT_SEED, *sys.argv[3:4])
