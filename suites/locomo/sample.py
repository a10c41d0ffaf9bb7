"""A generated sample in the exact format of `locomo10.json`, for running without the data.

It is not the benchmark: a few short conversations between two people, over dated
sessions, into which the generator plants facts it asks about, so it knows every gold and
every evidence turn. It carries every quirk of the release: integer answers, category-5
questions whose distractor is under `adversarial_answer` (one also with an `answer`),
evidence strings with several ids, a stray colon, a leading zero, nothing, or an id of no
turn, image turns with `blip_caption`, `img_url`, `query` and `re-download`, a date of a
session that does not exist, session keys out of numeric order, and the summary keys the
loader ignores. Categories follow the scorer's reading (1 multi-hop with comma-separated
sub-answers, 2 temporal, 3 open-domain with a ';' explanation, 4 single-hop, 5
adversarial). `sample(seed, n)` is deterministic; the suite reads it through the same
loader as the release.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PAIRS = (
    ("Caroline", "Melanie"),
    ("Jon", "Gina"),
    ("Arlo", "Priya"),
    ("Tomas", "Nadia"),
    ("Evan", "Sam"),
    ("Joanna", "Nate"),
    ("Deborah", "Jolene"),
    ("Calvin", "Dave"),
)
PETS = (("dog", "Biscuit"), ("cat", "Luna"), ("rabbit", "Clover"), ("parrot", "Kiwi"), ("dog", "Oscar"))
CLASSES = ("pottery", "salsa", "woodworking", "photography", "baking", "watercolor")
HOBBIES = ("rock climbing", "birdwatching", "knitting", "chess", "gardening", "kayaking")
ARTWORKS = ("sunrise", "lighthouse", "lake at dusk", "field of sunflowers")
OUTDOORS = ("camping", "hiking", "fishing")
CRAFTS = (("bowl", "blue"), ("vase", "green"), ("mug", "yellow"), ("plate", "red"))
RACES = ("marathons", "half marathons", "triathlons")
CITIES = ("Lisbon", "Kyoto", "Montreal", "Oaxaca", "Tallinn", "Cape Town")
FILLER = (
    "How has your week been?",
    "Work has been busy, but I'm hanging in there.",
    "That sounds lovely, I'm happy for you!",
    "I finally cleaned out the garage this weekend.",
    "The weather has been so strange lately.",
    "I've been reading a mystery novel before bed.",
    "My neighbor's kids were playing music all afternoon.",
    "We should grab coffee sometime soon.",
    "I tried a new recipe for dinner, it turned out okay.",
    "Thanks for checking in, it means a lot.",
    "I've been trying to get more sleep.",
    "The traffic on the way home was terrible.",
    "Did you watch the game last night?",
    "I bought new plants for the balcony.",
    "It's been a while since we talked!",
    "I'm thinking about repainting the kitchen.",
)
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
DEFAULT_SEED = 2024
#: a conversation's sessions and the turns of each before its planted facts are added
SESSIONS = 5
FILLER_TURNS = 8


@dataclass
class _Builder:
    """One conversation as it is written: sessions of turns, then questions on them."""

    rng: random.Random
    a: str
    b: str
    dates: list[dt.datetime]
    sessions: list[list[dict[str, Any]]] = field(default_factory=list)
    qa: list[dict[str, Any]] = field(default_factory=list)

    def ask(self, question: str, category: int, evidence: list[dict[str, Any]], **answers: Any) -> None:
        self.qa.append({"question": question, "category": category, "evidence": evidence, **answers})


def _date_text(when: dt.datetime) -> str:
    hour = when.hour % 12 or 12
    return f"{hour}:{when.minute:02d} {'am' if when.hour < 12 else 'pm'} on {when.day} {MONTHS[when.month - 1]}, {when.year}"


def _day(when: dt.datetime) -> str:
    return f"{when.day} {MONTHS[when.month - 1]} {when.year}"


def _filler_sessions(builder: _Builder) -> None:
    for _ in builder.dates:
        turns = []
        for i in range(FILLER_TURNS):
            turns.append({"speaker": (builder.a, builder.b)[i % 2], "text": builder.rng.choice(FILLER)})
        builder.sessions.append(turns)


def _plant(builder: _Builder, kind: str) -> None:
    """One fact of `kind` said in the conversation, and the questions asked about it."""
    rng, a, b = builder.rng, builder.a, builder.b
    last = len(builder.dates) - 1
    s = rng.randint(0, last)
    when = builder.dates[s]
    if kind == "pet":
        animal, name = rng.choice(PETS)
        turn = _turn(builder, s, a, f"I adopted a {animal} last week, we named him {name}!")
        builder.ask(f"What is the name of {a}'s {animal}?", 4, [turn], answer=name)
        builder.ask(f"When did {a} adopt a {animal}?", 2, [turn], answer=f"The week before {_day(when)}")
        builder.ask(f"What is the name of {b}'s {animal}?", 5, [turn], adversarial_answer=name)
        builder.ask(f"Is {name} {b}'s pet?", 5, [turn], adversarial_answer="Yes", answer="No")
    elif kind == "hobbies":
        first, second = rng.choice(CLASSES), rng.choice(HOBBIES)
        s2 = rng.choice([i for i in range(last + 1) if i != s])
        one = _turn(builder, s, a, f"I signed up for a {first} class yesterday, I'm so excited!")
        two = _turn(builder, s2, a, f"I've been getting really into {second} lately.")
        builder.ask(f"What hobbies has {a} taken up?", 1, [one, two], answer=f"{first}, {second}")
        builder.ask(f"When did {a} sign up for a {first} class?", 2, [one], answer=_day(when - dt.timedelta(days=1)))
    elif kind == "trips":
        first, second = rng.sample(CITIES, 2)
        s2 = rng.choice([i for i in range(last + 1) if i != s])
        one = _turn(builder, s, b, f"I just got back from a week in {first}, the food was amazing.")
        two = _turn(builder, s2, b, f"My sister and I are flying to {second} next month!")
        builder.ask(f"Which cities has {b} been to or planned to visit?", 1, [one, two], answer=f"{first}, {second}")
    elif kind == "painting":
        art = rng.choice(ARTWORKS)
        turn = _turn(builder, s, b, f"Here's the {art} I painted last year, it's still my favorite.")
        builder.ask(f"When did {b} paint a {art}?", 2, [turn], answer=when.year - 1)
        builder.ask(f"What did {b} paint last year?", 4, [turn], answer=f"A {art}")
    elif kind == "outdoors":
        activity = rng.choice(OUTDOORS)
        turn = _turn(builder, s, b, f"Nothing beats a weekend of {activity}, I go whenever I get the chance.")
        builder.ask(f"Would {b} enjoy a trip to the mountains?", 3, [turn], answer=f"Likely yes; {b} loves {activity}")
    elif kind == "craft":
        thing, color = rng.choice(CRAFTS)
        caption = f"a photo of a {color} ceramic {thing} on a wooden table"
        image: dict[str, Any] = {
            "img_url": [f"https://example.invalid/{thing}.jpg"],
            "blip_caption": caption,
            "query": thing,
        }
        if rng.random() < 0.5:
            image["re-download"] = True
        turn = _turn(builder, s, a, f"Look at the {thing} I made in class!", **image)
        builder.ask(f"What color is the {thing} {a} made?", 4, [turn], answer=color)
    elif kind == "races":
        count, races = rng.randint(2, 9), rng.choice(RACES)
        turn = _turn(builder, s, b, f"I've run {count} {races} so far, and I'm training for another.")
        builder.ask(f"How many {races} has {b} run?", 4, [turn], answer=count)


KINDS = ("pet", "hobbies", "trips", "painting", "outdoors", "craft", "races")


def _turn(builder: _Builder, session: int, speaker: str, text: str, **image: Any) -> dict[str, Any]:
    """A planted turn; questions hold the turn itself as evidence until `finish` names it."""
    turns = builder.sessions[session]
    turn = {"speaker": speaker, "text": text, **image}
    turns.insert(builder.rng.randint(1, len(turns)), turn)
    return turn


def _finish(builder: _Builder, index: int, sample_id: str) -> dict[str, Any]:
    """Number the turns, spell each question's evidence, lay the conversation out as released."""
    for number, turns in enumerate(builder.sessions, start=1):
        for position, turn in enumerate(turns, start=1):
            turn["dia_id"] = f"D{number}:{position}"
    qa = [dict(q, evidence=[t["dia_id"] for t in q["evidence"]]) for q in builder.qa]
    builder.rng.shuffle(qa)
    if index == 0:
        _spoil_evidence(qa, builder)
    conversation: dict[str, Any] = {"speaker_a": builder.a, "speaker_b": builder.b}
    order = list(range(1, len(builder.sessions) + 1))
    if index % 2 == 1:
        order = order[1:] + order[:1]  # keys out of numeric order; the loader sorts by number
    for number in order:
        conversation[f"session_{number}_date_time"] = _date_text(builder.dates[number - 1])
        conversation[f"session_{number}"] = [_released_turn(t) for t in builder.sessions[number - 1]]
    after = builder.dates[-1] + dt.timedelta(days=9)
    conversation[f"session_{len(builder.sessions) + 1}_date_time"] = _date_text(after)  # a date, no session
    return {
        "qa": qa,
        "conversation": conversation,
        "event_summary": {f"events_session_{n}": {builder.a: [], builder.b: []} for n in order},
        "observation": {f"session_{n}_observation": {builder.a: [], builder.b: []} for n in order},
        "session_summary": {f"session_{n}_summary": "" for n in order},
        "sample_id": sample_id,
    }


def _released_turn(turn: dict[str, Any]) -> dict[str, Any]:
    keys = ("speaker", "dia_id", "text", "img_url", "blip_caption", "query", "re-download")
    return {k: turn[k] for k in keys if k in turn}


def _spoil_evidence(qa: list[dict[str, Any]], builder: _Builder) -> None:
    """The release's malformed evidence strings, on the first conversation's questions."""
    spellings: list[Callable[[list[str]], list[str]]] = [
        lambda ids: ["; ".join(ids)],  # "D8:6; D9:17"
        lambda ids: [" ".join(ids)],  # "D9:1 D4:4 D4:6"
        lambda ids: ["D:" + ids[0][1:], *ids[1:]],  # "D:11:26"
        lambda ids: [ids[0].replace(":", ":0"), *ids[1:]],  # "D30:05"
        lambda ids: [*ids, "D"],  # "D"
        lambda ids: [*ids, f"D{len(builder.sessions)}:{len(builder.sessions[-1]) + 7}"],  # no such turn
    ]
    multi = [q for q in qa if len(q["evidence"]) > 1]
    single = [q for q in qa if len(q["evidence"]) == 1]
    for spell, q in zip(spellings, multi[:2] + single):
        q["evidence"] = spell(q["evidence"])


def generate_conversation(seed: int, index: int) -> dict[str, Any]:
    rng = random.Random(f"locomo-sample/{seed}/{index}")
    a, b = PAIRS[index % len(PAIRS)]
    start = dt.datetime(2023, rng.randint(1, 6), rng.randint(1, 28), rng.randint(8, 21), rng.randint(0, 59))
    dates = [start]
    for _ in range(SESSIONS - 1):
        dates.append(dates[-1] + dt.timedelta(days=rng.randint(5, 30), minutes=rng.randint(-300, 300)))
    builder = _Builder(rng, a, b, dates)
    _filler_sessions(builder)
    for kind in KINDS:
        _plant(builder, kind)
    return _finish(builder, index, f"sample-{seed}-{index}")


def sample(seed: int, conversations: int) -> list[dict[str, Any]]:
    """`conversations` generated conversations, as the JSON array of `locomo10.json`."""
    return [generate_conversation(seed, i) for i in range(conversations)]


def sample_bytes(seed: int, conversations: int) -> bytes:
    """The sample as a file's bytes (what `write_sample` writes and the suite reads)."""
    return json.dumps(sample(seed, conversations), indent=1, ensure_ascii=False).encode()


def write_sample(path: Path, seed: int = DEFAULT_SEED, conversations: int = 4) -> Path:
    """Write the sample as `path` (a directory gets a `locomo10.json` inside)."""
    target = path / "locomo10.json" if path.is_dir() else path
    target.write_bytes(sample_bytes(seed, conversations))
    return target
