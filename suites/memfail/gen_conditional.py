"""Conditional-Facts, Easy and Hard (paper §4 Task 1, B.2, B.3, D.1.1).

Row i of both variants shares one spec (entity, behaviour, condition), as in the paper, so
a gap between them comes from how the rule is written. Easy states the rule in one
sentence of a 5-8 sentence essay; Hard splits it into a behaviour, a condition and a link
sentence, never adjacent, in an 8-12 sentence essay without conditional connectives.
The question states a situation that does or does not satisfy the condition.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .condition_data import CONDITION_TYPES
from .conditional_data import (
    CHARACTERS,
    EASY_RULES,
    FILLER_SLOTS,
    HARD_BEHAVIORS,
    HARD_CONDITIONS,
    HARD_LINKS,
    PEOPLE,
    PERSON_BEHAVIORS,
    PERSON_FILLERS,
    PET_BEHAVIORS,
    PET_FILLERS,
    PETS,
    QUESTIONS,
    QUESTIONS_PRONOUN,
)
from .conditions import ConditionType
from .model import DatasetBuild, Fact, Piece, Question, shuffled, spread, stream
from .phrases import Person, render
from .text import capitalize, fix_articles, gerund, third_person

#: share of questions whose situation satisfies the rule (Table 2: 32/100 Easy, 49/100 Hard)
MET_SHARE = {"cond_easy": 0.32, "cond_hard": 0.49}
PET_SHARE, CHARACTER_SHARE = 0.25, 0.2


@dataclass(frozen=True)
class Spec:
    """What Easy and Hard row i share."""

    person: Person
    category: str
    species: str
    behavior: str
    kind: ConditionType
    value: str | None
    threshold: int | None


def specs(seed: int, n_rows: int) -> list[Spec]:
    """Specs of rows 0..n-1; names and behaviours are drawn without replacement in row order,
    so a smaller dataset is a prefix of a larger one."""
    pool = stream(seed, "conditional", "pool")
    people, characters, pets = shuffled(pool, PEOPLE), shuffled(pool, CHARACTERS), shuffled(pool, PETS)
    person_behaviors, pet_behaviors = shuffled(pool, PERSON_BEHAVIORS), shuffled(pool, PET_BEHAVIORS)
    pet_types = [kind for kind in CONDITION_TYPES if kind.pets]
    out = []
    for row in range(n_rows):
        rng = stream(seed, "conditional", row)
        draw = rng.random()
        wanted = "pet" if draw < PET_SHARE else "character" if draw < PET_SHARE + CHARACTER_SHARE else "person"
        # a category whose names ran out hands over to the next, so any seed fills 100 rows
        order = {
            "pet": ("pet", "person", "character"),
            "character": ("character", "person", "pet"),
            "person": ("person", "character", "pet"),
        }
        pools = {"person": people, "character": characters, "pet": pets}
        category = next(c for c in order[wanted] if pools[c])
        if category == "pet":
            name, pronoun, species = pets.pop(0)
            behavior, kind = pet_behaviors.pop(0), rng.choice(pet_types)
        else:
            name, pronoun = pools[category].pop(0)
            species, behavior, kind = "", person_behaviors.pop(0), rng.choice(CONDITION_TYPES)
        if kind.numeric is not None:
            value, threshold = None, rng.choice(kind.numeric.thresholds)
        else:
            value, threshold = rng.choice(kind.targets).value, None
        out.append(Spec(Person(name, pronoun), category, species, behavior, kind, value, threshold))
    return out


def generate(seed: int, n_rows: int, dataset: str) -> DatasetBuild:
    sessions, questions = [], []
    for row, spec in enumerate(specs(seed, n_rows)):
        rng = stream(seed, dataset, row)
        met = spread(row, MET_SHARE[dataset])
        if dataset == "cond_easy":
            sentences, fact = _easy(rng, spec)
        else:
            sentences, fact = _hard(rng, spec)
        sessions.append((" ".join(sentences),))
        questions.append(_question(rng, spec, dataset, row, met, fact))
    return DatasetBuild(tuple(sessions), tuple(questions))


def behavior_forms(spec: Spec) -> dict[str, str]:
    base = render(spec.behavior, spec.person)
    return {"b": base, "b3": third_person(base), "bg": gerund(base)}


def _condition_text(rng: random.Random, spec: Spec, form: str) -> str:
    source = spec.kind.numeric if spec.kind.numeric is not None else spec.kind.option(str(spec.value))
    templates = source.rules if form == "rule" else source.states
    return render(rng.choice(templates), spec.person, n=spec.threshold if spec.threshold is not None else 0)


def _easy(rng: random.Random, spec: Spec) -> tuple[list[str], Fact]:
    forms = behavior_forms(spec)
    template, connective = rng.choice(EASY_RULES)
    clause = _condition_text(rng, spec, "rule")
    sentence = capitalize(render(template, spec.person, c=clause, **forms))
    written = forms["bg"] if "{bg}" in template else forms["b"] if "{b}" in template else forms["b3"]
    piece = Piece(sentence, anchor=(spec.person.name, written), critical=(connective, clause))
    fillers = _fillers(rng, spec, rng.randint(4, 7))
    position = rng.randint(1, len(fillers))
    return fillers[:position] + [sentence] + fillers[position:], Fact("rule", (piece,))


def _hard(rng: random.Random, spec: Spec) -> tuple[list[str], Fact]:
    forms = behavior_forms(spec)
    behavior_template = rng.choice(HARD_BEHAVIORS)
    behavior = render(behavior_template, spec.person, **forms)
    written = forms["bg"] if "{bg}" in behavior_template else forms["b"]
    state = _condition_text(rng, spec, "state")
    condition = render(rng.choice(HARD_CONDITIONS), spec.person, s=state)
    link_template, link_span = rng.choice(HARD_LINKS)
    link = render(link_template, spec.person)
    pieces = (
        Piece(behavior, anchor=(spec.person.name, written)),
        Piece(condition, anchor=(spec.person.name, state)),
        Piece(link, anchor=(spec.person.name, link_span)),
    )
    fillers = _fillers(rng, spec, rng.randint(5, 9))
    total = len(fillers) + 3
    # three positions after the opening sentence, no two adjacent
    while True:
        slots = sorted(rng.sample(range(1, total), 3))
        if slots[1] - slots[0] > 1 and slots[2] - slots[1] > 1:
            break
    first, second = (pieces[0], pieces[1]) if rng.random() < 0.5 else (pieces[1], pieces[0])
    placed = {slots[0]: first.text, slots[1]: second.text, slots[2]: link}
    remaining = iter(fillers)
    sentences = [placed[i] if i in placed else next(remaining) for i in range(total)]
    return sentences, Fact("rule", pieces)


def _fillers(rng: random.Random, spec: Spec, count: int) -> list[str]:
    """`count` unconditional sentences, the first naming the entity."""
    templates = PET_FILLERS if spec.category == "pet" else PERSON_FILLERS
    opening = [t for t in templates if t.startswith("{E}")]
    first = rng.choice(opening)
    rest = rng.sample([t for t in templates if t != first], count - 1)
    values = {slot: rng.choice(options) for slot, options in FILLER_SLOTS.items()}
    return [fix_articles(render(t, spec.person, species=spec.species, **values)) for t in [first, *rest]]


def _question(rng: random.Random, spec: Spec, dataset: str, row: int, met: bool, fact: Fact) -> Question:
    kind = spec.kind
    if kind.numeric is not None:
        assert spec.threshold is not None
        low, high = kind.numeric.span
        numbers = [m for m in range(low, high + 1) if kind.numeric.holds(spec.threshold, m) == met]
        template, number = rng.choice(kind.numeric.situations), rng.choice(numbers)
    else:
        options = [kind.option(str(spec.value))] if met else [o for o in kind.options if o.value != spec.value]
        template, number = rng.choice(rng.choice(options).situations), 0
    situation = render(template, spec.person, m=number).rstrip(".")
    frame = rng.choice(QUESTIONS_PRONOUN if "{E}" in template else QUESTIONS)
    text = render(frame, spec.person, s=situation, **behavior_forms(spec))
    met_text = "yes" if met else "no"
    marks = (
        dataset_marker(dataset),
        "targets_summary",
        f"cond_{kind.name}",
        "condition_met" if met else "condition_unmet",
    )
    strata = {
        "dataset": dataset,
        "target": "summary",
        "condition_type": kind.name,
        "condition_group": kind.group,
        "condition_met": met_text,
        "entity": spec.category,
    }
    return Question(row, f"{row:03d}", capitalize(text), met_text, (fact,), strata, marks, ("yes", "no"), f"{row:03d}")


def dataset_marker(dataset: str) -> str:
    return {"cond_easy": "conditional_easy", "cond_hard": "conditional_hard"}[dataset]
