"""Persona-Retrieval (paper §4 Task 3, B.5, D.1.3): a 10-15 sentence essay about one named
person with 4-5 idiosyncratic facts, and three questions per essay, each independently
either about the person (direct) or about a distractor the store knows nothing of
(misleading: the right answer is to abstain).

Every essay has its own person; distractors come from names no essay of the dataset uses
at any size, so "I don't have information about D" is true in the shared store.
"""

from __future__ import annotations

import itertools

from .model import DatasetBuild, Fact, Piece, Question, shuffled, stream
from .names import FIRST_NAMES, SURNAMES
from .persona_data import ABSTAIN, FILLERS, FLAVOURS, SLOTS
from .phrases import Person, render

DATASET = "persona"
#: essays at full size; distractors are drawn from the names after these
FULL_ROWS = 100
MISLEADING_SHARE = 0.5


def full_names(seed: int) -> list[Person]:
    """All first name x surname pairs in a seeded order; the first FULL_ROWS are essay subjects."""
    rng = stream(seed, DATASET, "names")
    pairs = shuffled(rng, list(itertools.product(FIRST_NAMES, SURNAMES)))
    return [Person(f"{first} {last}", pronoun) for (first, pronoun), last in pairs]


def generate(seed: int, n_rows: int) -> DatasetBuild:
    if n_rows > FULL_ROWS:
        raise ValueError(f"persona has {FULL_ROWS} essays at most, asked for {n_rows}")
    people = full_names(seed)
    distractors = people[FULL_ROWS:]
    sessions, questions = [], []
    for row in range(n_rows):
        rng = stream(seed, DATASET, row)
        person = people[row]
        slots = rng.sample(SLOTS, rng.choice((4, 5)))
        facts = {}
        fact_sentences = []
        for slot in slots:
            value = rng.choice(slot.values)
            text = render(rng.choice(slot.facts), person, v=value)
            fact_sentences.append(text)
            facts[slot.name] = (
                value,
                Fact(f"{slot.name} of {person.name}", (Piece(text, anchor=(person.name, value)),)),
            )
        n_sentences = rng.randint(10, 15)
        fillers = [render(t, person) for t in rng.sample(FILLERS, n_sentences - 1 - len(fact_sentences))]
        body = shuffled(rng, fact_sentences + fillers)
        essay = " ".join([f"{person.name} is {rng.choice(FLAVOURS)}.", *body])
        sessions.append((essay,))
        direct_slots = iter(slots)
        named = rng.sample(distractors, 3)
        for index in range(3):
            misleading = rng.random() < MISLEADING_SHARE
            slot = next(direct_slots) if not misleading else rng.choice(SLOTS)
            asked = named[index] if misleading else person
            text = rng.choice(slot.questions).format(N=asked.name)
            needed: tuple[Fact, ...]
            if misleading:
                gold, needed, grading = ABSTAIN.format(N=asked.name), (), {"distractor": asked.name}
            else:
                value, fact = facts[slot.name]
                gold, needed, grading = value, (fact,), {}
            strata = {
                "dataset": DATASET,
                "target": "abstention" if misleading else "summary+storage",
                "misleading": "yes" if misleading else "no",
                "slot": slot.name,
            }
            marks = (
                "persona_retrieval",
                "targets_abstention" if misleading else "targets_summary",
                "persona_misleading" if misleading else "persona_direct",
            )
            key = f"{row:03d}-q{index + 1}"
            questions.append(
                Question(row, key, text, gold, needed, strata, marks, cluster_key=f"{row:03d}", grading=grading)
            )
    return DatasetBuild(tuple(sessions), tuple(questions))
