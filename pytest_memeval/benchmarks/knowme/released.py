"""Loader for the released KnowMe-Bench layout.

    <root>/dataset<N>/<stream>.json                       the life stream (one JSON file)
    <root>/dataset<N>/question/<Task Name>_questions.json  [{id, question}, ...]
    <root>/dataset<N>/answer/<Task Name>_answers.json      [{id, type, answer, evidence, reasoning}, ...]

`root` may be one dataset<N> directory or the directory holding them. The task of a file
is read from its name ("Temporal Reasoning", "T3", "task3", ...). Stream records may name
the mind field `inner_thought`, `mind` or `Mind` (and capitalise Environment/Background).
Every problem is a `DataError` with a one-line message naming the file.

Released golds are prose, so only T2 (ABSTAIN) and parseable T3 durations are scored
exactly; T1 entities and T4 rankings are read out of the prose (labelled approximate) and
T5-T7 fall to the rubric judge or, offline, to the approximate coverage judge.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from ...errors import DataError
from .questions import Question
from .scoring import parse_duration, split_entities
from .stream import FIELDS, TIME_FORMAT, Unit
from .tasks import ABSTAIN

_DATASET_DIR = re.compile(r"^dataset(\d+)$")
_TASK_WORDS = (
    ("T1", ("extraction",)), ("T2", ("abstention",)), ("T3", ("temporal",)), ("T4", ("ordering",)),
    ("T5", ("trigger", "mnestic")), ("T6", ("mind-body", "mind_body", "mind body")),
    ("T7", ("psychoanalysis", "insight", "expert")),
)
FIELD_ALIASES = {
    "action": ("action", "Action"),
    "dialogue": ("dialogue", "Dialogue"),
    "environment": ("environment", "Environment"),
    "background": ("background", "Background"),
    "inner_thought": ("inner_thought", "mind", "Mind", "Inner_thought"),
}


@dataclass(frozen=True)
class ReleasedDataset:
    context_id: str
    dataset: str
    units: tuple[Unit, ...]
    sessions: tuple[tuple[int, ...], ...]
    questions: dict[str, list[Question]]

    def unit(self, unit_id: int) -> Unit:
        return self._by_id[unit_id]

    @cached_property
    def _by_id(self) -> dict[int, Unit]:
        return {u.id: u for u in self.units}


def dataset_dirs(root: Path) -> list[Path]:
    if _DATASET_DIR.match(root.name):
        return [root]
    found = sorted((p for p in root.iterdir() if p.is_dir() and _DATASET_DIR.match(p.name)),
                   key=lambda p: int(_DATASET_DIR.match(p.name).group(1)))  # type: ignore[union-attr]
    if not found:
        raise DataError(f"--memeval-data: no dataset<N> directories found in {root}")
    return found


def task_of(path: Path) -> str | None:
    stem = path.name.lower().removesuffix(".json").removesuffix("_questions").removesuffix("_answers")
    numbered = re.match(r"^(?:t|task[ _-]?)([1-7])(?:\b|_)", stem)
    if numbered:
        return f"T{numbered.group(1)}"
    return next((task for task, keys in _TASK_WORDS if any(k in stem for k in keys)), None)


def load_dataset(path: Path) -> ReleasedDataset:
    units = _stream(_stream_file(path))
    by_id = {u.id: u for u in units}
    questions: dict[str, list[Question]] = {}
    question_dir, answer_dir = path / "question", path / "answer"
    if not question_dir.is_dir():
        raise DataError(f"{question_dir}: missing directory")
    files = sorted(question_dir.glob("*_questions.json"))
    if not files:
        raise DataError(f"{question_dir}: no *_questions.json files")
    for question_file in files:
        task = task_of(question_file)
        if task is None:
            raise DataError(f"{question_file}: cannot tell which task (T1..T7) the file holds from its name")
        if task in questions:
            raise DataError(f"{question_file}: a second question file for {task}")
        answer_file = answer_dir / question_file.name.replace("_questions.json", "_answers.json")
        asked = _records(question_file, ("id", "question"))
        answers = {str(a["id"]): a for a in _records(answer_file, ("id", "answer"))}
        built = []
        for q in asked:
            answer = answers.get(str(q["id"]))
            if answer is None:
                raise DataError(f"{answer_file}: no answer for question id {q['id']!r}")
            built.append(_question(task, q, answer, by_id, answer_file))
        questions[task] = built
    name = path.name
    return ReleasedDataset(name, name, units, _sessions(units), questions)


def _read(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError(f"{path}: missing file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: cannot read ({exc})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}: bad JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None


def _records(path: Path, keys: tuple[str, ...]) -> list[dict[str, Any]]:
    data = _read(path)
    if not isinstance(data, list):
        raise DataError(f"{path}: expected a JSON list, got {type(data).__name__}")
    seen = set()
    for i, record in enumerate(data):
        if not isinstance(record, dict):
            raise DataError(f"{path}: record {i} is not an object")
        missing = [k for k in keys if k not in record]
        if missing:
            raise DataError(f"{path}: record {i} has no {missing[0]!r}")
        if str(record["id"]) in seen:
            raise DataError(f"{path}: duplicate id {record['id']!r}")
        seen.add(str(record["id"]))
    return data


def _stream_file(path: Path) -> Path:
    candidates = sorted(p for p in path.glob("*.json") if p.is_file())
    if len(candidates) > 1:
        preferred = [p for p in candidates if "stream" in p.name.lower() or p.stem == path.name]
        candidates = preferred if len(preferred) == 1 else candidates
    if len(candidates) != 1:
        names = ", ".join(p.name for p in candidates) or "none"
        raise DataError(f"{path}: expected one stream JSON file beside question/ and answer/, found {names}")
    return candidates[0]


def _stream(path: Path) -> tuple[Unit, ...]:
    """Units in id order; a unit dated before the latest time narrated so far sits in a
    recalled block (layer 1): that is how a flashback-aware stream shows a flashback."""
    records = _records(path, ("id", "timestamp"))
    units = []
    for i, record in enumerate(records):
        try:
            unit_id = int(record["id"])
            datetime.strptime(str(record["timestamp"]), TIME_FORMAT)
        except (TypeError, ValueError):
            raise DataError(f"{path}: record {i} needs an integer id and a 'YYYY-MM-DD HH:MM:SS' timestamp") from None
        fields = {key: _field(record, key) for key, _ in FIELDS}
        units.append((unit_id, str(record["timestamp"]), str(record.get("location") or "unknown place"), fields))
    units.sort(key=lambda u: u[0])
    out, latest = [], ""
    for unit_id, timestamp, location, fields in units:
        layer = 1 if latest and timestamp < latest else 0
        latest = max(latest, timestamp)
        out.append(Unit(unit_id, timestamp, location, layer=layer, **fields))
    return tuple(out)


def _field(record: dict[str, Any], key: str) -> str:
    for alias in FIELD_ALIASES[key]:
        value = record.get(alias)
        if value:
            return str(value).strip()
    return ""


def _sessions(units: tuple[Unit, ...]) -> tuple[tuple[int, ...], ...]:
    """Consecutive units of the same narrated day (flashback units join the day they interrupt)."""
    sessions: list[list[int]] = []
    day = None
    for unit in units:
        if unit.layer == 0 and unit.timestamp[:10] != day:
            day = unit.timestamp[:10]
            sessions.append([])
        if not sessions:
            sessions.append([])
        sessions[-1].append(unit.id)
    return tuple(tuple(s) for s in sessions)


def _question(task: str, asked: dict[str, Any], answer: dict[str, Any], units: dict[int, Unit], path: Path) -> Question:
    evidence = answer.get("evidence") or []
    if not isinstance(evidence, list):
        raise DataError(f"{path}: evidence of id {answer['id']!r} is not a list")
    try:
        ids = tuple(int(e) for e in evidence)
    except (TypeError, ValueError):
        raise DataError(f"{path}: evidence of id {answer['id']!r} holds a non-integer id") from None
    unknown = [i for i in ids if i not in units]
    if unknown:
        raise DataError(f"{path}: evidence id {unknown[0]} of question {answer['id']!r} is not in the stream")
    text, gold_text = str(asked["question"]), str(answer["answer"])
    kind = str(answer.get("type") or "released")
    gold, scoring = _gold(task, gold_text)
    layers = {units[i].layer for i in ids}
    extra = {"scoring": scoring, "released_id": str(asked["id"])}
    return Question(task, kind, "open", text, {}, gold, ids, flashback=layers == {0, 1}, extra=extra)


def _gold(task: str, text: str) -> tuple[Any, str]:
    if task == "T1":
        return {"entities": split_entities(text) or [text]}, "entity_f1_text"
    if task == "T2":
        return ABSTAIN, "abstain"
    if task == "T3" and parse_duration(text) is not None:
        return {"seconds": parse_duration(text)}, "duration"
    if task == "T4":
        steps = [s.strip() for s in re.split(r"\n|->|→|;|\d+\.\s", text) if s.strip(" -.")]
        if len(steps) >= 2:
            return {"events": steps}, "ranking_text"
    return {"reference": text}, "text_coverage_approx"
