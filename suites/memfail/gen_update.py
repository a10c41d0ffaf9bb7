"""Knowledge-Update (our sixth dataset, the gap the paper leaves open): a fact about a
person, then, in a later conversation, either a contradicting update that must overwrite it
or a compatible addition that must be kept beside it.

Originals are stored first, in row order; updates follow in a shuffled order. The
question asks for the current values; an overwrite's gold is the new value alone (the old
one must not be named), an addition's gold is both.
"""

from __future__ import annotations

from .model import DatasetBuild, Fact, Piece, Question, shuffled, spread, stream
from .names import FIRST_NAMES, RELATIONS
from .phrases import Person, render
from .text import capitalize, fix_articles
from .update_data import ATTRIBUTES, GENDERED_RELATIONS

DATASET = "update"
OVERWRITE_SHARE = 0.5


def generate(seed: int, n_rows: int) -> DatasetBuild:
    names = shuffled(stream(seed, DATASET, "pool"), FIRST_NAMES)
    if n_rows > len(names):
        raise ValueError(f"update has {len(names)} subjects at most, asked for {n_rows}")
    originals, updates, questions = [], [], []
    for row in range(n_rows):
        rng = stream(seed, DATASET, row)
        name, pronoun = names[row]
        relation = rng.choice([r for r in RELATIONS if GENDERED_RELATIONS.get(r, pronoun) == pronoun])
        subject = f"{relation} {name}"
        person = Person(subject, pronoun)
        attribute = ATTRIBUTES[rng.randrange(len(ATTRIBUTES))]
        old, new = rng.sample(attribute.values, 2)
        overwrite = spread(row, OVERWRITE_SHARE)
        original = fix_articles(capitalize(render(rng.choice(attribute.originals), person, S=subject, v=old)))
        first = Piece(original, anchor=(name, old))
        facts: tuple[Fact, ...]
        if overwrite:
            template, cue = rng.choice(attribute.overwrites)
            text = fix_articles(capitalize(render(template, person, S=subject, v=new, old=old)))
            update = Piece(text, anchor=(name, new), critical=(render(cue, person, old=old),), stale=(name, old))
            facts = (Fact(f"overwrite {old!r} -> {new!r}", (update,)),)
            gold, grading = [new], {"stale": [old]}
        else:
            text = fix_articles(capitalize(render(rng.choice(attribute.additions), person, S=subject, v=new)))
            update = Piece(text, anchor=(name, new))
            facts = (Fact(f"earlier value {old!r}", (first,)), Fact(f"added value {new!r}", (update,)))
            gold, grading = [old, new], {"stale": []}
        originals.append(original)
        updates.append(text)
        question = capitalize(render(rng.choice(attribute.questions), person, S=subject))
        kind = "overwrite" if overwrite else "addition"
        strata = {"dataset": DATASET, "target": "storage", "update_kind": kind, "attribute": attribute.name}
        marks = ("knowledge_update", "targets_storage", f"update_{kind}")
        questions.append(
            Question(row, f"{row:03d}", question, gold, facts, strata, marks, cluster_key=f"{row:03d}", grading=grading)
        )
    ordered = originals + shuffled(stream(seed, DATASET, f"order-{n_rows}"), updates)
    return DatasetBuild(tuple((text,) for text in ordered), tuple(questions))
