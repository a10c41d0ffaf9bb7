"""A generated sample in BEAM's released layout: the suite's data when --memeval-data is not given.

Invented conversations in the exact shapes of the release (released.py): chat.json as
batches of turns with global message ids, time anchors and "->-> batch,bullet" markers; a
chat_trunecated.json beside it in the first 100K conversation (a prefix, as the release's
are; the suite must read it); the 10M conversation in the combined form (plans of
batches). probing_questions.json has 2 questions per ability with the ability's fields, its
rubric in the release's wordings ("LLM response should state: ...") and source_chat_ids
naming the messages. Nothing of BEAM's text is in it.

The facts are stated in a few fixed wordings (the functions below), which the offline
reader (reader.py) recognises; the rubric items are what a reader of those facts answers.
Deterministic in (seed, size): which facts each conversation holds comes from
random.Random(f"{seed}:{scale}:{number}").
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from .released import ABILITIES, QUESTIONS_FILE, TIME_ANCHOR

VERSION = "1"
#: size -> (scale, conversations) the sample holds
SIZES: dict[str, tuple[tuple[str, int], ...]] = {
    "smoke": (("100K", 1), ("10M", 1)),
    "small": (("100K", 2), ("500K", 1), ("10M", 1)),
    "full": (("100K", 3), ("500K", 2), ("1M", 1), ("10M", 1)),
}
BATCHES, PLANS = 4, 2  # the 10M conversation: PLANS plans of BATCHES // PLANS batches
START = date(2024, 3, 1)

ATTRIBUTES = {
    "project deadline": ("June 14", "July 2", "August 30"),
    "team size": ("5 people", "7 people", "9 people"),
    "database": ("PostgreSQL", "MySQL", "SQLite"),
    "hosting provider": ("Fly.io", "Render", "Heroku"),
    "monthly budget": ("$1,200", "$2,500", "$4,000"),
    "test framework": ("pytest", "unittest", "nose2"),
    "frontend framework": ("React", "Vue", "Svelte"),
    "CI service": ("GitHub Actions", "GitLab CI", "CircleCI"),
}
EVENTS = (
    "signed the lease for the office",
    "hired the first designer",
    "launched the beta",
    "closed the seed round",
    "moved the servers",
    "ran the first user study",
)
TOPICS = (
    "the database schema",
    "the login page",
    "the payment flow",
    "the search feature",
    "the onboarding emails",
    "the admin dashboard",
)
LISTS = {
    "reading list": ("books", ("Dune", "Emma", "Ulysses", "Beloved", "Ivanhoe")),
    "packing list": ("things", ("a rain jacket", "a charger", "hiking boots", "a passport", "a torch")),
}
CONTRADICTIONS = {
    "used Docker": "used Docker to deploy the staging server",
    "worked with GraphQL": "worked with GraphQL on the reporting API",
    "attended a hackathon": "attended a hackathon in Lisbon",
    "deployed on Kubernetes": "deployed on Kubernetes for the pilot customer",
}
SIGN_OFFS = ("Cheers", "Onward", "Done")
PREFERENCES = {
    "a recipe for dinner": "vegetarian dishes",
    "a podcast for my commute": "history podcasts",
    "a weekend activity": "hiking",
    "a laptop bag": "leather bags",
}
CHORES = ("naming a variable", "writing a commit message", "sorting a list", "reading a stack trace")


def anchor(day: date) -> str:
    return day.strftime(TIME_ANCHOR)


def stated(attribute: str, value: str) -> str:
    return f"My {attribute} is {value}."


def updated(attribute: str, value: str) -> str:
    return f"Update: my {attribute} is now {value}."


def happened(event: str, day: str) -> str:
    return f"On {day} I {event}."


def started(topic: str, day: str) -> str:
    return f"On {day} I started working on {topic}."


def added(thing: str, name: str) -> str:
    return f"I added {thing} to my {name}."


def never(action: str) -> str:
    return f"I have never {action}."


def did(action: str) -> str:
    return f"Last month I {action}."


def sign_off(word: str) -> str:
    return f"From now on, always end your answers to me with the word {word}."


def prefers(preference: str, kind: str) -> str:
    return f"I prefer {preference} whenever you suggest {kind}."


def no_information(attribute: str) -> str:
    return f"Based on the provided chat, there is no information related to your {attribute}"


@dataclass
class _Statement:
    text: str
    key: str
    #: dated statements carry a date in their text, given once their order is known
    dated: bool = False
    id: int = -1
    day: date = START


@dataclass
class _Conversation:
    statements: list[_Statement] = field(default_factory=list)

    def add(self, text: str, key: str, dated: bool = False) -> _Statement:
        statement = _Statement(text, key, dated)
        self.statements.append(statement)
        return statement


def write_sample(root: Path, size: str, seed: int) -> None:
    """The sample of `size` under root/chats/ (overwritten)."""
    for scale, count in SIZES[size]:
        for number in range(1, count + 1):
            directory = root / "chats" / scale / str(number)
            (directory / QUESTIONS_FILE).parent.mkdir(parents=True, exist_ok=True)
            chat, questions = conversation(random.Random(f"{seed}:{scale}:{number}"))
            if scale == "10M":
                per_plan = BATCHES // PLANS
                plans = [{f"plan-{p + 1}": _renumbered(chat[p * per_plan : (p + 1) * per_plan])} for p in range(PLANS)]
                _write(directory / "chat.json", plans)
            elif scale == "100K" and number == 1:
                # as the release's truncated chats: the full chat goes on past what was asked about
                extra = {
                    "batch_number": len(chat) + 1,
                    "turns": [_filler(len(_ids(chat)), CHORES[0], 1, len(chat) + 1)],
                }
                _write(directory / "chat.json", [*chat, extra])
                _write(directory / "chat_trunecated.json", chat)
            else:
                _write(directory / "chat.json", chat)
            _write(directory / QUESTIONS_FILE, questions)


def _write(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False), encoding="utf-8")


def _renumbered(batches: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [dict(batch, batch_number=n + 1) for n, batch in enumerate(batches)]


def _ids(chat: list[dict[str, Any]]) -> list[int]:
    return [m["id"] for batch in chat for turn in batch["turns"] for m in turn]


def conversation(rng: random.Random) -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """One conversation's chat (batches) and its probing questions."""
    c = _Conversation()
    attributes = rng.sample(sorted(ATTRIBUTES), 6)
    values = {a: rng.sample(ATTRIBUTES[a], 2) for a in attributes}
    info, changing, absent = attributes[:2], attributes[2:4], attributes[4:]
    events, topics = rng.sample(EVENTS, 4), [rng.sample(TOPICS, 3), []]
    topics[1] = rng.sample([t for t in TOPICS if t not in topics[0]], 3)
    lists = sorted(LISTS)
    things = {name: rng.sample(LISTS[name][1], rng.randint(2, 4)) for name in lists}
    actions = rng.sample(sorted(CONTRADICTIONS), 2)
    word = rng.choice(SIGN_OFFS)
    kinds = rng.sample(sorted(PREFERENCES), 2)

    first = {
        **{a: c.add(stated(a, values[a][0]), f"info:{a}") for a in info},
        **{a: c.add(stated(a, values[a][0]), f"old:{a}") for a in changing},
    }
    nevers = {a: c.add(never(a), f"never:{a}") for a in actions}
    instruction = c.add(sign_off(word), "instruction")
    preferred = {k: c.add(prefers(PREFERENCES[k], k), f"prefers:{k}") for k in kinds}
    dated_events = {e: c.add(e, f"event:{e}", dated=True) for e in events}
    listed: dict[str, list[_Statement]] = {name: [] for name in lists}
    for name in lists:
        listed[name] = [c.add(added(t, name), f"added:{name}") for t in things[name]]
    focus = {t: c.add(t, f"topic:{t}", dated=True) for group in topics for t in group}
    later = {a: c.add(updated(a, values[a][1]), f"new:{a}") for a in changing}
    dids = {a: c.add(did(CONTRADICTIONS[a]), f"did:{a}") for a in actions}
    # a fixed part first (what later statements update or contradict), the rest shuffled
    # within the second half, topics kept in their listed order
    head, tail = c.statements[:9], c.statements[9:]
    rng.shuffle(tail)
    ordered_topics = iter(sorted((s for s in tail if s.key.startswith("topic:")), key=lambda s: _rank(s, topics)))
    tail = [next(ordered_topics) if s.key.startswith("topic:") else s for s in tail]
    statements = head + tail
    for position, s in enumerate(statements):
        s.day = START + timedelta(days=2 * position + 1)
        if s.key.startswith("event:"):
            s.text = happened(s.text, anchor(s.day))
        elif s.key.startswith("topic:"):
            s.text = started(s.text, anchor(s.day))
    chat = _chat(statements, rng)

    def ids(*group: _Statement) -> list[int]:
        return [s.id for s in group]

    questions: dict[str, list[dict[str, Any]]] = {ability: [] for ability in ABILITIES}
    for a in absent:
        questions["abstention"].append(
            {
                "question": f"What is my {a}?",
                "ideal_response": no_information(a) + ".",
                "difficulty": "medium",
                "abstention_type": "missing_detail",
                "why_unanswerable": f"The {a} was never mentioned.",
                "plan_reference": "Batch 1, Bullet 1",
                "rubric": [no_information(a)],
            }
        )
    for a in actions:
        questions["contradiction_resolution"].append(
            {
                "question": f"Have I ever {a}?",
                "ideal_answer": f"There is contradictory information: you said you have never {a}, but also that you "
                f"{CONTRADICTIONS[a]}. Which statement is correct?",
                "difficulty": "clear",
                "contradiction_type": "never_statement_violation",
                "topic_questioned": a,
                "conversation_references": [f"chat_id: {s.id}" for s in (nevers[a], dids[a])],
                "tests_for": "Detecting a contradiction with a never-statement",
                "source_chat_ids": {"first_statement": ids(nevers[a]), "second_statement": ids(dids[a])},
                "rubric": [
                    "LLM response should state: there is contradictory information",
                    f"LLM response should mention: you have never {a}",
                    f"LLM response should mention: you {CONTRADICTIONS[a]}",
                    "LLM response should ask: which statement is correct",
                ],
            }
        )
    for group in topics:
        shown = sorted(group)
        questions["event_ordering"].append(
            {
                "question": f"In what order did I start working on {', '.join(shown)}? "
                f"Mention ONLY and ONLY {len(group)} items.",
                "answer": ", then ".join(group),
                "difficulty": "medium",
                "ordering_type": "mention_sequence",
                "total_mentions": len(group),
                "conversation_references": [f"chat_id: {focus[t].id}" for t in group],
                "ordering_tested": [
                    f"{n + 1}{'st' if n == 0 else 'nd' if n == 1 else 'rd'}: {t}" for n, t in enumerate(group)
                ],
                "source_chat_ids": ids(*(focus[t] for t in group)),
                # the release mixes bare items and prefixed ones
                "rubric": [t if n % 2 else f"LLM response should mention: {t}" for n, t in enumerate(group)],
            }
        )
    for a in info:
        questions["information_extraction"].append(
            {
                "question": f"What is my {a}?",
                "answer": values[a][0],
                "difficulty": "easy",
                "question_type": "numerical_precision",
                "conversation_reference": f"chat_id: {first[a].id}",
                "key_facts_tested": [values[a][0]],
                "source_chat_ids": ids(first[a]),
                "rubric": [f"LLM response should state: {values[a][0]}"],
            }
        )
        questions["instruction_following"].append(
            {
                "question": f"Remind me of my {a}.",
                "instruction_being_tested": sign_off(word),
                "expected_compliance": f"The answer ends with the word {word}.",
                "compliance_indicators": [word],
                "non_compliance_signs": [f"no closing {word}"],
                "difficulty": "medium",
                "instruction_type": "format_instruction",
                "source_chat_ids": ids(instruction, first[a]),
                "rubric": [f"LLM response should state: {values[a][0]}", f"LLM response should end with: {word}"],
            }
        )
    for a in changing:
        questions["knowledge_update"].append(
            {
                "question": f"What is my {a}?",
                "answer": values[a][1],
                "difficulty": "easy",
                "update_type": "value_change",
                "tests_retention_of": a,
                "conversation_references": [f"chat_id: {s.id}" for s in (first[a], later[a])],
                "potential_confusion": f"The earlier value {values[a][0]}.",
                "source_chat_ids": {"original_info": ids(first[a]), "updated_info": ids(later[a])},
                "rubric": [f"LLM response should state: {values[a][1]}"],
            }
        )
    for name in lists:
        noun = LISTS[name][0]
        questions["multi_session_reasoning"].append(
            {
                "question": f"How many {noun} have I added to my {name} in total?",
                "answer": str(len(things[name])),
                "difficulty": "easy",
                "reasoning_type": "counting",
                "sessions_required": len({_batch_of(s, chat) for s in listed[name]}),
                "conversation_references": [f"chat_id: {s.id}" for s in listed[name]],
                "reasoning_steps": [f"Count the {noun} added to the {name}."],
                "source_chat_ids": ids(*listed[name]),
                "rubric": [f"LLM response should state: {len(things[name])}"],
            }
        )
    for k in kinds:
        questions["preference_following"].append(
            {
                "question": f"Can you suggest {k}?",
                "preference_being_tested": prefers(PREFERENCES[k], k),
                "expected_compliance": f"The suggestion is about {PREFERENCES[k]}.",
                "compliance_indicators": [PREFERENCES[k]],
                "non_compliance_signs": [f"a suggestion that ignores {PREFERENCES[k]}"],
                "difficulty": "medium",
                "preference_type": "topic_preference",
                "source_chat_ids": ids(preferred[k]),
                "rubric": [f"LLM response should mention: {PREFERENCES[k]}"],
            }
        )
    current = {**{a: values[a][0] for a in info}, **{a: values[a][1] for a in changing}}
    summaries = [
        (
            "Can you summarize the details of my project I have shared?",
            [f"{a} is {v}" for a, v in current.items()],
            [*(first[a] for a in info), *(later[a] for a in changing)],
        ),
        (f"Can you summarize what is on my {lists[0]}?", list(things[lists[0]]), listed[lists[0]]),
    ]
    for question, elements, sources in summaries:
        questions["summarization"].append(
            {
                "question": question,
                "ideal_summary": "; ".join(elements) + ".",
                "difficulty": "medium",
                "summarization_type": "progressive_summary",
                "bullet_points_covered": len(elements),
                "conversation_sessions": sorted({_batch_of(s, chat) for s in sources}),
                "key_elements_tested": elements,
                "synthesis_required": "Gather the facts from every session.",
                "source_chat_ids": ids(*sources),
                "rubric": [f"LLM response should contain: {e}" for e in elements],
            }
        )
    for e1, e2 in (events[:2], events[2:]):
        d1, d2 = dated_events[e1].day, dated_events[e2].day
        days = abs((d2 - d1).days)
        questions["temporal_reasoning"].append(
            {
                "question": f"How many days passed between when I {e1} and when I {e2}?",
                "answer": f"{days} days",
                "difficulty": "easy",
                "temporal_type": "duration_calculation",
                "time_points": [anchor(d1), anchor(d2)],
                "conversation_references": [f"chat_id: {dated_events[e].id}" for e in (e1, e2)],
                "calculation_required": f"{anchor(d2)} minus {anchor(d1)}",
                "source_chat_ids": {"first_event": ids(dated_events[e1]), "second_event": ids(dated_events[e2])},
                "rubric": [f"LLM response should state: {days} days"],
            }
        )
    return chat, questions


def _rank(statement: _Statement, topics: list[list[str]]) -> tuple[int, int]:
    topic = statement.key.removeprefix("topic:")
    group = 0 if topic in topics[0] else 1
    return (topics[group].index(topic), group)


def _batch_of(statement: _Statement, chat: list[dict[str, Any]]) -> int:
    return next(b["batch_number"] for b in chat for turn in b["turns"] for m in turn if m["id"] == statement.id)


def _chat(statements: list[_Statement], rng: random.Random) -> list[dict[str, Any]]:
    """The statements as user turns (each after a filler turn), in BATCHES batches."""
    per_batch = -(-len(statements) // BATCHES)
    chat, next_id = [], 0
    for b in range(BATCHES):
        turns: list[list[dict[str, Any]]] = []
        for bullet, s in enumerate(statements[b * per_batch : (b + 1) * per_batch], start=1):
            filler = _filler(next_id, rng.choice(CHORES), 2 * bullet - 1, b + 1)
            next_id += len(filler)
            s.id = next_id
            index = f"{b + 1},{2 * bullet}"
            turns += [filler, _turn(next_id, index, f"{s.text} What should I do next? ->-> {index}")]
            next_id += 2
        if turns:
            first = turns[0][0]
            day = min(s.day for s in statements[b * per_batch : (b + 1) * per_batch])
            turns[0][0] = {"role": "user", "id": first["id"], "time_anchor": anchor(day - timedelta(days=1))} | {
                k: v for k, v in first.items() if k not in ("role", "id")
            }
        chat.append({"batch_number": b + 1, "turns": turns, "time_anchor": None})
    return chat


def _turn(message_id: int, index: str, content: str) -> list[dict[str, Any]]:
    return [
        {"role": "user", "id": message_id, "index": index, "question_type": "main_question", "content": content},
        {"role": "assistant", "id": message_id + 1, "content": "Thanks for letting me know. Noted for later."},
    ]


def _filler(message_id: int, chore: str, bullet: int, batch: int = 1) -> list[dict[str, Any]]:
    """A turn of four messages: a question, the assistant's question back, the answer, the reply."""
    index = f"{batch},{bullet}"
    return [
        {
            "role": "user",
            "id": message_id,
            "index": index,
            "question_type": "main_question",
            "content": f"Can you help me with {chore}? ->-> {index}",
        },
        {"role": "assistant", "id": message_id + 1, "content": "Sure. Which language are you using?"},
        {"role": "user", "id": message_id + 2, "question_type": "answer_ai_question", "content": "Python."},
        {"role": "assistant", "id": message_id + 3, "content": f"Here is a short guide to {chore} in Python."},
    ]
