"""A generated sample in the exact format of the PersonaMem release (released.py), for runs
without --memeval-data: the same two files per context length, written as the authors'
scripts write them (csv.writer rows with `\\r\\n`, `all_options` as the text of a Python list,
one JSON object per line, the shared context's id the sha256 of its messages' Python reprs
joined by spaces), deterministic in seed and size. It is not the benchmark.

Each persona's shared context is a run of sessions on a few topics: every session opens
with the persona's system message; a topic's first session states a preference, a later one
changes it and says why; in the 128k and 1M samples filler sessions about other things stand
between. As in the authors' generator, the questions about earlier sessions are asked at
the end of the text (the end index is the last message's, which the slice leaves out) and
those about the last session inside it, at one of its user turns. The token counts are
whitespace-separated words, a stand-in for the gpt-4o tokenizer's counts.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import random
import sys
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .released import PERSONA_PREFIX, contexts_file, questions_file

VERSION = "1"
DEFAULT_SEED = 0
#: personas per seed for each --memeval-size
PERSONAS = {"smoke": 2, "small": 4, "full": 8}
#: context length -> (topics per persona, filler sessions between two sessions)
LAYOUT = {"32k": (2, 0), "128k": (3, 1), "1M": (4, 2)}
HEADER = (
    "persona_id",
    "question_id",
    "question_type",
    "topic",
    "context_length_in_tokens",
    "context_length_in_letters",
    "distance_to_ref_in_blocks",
    "distance_to_ref_in_tokens",
    "num_irrelevant_tokens",
    "distance_to_ref_proportion_in_context",
    "user_question_or_message",
    "correct_answer",
    "all_options",
    "shared_context_id",
    "end_index_in_shared_context",
)
NAMES = ("Lena Ortiz", "Ravi Menon", "Aiko Tanaka", "Tomasz Nowak", "Grace Mensah", "Omar Haddad", "Ines Duarte")
JOBS = ("urban planner", "nurse", "data analyst", "carpenter", "librarian", "chef", "teacher")


@dataclass(frozen=True)
class Topic:
    name: str
    first: str
    then: str
    reason: str
    idea: str
    unrelated: tuple[str, str, str]


TOPICS = (
    Topic(
        "pottery",
        "wheel throwing",
        "hand building",
        "centering the clay on the wheel kept frustrating me",
        "a coil pot class",
        ("glass blowing", "origami cranes", "candle dipping"),
    ),
    Topic(
        "musicRecommendation",
        "heavy metal",
        "acoustic folk",
        "loud concerts started giving me headaches",
        "a fingerstyle guitar playlist",
        ("opera arias", "marching bands", "techno raves"),
    ),
    Topic(
        "foodRecommendation",
        "spicy curries",
        "mild mediterranean salads",
        "my doctor asked me to cut down on chili",
        "a lemon chickpea bowl",
        ("deep fried donuts", "raw oysters", "barbecue brisket"),
    ),
    Topic(
        "travelPlanning",
        "crowded city breaks",
        "quiet hiking trips",
        "the noise of big cities left me exhausted",
        "a hut to hut trail in the Alps",
        ("a cruise ship casino", "a shopping mall tour", "a theme park marathon"),
    ),
    Topic(
        "studyConsultation",
        "late night cramming",
        "short morning review sessions",
        "cramming ruined my sleep before exams",
        "flashcards with spaced repetition",
        ("group karaoke nights", "speed reading seminars", "a chess tournament"),
    ),
    Topic(
        "therapy",
        "journaling every evening",
        "walking meditation",
        "writing at night kept my mind racing",
        "a mindful breathing app",
        ("skydiving lessons", "competitive debating", "poker nights"),
    ),
)
FILLERS = (
    ("How do I convert Celsius to Fahrenheit?", "Multiply by nine fifths and add thirty two."),
    ("What is the capital of Australia?", "Canberra is the capital of Australia."),
    ("Can you explain what a prime number is?", "A prime has exactly two divisors, one and itself."),
)


def write_sample(directory: Path, size: str, length: str, seed: int) -> tuple[Path, Path]:
    """Write questions_<length>.csv and shared_contexts_<length>.jsonl into `directory`."""
    questions, contexts = sample_files(size, length, seed)
    directory.mkdir(parents=True, exist_ok=True)
    paths = (directory / questions_file(length), directory / contexts_file(length))
    for path, data in zip(paths, (questions, contexts)):
        partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
        partial.write_bytes(data)
        partial.replace(path)
    return paths


def sample_files(size: str, length: str, seed: int) -> tuple[bytes, bytes]:
    """The bytes of the two files."""
    rng = random.Random(f"personamem/{VERSION}/{length}/{seed}")
    rows: list[list[object]] = []
    lines: list[str] = []
    for persona in range(PERSONAS[size]):
        persona_id = seed * 100 + persona
        context, persona_rows = _persona(rng, persona_id, *LAYOUT[length])
        context_id = shared_context_id(context)
        lines.append(json.dumps({context_id: context}, ensure_ascii=False) + "\n")
        rows.extend([*row[:-2], context_id, row[-1]] for row in persona_rows)
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(HEADER)
    writer.writerows(rows)
    return out.getvalue().encode(), "".join(lines).encode()


def shared_context_id(messages: list[dict[str, str]]) -> str:
    """The authors' id of a shared context: the sha256 of its messages' reprs joined by spaces."""
    return hashlib.sha256(" ".join(map(str, messages)).encode()).hexdigest()


@dataclass
class _Session:
    topic: Topic
    update: bool
    start: int = 0


def _persona(
    rng: random.Random, persona_id: int, n_topics: int, fillers: int
) -> tuple[list[dict[str, str]], list[list[object]]]:
    name = NAMES[persona_id % len(NAMES)]
    topics = rng.sample(TOPICS, n_topics)
    persona = f"Name: {name}; Occupation: {rng.choice(JOBS)}; Hobbies: {', '.join(t.first for t in topics[:2])}."
    sessions = [_Session(t, False) for t in topics] + [_Session(t, True) for t in topics]
    messages: list[dict[str, str]] = []
    day = rng.randint(1, 20)
    last_lines: list[int] = []
    for number, session in enumerate(sessions):
        session.start = len(messages)
        messages.append({"role": "system", "content": PERSONA_PREFIX + persona})
        for _ in range(fillers if number else 0):
            question, answer = rng.choice(FILLERS)
            messages += [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]
        date = f"{(number % 12) + 1:02d}/{day:02d}/2024"
        for role, text in _turns(session):
            line = len(messages)
            messages.append({"role": role, "content": text})
            if role == "user" and number == len(sessions) - 1:
                last_lines.append(line)
        messages[session.start + 1 + 2 * (fillers if number else 0)]["content"] += f" ({date})"
    rows = [_row(rng, persona_id, messages, sessions, q, len(messages) - 1, fillers) for q in _end_questions(sessions)]
    last = sessions[-1]
    for kind, where in zip(
        ("acknowledge_latest_user_preferences", "provide_preference_aligned_recommendations"), last_lines[1:]
    ):
        rows.append(
            _row(rng, persona_id, messages, sessions, (kind, sessions.index(last) - len(topics)), where, fillers)
        )
    return messages, rows


def _turns(session: _Session) -> list[tuple[str, str]]:
    t = session.topic
    if not session.update:
        return [
            ("user", f"User: I want to talk about {t.name}. Lately I really enjoy {t.first}."),
            ("assistant", f"Assistant: {t.first.capitalize()} sounds rewarding. What draws you to it?"),
            ("user", f"User: It helps me unwind after work, so {t.first} is my favourite for now."),
            ("assistant", "Assistant: Good to know, I will keep that in mind."),
        ]
    return [
        ("user", f"User: Quick update on {t.name}: I stopped {t.first} and switched to {t.then}."),
        ("assistant", "Assistant: That is a big change. What made you switch?"),
        ("user", f"User: Honestly {t.reason}, so {t.then} suits me better."),
        ("assistant", f"Assistant: Makes sense, {t.then} it is."),
        ("user", f"User: Any thoughts on how I can get more out of {t.then}?"),
        ("assistant", "Assistant: Keep a steady routine and track how you feel."),
    ]


#: (question type, index of the session of the reference) asked at the end of the text
def _end_questions(sessions: list[_Session]) -> list[tuple[str, int]]:
    half = len(sessions) // 2
    asked = []
    for i in range(half):
        asked += [("recall_user_shared_facts", i), ("suggest_new_ideas", i)]
        if half + i < len(sessions) - 1:
            asked += [
                ("track_full_preference_evolution", i),
                ("revisit_reasons_behind_preference_updates", i),
                ("generalize_to_new_scenarios", i),
            ]
    return asked


#: question type -> (question, correct option, incorrect options), filled from a Topic's
#: fields and its three unrelated things a, b, c
WORDING: dict[str, tuple[str, str, tuple[str, str, str]]] = {
    "recall_user_shared_facts": (
        "User: Do you remember what I first told you I enjoy in {name}?",
        "You told me you enjoy {first}.",
        ("You told me you enjoy {a}.", "You told me you enjoy {b}.", "You told me you enjoy {c}."),
    ),
    "suggest_new_ideas": (
        "Can you suggest something new for me in {name}?",
        "Since you enjoy {first}, how about {idea}?",
        ("How about {a}?", "How about {b}?", "How about {c}?"),
    ),
    "track_full_preference_evolution": (
        "How have my tastes in {name} changed over time?",
        "You began with {first} and moved to {then}.",
        ("You began with {a} and moved to {b}.", "You always stuck with {c}.", "You began with {c} and moved to {a}."),
    ),
    "revisit_reasons_behind_preference_updates": (
        "User: Why did I change my mind about {name} again?",
        "Because {reason}.",
        ("Because a friend recommended {a}.", "Because a friend recommended {b}.", "Because a friend recommended {c}."),
    ),
    "generalize_to_new_scenarios": (
        "User: I have a free weekend. Given what happened with {first}, what should I avoid?",
        "Avoid what made you drop {first}: {reason}.",
        ("Avoid {a}, you said it bores you.", "Avoid {b}, you said it bores you.", "Avoid {c}, you said it bores you."),
    ),
    "acknowledge_latest_user_preferences": (
        "User: I just spent the whole evening on {then} again!",
        "Glad {then} is working out since you switched from {first}.",
        ("Glad you are still into {a}.", "Great, {b} is your favourite.", "Nice, {c} suits you."),
    ),
    "provide_preference_aligned_recommendations": (
        "Can you recommend something for me in {name}?",
        "How about {then}, which suits you better now?",
        ("How about {a}?", "How about {b}?", "How about {c}?"),
    ),
}


def _options(kind: str, t: Topic) -> tuple[str, str, list[str]]:
    """(question, correct option, incorrect options)."""
    a, b, c = t.unrelated
    fields = {
        "name": t.name,
        "first": t.first,
        "then": t.then,
        "reason": t.reason,
        "idea": t.idea,
        "a": a,
        "b": b,
        "c": c,
    }
    question, correct, incorrect = WORDING[kind]
    return question.format(**fields), correct.format(**fields), [x.format(**fields) for x in incorrect]


def _row(
    rng: random.Random,
    persona_id: int,
    messages: list[dict[str, str]],
    sessions: list[_Session],
    asked: tuple[str, int],
    end: int,
    fillers: int,
) -> list[object]:
    kind, reference = asked
    topic = sessions[reference].topic
    question, correct, incorrect = _options(kind, topic)
    options = [correct, *incorrect]
    rng.shuffle(options)
    letter = chr(ord("a") + options.index(correct))
    words = [len(m["content"].split()) for m in messages]
    before = sum(words[:end])
    reference_at = sum(words[: sessions[reference].start])
    distance = before - reference_at + len(question.split())
    total = before + len(question.split())
    blocks = sum(1 for s in sessions if s.start <= end) - reference
    filler_words = sum(sum(words[s.start + 1 : s.start + 1 + 2 * fillers]) for s in sessions[1:])
    return [
        persona_id,
        str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        kind,
        topic.name,
        total,
        len("".join(m["content"] for m in messages[:end])),
        blocks,
        distance,
        filler_words,
        f"{distance / total * 100:.2f}%",
        question,
        f"({letter})",
        str([f"({chr(ord('a') + i)}) {option}" for i, option in enumerate(options)]),
        "",
        end,
    ]


def main(argv: Sequence[str]) -> int:
    """Write the smoke sample of every context length (seed 0) into DIR, to look at it."""
    if len(argv) != 1:
        print("usage: python -m pytest_memeval.suites.personamem.sample DIR", file=sys.stderr)
        return 4
    for length in LAYOUT:
        for path in write_sample(Path(argv[0]), "smoke", length, DEFAULT_SEED):
            print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
