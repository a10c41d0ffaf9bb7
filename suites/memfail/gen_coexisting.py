"""Coexisting-Facts (paper §4 Task 2, B.4, D.1.2): N compatible preferences of one category,
each stated alone in its own conversation; the question needs all N.

Rows are categories (one row per category, as in the paper). N follows Table 2 exactly at
full size (26/31/20/23 rows with N = 2/3/4/5) and cycles 2, 3, 4, 5 in every prefix.
"""

from __future__ import annotations

from .coexisting_data import CATEGORIES, FACTS, QUESTIONS
from .model import DatasetBuild, Fact, Piece, Question, shuffled, stream
from .text import capitalize

DATASET = "coexisting"
#: N of rows 80..99, after four cycles of 2, 3, 4, 5, so that the totals are 26/31/20/23
_TAIL = (2, 3, 3, 5, 2, 3, 3, 2, 3, 5, 3, 2, 3, 3, 2, 5, 3, 2, 3, 3)


def n_facts(row: int) -> int:
    return 2 + row % 4 if row < 80 else _TAIL[(row - 80) % len(_TAIL)]


def generate(seed: int, n_rows: int) -> DatasetBuild:
    if n_rows > len(CATEGORIES):
        raise ValueError(f"coexisting has {len(CATEGORIES)} categories, asked for {n_rows} rows")
    categories = shuffled(stream(seed, DATASET, "pool"), CATEGORIES)
    statements: list[str] = []
    questions = []
    for row in range(n_rows):
        rng = stream(seed, DATASET, row)
        category, n = categories[row], n_facts(row)
        items = rng.sample(category.items, n)
        templates = rng.sample(FACTS, n)
        facts = []
        for item, template in zip(items, templates):
            text = capitalize(template.format(item=item, Item=capitalize(item)))
            statements.append(text)
            facts.append(Fact(f"preference {item!r}", (Piece(text, anchor=(item,)),)))
        question = rng.choice(QUESTIONS).format(noun=category.noun)
        strata = {
            "dataset": DATASET,
            "target": "storage+retrieval",
            "n_facts": str(n),
            "category_group": category.group,
        }
        marks = ("coexisting", "targets_storage", "targets_retrieval", f"facts_{n}")
        questions.append(
            Question(row, f"{row:03d}", question, list(items), tuple(facts), strata, marks, cluster_key=f"{row:03d}")
        )
    order = shuffled(stream(seed, DATASET, f"order-{n_rows}"), statements)
    return DatasetBuild(tuple((text,) for text in order), tuple(questions))
