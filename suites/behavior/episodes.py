"""A subject's corpus: the training half (first-person episodes) and the held-out half.

The training half narrates one decision per episode, interleaved with biographical
sentences and cut into chapters. The held-out half is new situations (none of them is
narrated in the training half) with the decision the subject took; each gives one
question, written backwards from its passage: the situation reworded, no names, no
dates, asking what this person would do. The passage itself is the verbatim gold.

A situation may put a second principle at stake (a complication clause); then the
subject's stronger principle decides, which is what the Behavioral Specification's
ranking of anchors is for.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache

from .lexicon import AXES, EXCEPTION_REFLECTION, FILLERS, OPENERS
from .subjects import Action, Principles, decide, principles, stream

TRAINING_EPISODES_PER_AXIS = 4
TRAINING_FILLERS = 8
CHAPTERS = 5
HELDOUT_QUESTIONS = 39
#: share of situations that put a second principle at stake
COMPLICATED_TRAINING = 0.35
COMPLICATED_HELDOUT = 0.4


@dataclass(frozen=True)
class Situation:
    axis: int
    index: int
    #: (axis, complication index) of a second principle at stake, or None
    complication: tuple[int, int] | None

    @property
    def at_stake(self) -> tuple[int, ...]:
        return (self.axis,) if self.complication is None else (self.axis, self.complication[0])


@dataclass(frozen=True)
class Episode:
    situation: Situation
    action: Action
    exception: bool
    text: str


@dataclass(frozen=True)
class Filler:
    text: str
    predicate: str
    object: str


@dataclass(frozen=True)
class Question:
    number: int
    situation: Situation
    category: str
    question: str
    passage: str
    action: Action
    exception: bool
    #: the situation has a common-sense expectation (lexicon.HeldOut.norm)
    norm: bool


@dataclass(frozen=True)
class TrainingHalf:
    episodes: tuple[Episode, ...]
    fillers: tuple[Filler, ...]
    #: chapters of paragraphs (episodes and biographical sentences), in reading order
    chapters: tuple[tuple[str, ...], ...]

    @property
    def text(self) -> str:
        return "\n\n".join("\n\n".join(chapter) for chapter in self.chapters)


def _complication(rng: random.Random, axis: int, share: float) -> tuple[int, int] | None:
    if rng.random() >= share:
        return None
    other = rng.choice([a for a in range(len(AXES)) if a != axis])
    return (other, rng.randrange(len(AXES[other].complications)))


def _narrate(opener: str, situation_text: str, situation: Situation, action: Action, exception: bool) -> str:
    clause = ""
    if situation.complication is not None:
        other, which = situation.complication
        clause = ", " + AXES[other].complications[which][0]
    pole = AXES[action.axis].poles[action.pole]
    reflection = EXCEPTION_REFLECTION if exception else pole.reflection
    return f"{opener} there came {situation_text}{clause}. I chose to {pole.variants[action.variant]}. {reflection}"


@lru_cache(maxsize=64)
def training_half(seed: int, index: int) -> TrainingHalf:
    subject = principles(seed, index)
    rng = stream(seed, index, "training")
    plan = [(axis, i) for axis in range(len(AXES)) for i in range(TRAINING_EPISODES_PER_AXIS)]
    rng.shuffle(plan)
    episodes = []
    for axis, i in plan:
        situation = Situation(axis, i, _complication(rng, axis, COMPLICATED_TRAINING))
        decision = decide(subject, situation.at_stake, rng)
        text = _narrate(rng.choice(OPENERS), AXES[axis].training[i], situation, decision.action, decision.exception)
        episodes.append(Episode(situation, decision.action, decision.exception, text))
    fillers = [Filler(*entry) for entry in rng.sample(FILLERS, TRAINING_FILLERS)]
    paragraphs = [e.text for e in episodes]
    for filler in fillers:
        paragraphs.insert(rng.randrange(len(paragraphs) + 1), filler.text)
    size = -(-len(paragraphs) // CHAPTERS)
    chapters = tuple(tuple(paragraphs[i : i + size]) for i in range(0, len(paragraphs), size))
    return TrainingHalf(tuple(episodes), tuple(fillers), chapters)


@lru_cache(maxsize=64)
def heldout_half(seed: int, index: int) -> tuple[Question, ...]:
    subject = principles(seed, index)
    rng = stream(seed, index, "heldout")
    order = list(range(len(AXES)))
    rng.shuffle(order)
    pools = {axis: rng.sample(range(len(AXES[axis].heldout)), len(AXES[axis].heldout)) for axis in order}
    questions: list[Question] = []
    rounds = 0
    while len(questions) < HELDOUT_QUESTIONS:
        for axis in order:
            if len(questions) == HELDOUT_QUESTIONS:
                break
            questions.append(_question(subject, rng, len(questions) + 1, axis, pools[axis][rounds]))
        rounds += 1
    return tuple(questions)


def _question(subject: Principles, rng: random.Random, number: int, axis: int, which: int) -> Question:
    situation = Situation(axis, which, _complication(rng, axis, COMPLICATED_HELDOUT))
    decision = decide(subject, situation.at_stake, rng)
    heldout = AXES[axis].heldout[which]
    ask = heldout.ask
    if situation.complication is not None:
        other, index = situation.complication
        ask += ", " + AXES[other].complications[index][1]
    return Question(
        number=number,
        situation=situation,
        category=AXES[axis].category,
        question=f"Faced with {ask}, what would this person do?",
        passage=_narrate(rng.choice(OPENERS), heldout.story, situation, decision.action, decision.exception),
        action=decision.action,
        exception=decision.exception,
        norm=heldout.norm,
    )
