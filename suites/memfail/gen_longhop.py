"""Long-Hop (paper §4 Task 4, B.6, D.1.4): a chain A1 -> ... -> A(K+2) of K+1 facts, the
question names only the head and asks for the terminal, five options.

Facts are stored separately: every fact of the dataset is shuffled and packed into
conversations of a few messages, never two facts of one chain in the same conversation.
K follows Table 2 at full size (31/32/29 chains with K = 1/2/3) and cycles 1, 2, 3 in
every prefix. Distractors are anchors no chain of the dataset uses.
"""

from __future__ import annotations

from .longhop_data import ANCHORS, QUESTIONS_FIRST, QUESTIONS_NAMED, RELATIONS
from .model import DatasetBuild, Fact, Piece, Question, shuffled, stream
from .names import FIRST_NAMES
from .phrases import Person, render
from .text import capitalize, third_person

DATASET = "longhop"
FULL_ROWS = 92
#: anchors kept out of every chain, for distractor options
RESERVED = 50
FACTS_PER_CONVERSATION = 4
_TAIL = (1, 1, 2, 2, 2)


def hops(row: int) -> int:
    return 1 + row % 3 if row < 87 else _TAIL[(row - 87) % len(_TAIL)]


def voice_forms(template: str, person: Person | None) -> dict[str, str]:
    """An anchor in base and third-person form, for the first person ("my") or a named one."""
    if person is None:
        base = template.format(pos="my", refl="myself")
        return {"base": base, "third": base}
    base = render(template, person)
    return {"base": base, "third": third_person(base)}


def generate(seed: int, n_rows: int) -> DatasetBuild:
    if n_rows > FULL_ROWS:
        raise ValueError(f"longhop has {FULL_ROWS} chains at most, asked for {n_rows}")
    pool = stream(seed, DATASET, "pool")
    anchors = shuffled(pool, ANCHORS)
    reserve, anchors = anchors[-RESERVED:], anchors[:-RESERVED]
    names = shuffled(pool, FIRST_NAMES)
    facts_by_chain: list[list[str]] = []
    questions = []
    for row in range(n_rows):
        rng = stream(seed, DATASET, row)
        k = hops(row)
        chain, anchors = anchors[: k + 2], anchors[k + 2 :]
        person = Person(*names[row]) if rng.random() < 0.5 else None
        forms = [voice_forms(a, person) for a in chain]
        facts = []
        for i in range(k + 1):
            first, named, cue = rng.choice(RELATIONS)
            a, b = forms[i], forms[i + 1]
            anchor: tuple[str, ...]
            if person is None:
                text = first.format(a=a["base"], b=b["base"])
                anchor = (a["base"], b["base"])
            else:
                text = render(named, person, a3=a["third"], b3=b["third"], b=b["base"])
                anchor = (person.name, a["third"], b["base"] if "{b}" in named else b["third"])
            facts.append(Fact(f"hop {i + 1} of {k + 1}", (Piece(capitalize(text), anchor=anchor, critical=(cue,)),)))
        facts_by_chain.append([f.text for f in facts])
        head = forms[0]
        if person is None:
            text = rng.choice(QUESTIONS_FIRST).format(a=head["base"])
        else:
            text = render(rng.choice(QUESTIONS_NAMED), person, a3=head["third"])
        distractors = [voice_forms(a, person)["base"] for a in rng.sample(reserve, 4)]
        options = shuffled(rng, [forms[-1]["base"], *distractors])
        strata = {
            "dataset": DATASET,
            "target": "retrieval",
            "hops": str(k),
            "voice": "named" if person else "first_person",
        }
        marks = ("long_hop", "targets_retrieval", f"hops_{k}")
        questions.append(
            Question(
                row, f"{row:03d}", text, forms[-1]["base"], tuple(facts), strata, marks, tuple(options), f"{row:03d}"
            )
        )
    return DatasetBuild(_conversations(seed, n_rows, facts_by_chain), tuple(questions))


def _conversations(seed: int, n_rows: int, facts_by_chain: list[list[str]]) -> tuple[tuple[str, ...], ...]:
    """Shuffle every fact and pack them greedily; a fact joins the first open conversation
    that holds nothing of its chain."""
    labelled = [(chain, text) for chain, texts in enumerate(facts_by_chain) for text in texts]
    rng = stream(seed, DATASET, f"packing-{n_rows}")
    bins: list[list[tuple[int, str]]] = []
    for chain, text in shuffled(rng, labelled):
        target = next(
            (b for b in bins if len(b) < FACTS_PER_CONVERSATION and all(c != chain for c, _ in b)),
            None,
        )
        if target is None:
            target = []
            bins.append(target)
        target.append((chain, text))
    return tuple(tuple(text for _, text in b) for b in bins)
