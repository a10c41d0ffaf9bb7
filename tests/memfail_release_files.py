"""A small MemFail release of our own, written in the format of the authors' files.

The authors' release has no licence, so none of its files or text is copied here: the rows
below are invented, and the writer reproduces only the format (Python's csv module with
CRLF record ends and minimal quoting, JSON lists and objects inside cells with \\u escapes,
multi-line Long-Hop questions, empty cells for unused chain columns, the meta JSON file).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from pytest_memeval.suites.memfail.release_rows import (
    COEXISTING_COLUMNS,
    CONDITIONAL_COLUMNS,
    FILES,
    LONGHOP_COLUMNS,
    LONGHOP_META,
    PERSONA_COLUMNS,
)


def conditional_rows(hard: bool = False) -> list[dict[str, Any]]:
    word = "quietly" if hard else "always"
    return [
        {
            "entity": "Odile",
            "entity_category": "person",
            "behavior": "hums sea shanties",
            "condition_type": "weather",
            "condition": "when it is raining",
            "entity_facts": [
                f"Odile runs a small bakery \u2014 she {word} hums sea shanties, but only when it is raining."
            ],
            "question": "It's pouring outside the bakery, would Odile hum sea shanties now?",
            "question_context": "it is pouring",
            "condition_met": "yes",
            "ground_truth_answer": "Yes \u2014 it is raining, which is when she hums them.",
        },
        {
            "entity": "Biscuit",
            "entity_category": "pet",
            "behavior": "chases his tail",
            "condition_type": "time_of_day",
            "condition": "after sunset",
            "entity_facts": ['Biscuit, a terrier, chases his tail only after sunset, "never before".'],
            "question": "It's 9am; will Biscuit chase his tail?",
            "question_context": "morning",
            "condition_met": "No",
            "ground_truth_answer": "No, it is morning.",
        },
        {
            "entity": "Captain Reyes",
            "entity_category": "character",
            "behavior": "writes letters to the sea",
            "condition_type": "invented_type",
            "condition": "when the tide is out",
            "entity_facts": ["Captain Reyes writes letters to the sea when the tide is out, and only then."],
            "question": "The tide is in. Would Captain Reyes write a letter to the sea?",
            "question_context": "tide in",
            "condition_met": "no",
            "ground_truth_answer": "No; the tide is in.",
        },
    ]


def coexisting_rows() -> list[dict[str, Any]]:
    return [
        {
            "preference_category": "teas",
            "preferences": ["oolong", "rooibos"],
            "preference_facts": [
                "Oolong is what I brew on slow mornings.",
                "Rooibos is my caf\u00e9-free evening cup.",
            ],
            "question": "Which teas should I stock up on?",
            "ground_truth_answer": "oolong, rooibos",
        },
        {
            "preference_category": "board games",
            "preferences": ["chess", "go", "backgammon"],
            "preference_facts": [
                "I play chess every Sunday.",
                'Go is the game I study, "slowly".',
                "Backgammon, with my uncle.",
            ],
            "question": "Which games should I bring to the cabin?",
            "ground_truth_answer": "chess, go, backgammon",
        },
    ]


def persona_rows() -> list[dict[str, Any]]:
    return [
        {
            "entity": "Mirela Voss",
            "entity_facts": ["Mirela Voss restores clocks. She drinks mint tea and is allergic to walnuts."],
            "questions": [
                {
                    "text": "What should I bake for Mirela Voss?",
                    "is_misleading": False,
                    "distractor": None,
                    "ground_truth_answer": "Something without walnuts; she is allergic to them.",
                },
                {
                    "text": "What tea does Tomas Brandt like?",
                    "is_misleading": True,
                    "distractor": "Tomas Brandt",
                    "ground_truth_answer": "I don't have information about Tomas Brandt.",
                },
            ],
        },
    ]


def longhop_rows() -> list[dict[str, Any]]:
    rows = []
    chains = [
        (
            "longhop-1hop-001",
            ["Rain makes me bake bread.", "Baking bread leads me to call my sister."],
            ["rain", "bake bread", "call my sister"],
        ),
        (
            "longhop-2hop-001",
            ["Jazz makes me dance.", "Dancing leads me to drink water.", "Drinking water makes me nap."],
            ["jazz", "dance", "drink water", "nap"],
        ),
        (
            "longhop-3hop-001",
            ["Snow makes me ski.", "Skiing leads me to soup.", "Soup makes me sleepy.", "Sleepy me reads poems."],
            ["snow", "ski", "soup", "sleepy", "read poems"],
        ),
        (
            "longhop-1hop-002",
            ["Coffee makes me sketch.", "Sketching leads me to frame pictures."],
            ["coffee", "sketch", "frame pictures"],
        ),
    ]
    for chain_id, facts, anchors in chains:
        choices = ["fold laundry", anchors[-1], "water ferns", "bake pie", "walk dogs"]
        question = f"When I meet {anchors[0]}, what do I end up doing?"
        listed = "\n".join(f"{letter}. {choice}" for letter, choice in zip("ABCDE", choices))
        row = {
            "id": chain_id,
            "hop_count": str(len(facts) - 1),
            "graded_question": f"{question}\n\nOptions:\n{listed}",
            "ground_truth_answer": anchors[-1],
            "correct_choice": "B",
        }
        row.update({f"fact_{i + 1}": facts[i] if i < len(facts) else "" for i in range(4)})
        row.update({f"chain_{i + 1}": anchors[i] if i < len(anchors) else "" for i in range(5)})
        row.update({f"choice_{letter}": choice for letter, choice in zip("abcde", choices)})
        rows.append(row)
    return rows


def csv_text(columns: tuple[str, ...] | list[str], rows: list[dict[str, Any]], line_end: str = "\r\n") -> str:
    """A table as the release writes it: JSON cells dumped with ASCII escapes, CRLF ends."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator=line_end)
    writer.writerow(columns)
    for row in rows:
        writer.writerow([json.dumps(row[c]) if isinstance(row[c], (list, dict)) else row[c] for c in columns])
    return out.getvalue()


def write_release(root: Path, tables: dict[str, str] | None = None, meta: Any = None) -> Path:
    """A checkout holding `datasets/` with every file; `tables` replaces files' text by dataset."""
    texts = {
        "cond_easy": csv_text(CONDITIONAL_COLUMNS, conditional_rows()),
        "cond_hard": csv_text(CONDITIONAL_COLUMNS, conditional_rows(hard=True)),
        "coexisting": csv_text(COEXISTING_COLUMNS, coexisting_rows()),
        "persona": csv_text(PERSONA_COLUMNS, persona_rows()),
        "longhop": csv_text(LONGHOP_COLUMNS, longhop_rows()),
        **(tables or {}),
    }
    for dataset, text in texts.items():
        path = root / "datasets" / FILES[dataset]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    meta = {"model": "ours", "hop_counts": {"1": 2, "2": 1, "3": 1}, "seed": 42} if meta is None else meta
    (root / "datasets" / LONGHOP_META).write_text(json.dumps(meta), encoding="utf-8")
    return root
