"""The MemFail release's five datasets as typed rows, checked cell by cell.

    datasets/conditional_facts/easy/conditional_facts_dataset_easy.csv
    datasets/conditional_facts/hard/conditional_facts_dataset_hard.csv
        entity, entity_category, behavior, condition_type, condition,
        entity_facts (JSON list: the essay), question, question_context,
        condition_met (yes/no), ground_truth_answer
    datasets/coexisting_facts/coexisting_facts_dataset.csv
        preference_category, preferences (JSON list), preference_facts (JSON list, one
        statement per preference), question, ground_truth_answer
    datasets/custom_persona_retrieval/persona_dataset.csv
        entity, entity_facts (JSON list: the essay), questions (JSON list of
        {text, is_misleading, distractor (null when direct), ground_truth_answer})
    datasets/long_hop/long_hop_chains.csv (+ long_hop_chains_meta.json)
        id, hop_count, fact_1..fact_4 (K+1 used), chain_1..chain_5 (K+2 used),
        graded_question (the question, a blank line, "Options:" and the lines "A. ..".."E. .."),
        ground_truth_answer, choice_a..choice_e, correct_choice

`--memeval-data` may name the release's checkout or its `datasets/` folder. Every file
must be there; each problem is one `DataError` line naming the file (and the row).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from pytest_memeval.errors import DataError
from pytest_memeval.files import json_input
from pytest_memeval.framework.data_files import read_text

from .release_csv import Row, read_table

FILES = {
    "cond_easy": "conditional_facts/easy/conditional_facts_dataset_easy.csv",
    "cond_hard": "conditional_facts/hard/conditional_facts_dataset_hard.csv",
    "coexisting": "coexisting_facts/coexisting_facts_dataset.csv",
    "persona": "custom_persona_retrieval/persona_dataset.csv",
    "longhop": "long_hop/long_hop_chains.csv",
}
LONGHOP_META = "long_hop/long_hop_chains_meta.json"
CONDITIONAL_COLUMNS = (
    "entity",
    "entity_category",
    "behavior",
    "condition_type",
    "condition",
    "entity_facts",
    "question",
    "question_context",
    "condition_met",
    "ground_truth_answer",
)
COEXISTING_COLUMNS = ("preference_category", "preferences", "preference_facts", "question", "ground_truth_answer")
PERSONA_COLUMNS = ("entity", "entity_facts", "questions")
LETTERS = "ABCDE"
MAX_FACTS, MAX_ANCHORS = 4, 5
LONGHOP_COLUMNS = (
    "id",
    "hop_count",
    *(f"fact_{i}" for i in range(1, MAX_FACTS + 1)),
    *(f"chain_{i}" for i in range(1, MAX_ANCHORS + 1)),
    "graded_question",
    "ground_truth_answer",
    *(f"choice_{c.lower()}" for c in LETTERS),
    "correct_choice",
)
PERSONA_QUESTION_KEYS = {"text", "is_misleading", "distractor", "ground_truth_answer"}
#: a Conditional-Facts answer's verdict: "Yes — it is raining", "No, it is morning."
_YES_OR_NO = re.compile(r"^\W*(yes|no)\b", re.IGNORECASE)
_CHAIN_ID = re.compile(r"^[A-Za-z0-9_.]+(-[A-Za-z0-9_.]+)*$")


@dataclass(frozen=True)
class ConditionalRow:
    number: int
    entity: str
    category: str
    behavior: str
    condition_type: str
    condition: str
    essays: tuple[str, ...]
    question: str
    condition_met: bool
    answer: str
    #: what `answer` (ground_truth_answer) says: yes (True) or no. This is the gold: the
    #: release's condition_met disagrees with it in a few rows (Easy row 89)
    answer_yes: bool


@dataclass(frozen=True)
class CoexistingRow:
    number: int
    category: str
    preferences: tuple[str, ...]
    statements: tuple[str, ...]
    question: str
    answer: str


@dataclass(frozen=True)
class PersonaQuestion:
    text: str
    distractor: str | None  # None: a direct question about the essay's person
    answer: str


@dataclass(frozen=True)
class PersonaRow:
    number: int
    entity: str
    essays: tuple[str, ...]
    questions: tuple[PersonaQuestion, ...]


@dataclass(frozen=True)
class LongHopRow:
    number: int
    id: str
    hops: int
    facts: tuple[str, ...]
    chain: tuple[str, ...]
    stem: str
    choices: tuple[str, ...]
    correct: str
    answer: str


@dataclass(frozen=True)
class Release:
    """Every dataset of one release checkout, rows in file order."""

    root: Path
    cond_easy: tuple[ConditionalRow, ...]
    cond_hard: tuple[ConditionalRow, ...]
    coexisting: tuple[CoexistingRow, ...]
    persona: tuple[PersonaRow, ...]
    longhop: tuple[LongHopRow, ...]

    def rows(self, dataset: str) -> tuple[Any, ...]:
        return tuple(getattr(self, dataset))


def datasets_dir(data_dir: Path) -> Path:
    """The release's `datasets/` folder, given the checkout or that folder itself."""
    root = data_dir / "datasets" if (data_dir / "datasets").is_dir() else data_dir
    if not any((root / name).is_file() for name in FILES.values()):
        raise DataError(
            f"memfail: {data_dir} holds no MemFail release (expected datasets/{FILES['cond_easy']} and the others)"
        )
    for name in (*FILES.values(), LONGHOP_META):
        if not (root / name).is_file():
            raise DataError(f"memfail release: file missing: {root / name}")
    return root


@lru_cache(maxsize=4)
def load_release(data_dir: Path) -> Release:
    root = datasets_dir(data_dir)
    table = lambda name, columns: read_table(root / FILES[name], FILES[name], columns)  # noqa: E731
    longhop = tuple(_longhop(row) for row in table("longhop", LONGHOP_COLUMNS))
    _unique([(row.id, row.number) for row in longhop], FILES["longhop"])
    _check_meta(root, longhop)
    return Release(
        root=root,
        cond_easy=tuple(_conditional(row) for row in table("cond_easy", CONDITIONAL_COLUMNS)),
        cond_hard=tuple(_conditional(row) for row in table("cond_hard", CONDITIONAL_COLUMNS)),
        coexisting=tuple(_coexisting(row) for row in table("coexisting", COEXISTING_COLUMNS)),
        persona=tuple(_persona(row) for row in table("persona", PERSONA_COLUMNS)),
        longhop=longhop,
    )


def _conditional(row: Row) -> ConditionalRow:
    met = row.text("condition_met").lower()
    if met not in ("yes", "no"):
        raise row.error(f"condition_met must be yes or no, got {met!r}")
    answer = row.text("ground_truth_answer")
    says = _YES_OR_NO.match(answer)
    if says is None:
        raise row.error(f"ground_truth_answer must begin with Yes or No, got {answer[:40]!r}")
    return ConditionalRow(
        number=row.number,
        entity=row.text("entity"),
        category=row.text("entity_category"),
        behavior=row.text("behavior"),
        condition_type=row.text("condition_type"),
        condition=row.text("condition"),
        essays=row.strings("entity_facts"),
        question=row.text("question"),
        condition_met=met == "yes",
        answer=answer,
        answer_yes=says.group(1).lower() == "yes",
    )


def _coexisting(row: Row) -> CoexistingRow:
    preferences, statements = row.strings("preferences"), row.strings("preference_facts")
    if len(preferences) != len(statements):
        raise row.error(f"{len(preferences)} preferences but {len(statements)} preference_facts")
    return CoexistingRow(
        row.number,
        row.text("preference_category"),
        preferences,
        statements,
        row.text("question"),
        row.text("ground_truth_answer"),
    )


def _persona(row: Row) -> PersonaRow:
    questions = row.json("questions")
    if not isinstance(questions, list) or not questions:
        raise row.error("column 'questions' must be a non-empty JSON list of question objects")
    return PersonaRow(
        row.number,
        row.text("entity"),
        row.strings("entity_facts"),
        tuple(_persona_question(row, i + 1, q) for i, q in enumerate(questions)),
    )


def _persona_question(row: Row, index: int, data: Any) -> PersonaQuestion:
    where = f"questions entry {index}"
    if not isinstance(data, dict):
        raise row.error(f"{where} must be a JSON object")
    missing = sorted(PERSONA_QUESTION_KEYS - data.keys())
    if missing:
        raise row.error(f"{where} lacks {', '.join(missing)}")
    text, misleading, distractor, answer = (
        data[k] for k in ("text", "is_misleading", "distractor", "ground_truth_answer")
    )
    if not isinstance(misleading, bool):
        raise row.error(f"{where}: is_misleading must be true or false, got {misleading!r}")
    for name, value in (("text", text), ("ground_truth_answer", answer)):
        if not isinstance(value, str) or not value.strip():
            raise row.error(f"{where}: {name} must be a non-empty string")
    if misleading and (not isinstance(distractor, str) or not distractor.strip()):
        raise row.error(f"{where}: a misleading question needs a distractor name")
    if not misleading and distractor not in (None, ""):
        raise row.error(f"{where}: a direct question has distractor {distractor!r}")
    return PersonaQuestion(text.strip(), distractor.strip() if misleading else None, answer.strip())


def _longhop(row: Row) -> LongHopRow:
    chain_id = row.text("id")
    if not _CHAIN_ID.match(chain_id):
        raise row.error(f"id {chain_id!r} may hold only letters, digits, '_', '.' and single '-'")
    raw_hops = row.text("hop_count")
    if not raw_hops.isdigit() or not 1 <= int(raw_hops) < MAX_FACTS:
        raise row.error(f"hop_count must be 1..{MAX_FACTS - 1}, got {raw_hops!r}")
    hops = int(raw_hops)
    facts = _used(row, "fact", hops, hops + 1, MAX_FACTS)
    chain = _used(row, "chain", hops, hops + 2, MAX_ANCHORS)
    choices = tuple(row.text(f"choice_{c.lower()}") for c in LETTERS)
    correct = row.text("correct_choice").upper()
    if correct not in LETTERS:
        raise row.error(f"correct_choice must be one of {', '.join(LETTERS)}, got {correct!r}")
    answer = row.text("ground_truth_answer")
    if choices[LETTERS.index(correct)] != answer:
        raise row.error(
            f"correct_choice {correct} is {choices[LETTERS.index(correct)]!r}, not the ground truth {answer!r}"
        )
    stem = _stem(row, choices)
    return LongHopRow(row.number, chain_id, hops, facts, chain, stem, choices, correct, answer)


def _used(row: Row, prefix: str, hops: int, used: int, columns: int) -> tuple[str, ...]:
    """The first `used` of prefix_1..prefix_<columns>, which must be filled; the rest empty."""
    values = tuple(row.optional(f"{prefix}_{i}") for i in range(1, columns + 1))
    for i, value in enumerate(values):
        if bool(value) != (i < used):
            state = "filled" if value else "empty"
            raise row.error(f"{prefix}_{i + 1} is {state}, but hop_count {hops} uses {prefix}_1..{prefix}_{used}")
    return values[:used]


def _stem(row: Row, choices: tuple[str, ...]) -> str:
    """The question before its option lines, which must list the choice_ columns in order."""
    question = row.text("graded_question").replace("\r\n", "\n")
    stem, marker, listed = question.partition("\n\nOptions:\n")
    expected = "\n".join(f"{letter}. {choice}" for letter, choice in zip(LETTERS, choices))
    if not marker or listed.strip() != expected or not stem.strip():
        raise row.error(
            "graded_question must be the question, a blank line, 'Options:' and the lines 'A. <choice_a>' .. 'E. <choice_e>'"
        )
    return stem.strip()


def _unique(ids: list[tuple[str, int]], label: str) -> None:
    seen: dict[str, int] = {}
    for chain_id, number in ids:
        if chain_id in seen:
            raise DataError(f"memfail release: {label} row {number}: id {chain_id!r} repeats row {seen[chain_id]}")
        seen[chain_id] = number


def _check_meta(root: Path, rows: tuple[LongHopRow, ...]) -> None:
    """The meta file's hop counts must describe the CSV beside it."""
    path = root / LONGHOP_META
    try:
        meta = json_input.loads(read_text(path, encoding="utf-8-sig"), constants=True)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f"memfail release: {LONGHOP_META}: not readable JSON ({exc})") from None
    counted = {str(k): sum(row.hops == k for row in rows) for k in sorted({row.hops for row in rows})}
    stated = meta.get("hop_counts") if isinstance(meta, dict) else None
    if not isinstance(stated, dict) or {str(k): v for k, v in stated.items()} != counted:
        raise DataError(
            f"memfail release: {LONGHOP_META}: hop_counts {stated!r} do not match {FILES['longhop']} ({counted})"
        )
