"""Loader for the KnowMe-Bench release as shipped (github.com/QuantaAlpha/KnowMeBench).

    <repo>/KnowmeBench/dataset<N>/input/dataset<N>.json                  the life stream
    <repo>/KnowmeBench/dataset<N>/question/<Task Name>_question(s).json  [{id, question}, ...]
    <repo>/KnowmeBench/dataset<N>/answer/<Task Name>_answer(s).json      [{id, answer, ...}, ...]
    <repo>/evaluate/evaluate prompt.md                                   the judge rubric (rubric.py)

`root` may be the repository, its KnowmeBench/ folder or one dataset<N>/ folder. Every
variation of the release is read as shipped:

- dataset 1 names its files `*_questions.json` / `*_answers.json`, datasets 2 and 3
  `*_question.json` / `*_answer.json`; the task comes from the name ("Temporal Reasoning").
- Stream records name the mind field `inner_thought` (dataset 1) or `Mind` (dataset 3),
  capitalise `Environment`/`Background` (3), leave fields out or null, add `category` (3).
- 173 units of dataset 1 have an empty timestamp (and location): kept, stored as
  "undated", never placed in time, and counted in the dataset's notes.
- Evidence is `evidence` or `evidence_ids`: a list of ids, one id (dataset 1, T1) or
  absent (T4, T7, some T3/T5). Ids the stream lacks (dataset 1 cites 63) are dropped from
  the item's evidence, named in its flags and counted in the notes.
- Ids are integers or digit strings (dataset 1, T7); answers and questions pair by id.
- Answers are strings or lists of {rank, event, reasoning} (released_golds.py keeps the
  list). An empty answer (24 in dataset 3's T2 file) cannot be graded: the question is
  left out and named in the notes.
- Extra answer fields: `type` becomes the item's kind, `entity_type` (T1) too, `strategy`
  (T2, "False Premise") its trap; `reasoning` and `question_id` (a generation counter,
  not the question's id) are not used.

A broken file is a `DataError` with a one-line message naming it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from pytest_memeval.errors import DataError
from pytest_memeval.files import json_input
from pytest_memeval.framework.data_files import read_text, regular_files

from .questions import Question
from .released_golds import reference_text, released_gold
from .stream import FIELDS, TIME_FORMAT, Unit

#: the release's folder of datasets, inside the repository
RELEASE_FOLDER = "KnowmeBench"
_DATASET_DIR = re.compile(r"^dataset(\d+)$")
_FILE_SUFFIXES = {"question": ("_questions.json", "_question.json"), "answer": ("_answers.json", "_answer.json")}
_TASK_WORDS = (
    ("T1", ("extraction",)),
    ("T2", ("abstention",)),
    ("T3", ("temporal",)),
    ("T4", ("ordering",)),
    ("T5", ("trigger", "mnestic")),
    ("T6", ("mind-body", "mind_body", "mind body")),
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
    #: what the loader kept, dropped or flagged, one line each
    notes: tuple[str, ...] = ()

    def unit(self, unit_id: int) -> Unit:
        return self._by_id[unit_id]

    @cached_property
    def _by_id(self) -> dict[int, Unit]:
        return {u.id: u for u in self.units}


def dataset_dirs(root: Path) -> list[Path]:
    if _DATASET_DIR.match(root.name):
        return [root]
    holder = root / RELEASE_FOLDER if (root / RELEASE_FOLDER).is_dir() else root
    numbered = []
    for path in holder.iterdir():
        match = _DATASET_DIR.match(path.name)
        if path.is_dir() and match:
            numbered.append((int(match.group(1)), path))
    found = [path for _, path in sorted(numbered, key=lambda pair: pair[0])]
    if not found:
        raise DataError(f"--memeval-data: no dataset<N> directories found in {root} (nor in {root / RELEASE_FOLDER})")
    return found


def task_of(path: Path) -> str | None:
    stem = path.name.removesuffix(".json")
    for suffix in ("_questions", "_question", "_answers", "_answer"):
        stem = stem.removesuffix(suffix)
    return task_of_name(stem)


def task_of_name(name: str) -> str | None:
    """T1..T7 from a task's name as the release writes it ("Temporal Reasoning", "T3", "task_3")."""
    name = name.strip().lower()
    numbered = re.match(r"^(?:t|task[ _-]?)([1-7])(?:\b|_)", name)
    if numbered:
        return f"T{numbered.group(1)}"
    return next((task for task, keys in _TASK_WORDS if any(k in name for k in keys)), None)


def load_dataset(path: Path) -> ReleasedDataset:
    units, notes = _stream(stream_file(path))
    by_id = {u.id: u for u in units}
    questions: dict[str, list[Question]] = {}
    counts: Counter[str] = Counter()
    for task, question_file, answer_file in _task_files(path):
        if task in questions:
            raise DataError(f"{question_file}: a second question file for {task}")
        asked = _records(question_file, ("id", "question"))
        answers = {_key(a["id"]): a for a in _records(answer_file, ("id", "answer"))}
        built, left_out = [], []
        for q in asked:
            if not str(q["question"] or "").strip():
                raise DataError(f"{question_file}: question id {q['id']!r} is empty")
            answer = answers.pop(_key(q["id"]), None)
            if answer is None:
                raise DataError(f"{answer_file}: no answer for question id {q['id']!r}")
            question = _question(task, q, answer, by_id, answer_file, counts)
            if question is None:
                left_out.append(str(q["id"]))
            else:
                built.append(question)
        if left_out:
            notes.append(
                f"{task}: {_count(len(left_out), 'question')} with an empty gold answer left out "
                f"(ids {', '.join(left_out)}; {answer_file.name})"
            )
        if answers:
            notes.append(f"{task}: {_count(len(answers), 'answer')} without a question ignored ({answer_file.name})")
        questions[task] = built
    if counts["dangling"]:
        notes.append(
            f"{_count(counts['dangling'], 'evidence id')} of {_count(counts['dangling_items'], 'question')} "
            "not in the stream: dropped from those items' evidence (named in their flags)"
        )
    if counts["t2_not_abstention"]:
        notes.append(
            f"T2: {_count(counts['t2_not_abstention'], 'gold')} not an abstention (e.g. an event order): "
            "graded against the gold as shipped"
        )
    name = path.name
    return ReleasedDataset(name, name, units, _sessions(units), questions, tuple(notes))


def _task_files(path: Path) -> list[tuple[str, Path, Path]]:
    question_dir, answer_dir = path / "question", path / "answer"
    if not question_dir.is_dir():
        raise DataError(f"{question_dir}: missing directory")
    files = regular_files(sorted(p for p in question_dir.glob("*.json") if p.name.endswith(_FILE_SUFFIXES["question"])))
    if not files:
        raise DataError(f"{question_dir}: no *_question.json or *_questions.json files")
    out = []
    for question_file in files:
        task = task_of(question_file)
        if task is None:
            raise DataError(f"{question_file}: cannot tell which task (T1..T7) the file holds from its name")
        plural = question_file.name.endswith("_questions.json")
        prefix = question_file.name.removesuffix("_questions.json" if plural else "_question.json")
        # the answer file's name follows the question file's (plural in dataset 1), else the other form
        names = [prefix + s for s in (_FILE_SUFFIXES["answer"] if plural else reversed(_FILE_SUFFIXES["answer"]))]
        answer_file = next((answer_dir / n for n in names if (answer_dir / n).is_file()), answer_dir / names[0])
        out.append((task, question_file, answer_file))
    return out


def stream_file(path: Path) -> Path:
    """`input/<dataset>.json`, or the only JSON file in `input/`."""
    named = path / "input" / f"{path.name}.json"
    if named.is_file():
        return named
    inputs = regular_files(sorted((path / "input").glob("*.json"))) if (path / "input").is_dir() else []
    if len(inputs) == 1:
        return inputs[0]
    if inputs:
        names = ", ".join(p.name for p in inputs)
        raise DataError(f"{path / 'input'}: several stream files ({names}) and none named {named.name}")
    raise DataError(
        f"{named}: missing file (the dataset's stream); a partial copy of the release can be run on the "
        "datasets it has with --memeval-suite-option knowme.datasets=1,3"
    )


def _read(path: Path) -> Any:
    try:
        text = read_text(path)
    except FileNotFoundError:
        raise DataError(f"{path}: missing file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: cannot read ({exc})") from None
    try:
        return json_input.loads(text, constants=True)
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}: bad JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None


def _key(value: Any) -> str:
    """Ids pair as text: dataset 1 writes its T7 ids as strings."""
    return str(value).strip()


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
        if _key(record["id"]) in seen:
            raise DataError(f"{path}: duplicate id {record['id']!r}")
        seen.add(_key(record["id"]))
    return data


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def _stream(path: Path) -> tuple[tuple[Unit, ...], list[str]]:
    """Units in id order with their layer: a unit dated before the latest time narrated so far
    sits in a recalled block (layer 1), which is how a flashback-aware stream shows a
    flashback. An undated unit stays in the block it is narrated in."""
    data = _read(path)
    if not isinstance(data, list):
        raise DataError(f"{path}: expected a JSON list of units, got {type(data).__name__}")
    rows, seen = [], set()
    for i, record in enumerate(data):
        if not isinstance(record, dict):
            raise DataError(f"{path}: record {i} is not an object")
        unit_id = _int(record.get("id"))
        if unit_id is None:
            raise DataError(f"{path}: record {i} has no integer id")
        if unit_id in seen:
            raise DataError(f"{path}: duplicate unit id {unit_id}")
        seen.add(unit_id)
        rows.append((unit_id, _timestamp(record.get("timestamp"), path, unit_id), record))
    rows.sort(key=lambda row: row[0])
    units, latest, layer = [], "", 0
    for unit_id, timestamp, record in rows:
        if timestamp:
            layer = 1 if latest and timestamp < latest else 0
            latest = max(latest, timestamp)
        location = str(record.get("location") or "").strip() or "unknown place"
        fields = {key: _field(record, key) for key, _ in FIELDS}
        units.append(Unit(unit_id, timestamp, location, layer=layer, **fields))
    undated = sum(u.undated for u in units)
    notes = (
        [f"{_count(undated, 'stream unit')} with an empty timestamp: kept, stored as 'undated', never placed in time"]
        if undated
        else []
    )
    return tuple(units), notes


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _timestamp(value: Any, path: Path, unit_id: int) -> str:
    if value is None or value == "":
        return ""
    try:
        datetime.strptime(str(value), TIME_FORMAT)
    except ValueError:
        raise DataError(
            f"{path}: unit {unit_id} has timestamp {value!r}, not 'YYYY-MM-DD HH:MM:SS' (or empty)"
        ) from None
    return str(value)


def _field(record: dict[str, Any], key: str) -> str:
    for alias in FIELD_ALIASES[key]:
        value = record.get(alias)
        if value:
            return str(value).strip()
    return ""


def _sessions(units: tuple[Unit, ...]) -> tuple[tuple[int, ...], ...]:
    """Consecutive units of the same narrated day (flashback and undated units join the day they interrupt)."""
    sessions: list[list[int]] = []
    day = None
    for unit in units:
        if unit.layer == 0 and not unit.undated and unit.timestamp[:10] != day:
            day = unit.timestamp[:10]
            sessions.append([])
        if not sessions:
            sessions.append([])
        sessions[-1].append(unit.id)
    return tuple(tuple(s) for s in sessions)


def _evidence(value: Any, path: Path, answer_id: Any) -> tuple[int, ...]:
    if value is None:
        return ()
    values = value if isinstance(value, list) else [value]
    ids = [_int(v) for v in values]
    if any(i is None for i in ids):
        raise DataError(f"{path}: evidence of id {answer_id!r} holds a non-integer id")
    return tuple(i for i in ids if i is not None)


def _question(
    task: str, asked: dict[str, Any], answer: dict[str, Any], units: dict[int, Unit], path: Path, counts: Counter[str]
) -> Question | None:
    text = str(asked["question"]).strip()
    built = released_gold(task, answer["answer"])
    if built is None:
        return None
    gold, scoring = built
    cited = _evidence(answer.get("evidence", answer.get("evidence_ids")), path, answer["id"])
    dangling = [i for i in cited if i not in units]
    evidence = tuple(i for i in cited if i in units)
    flags = []
    if dangling:
        flags.append(f"evidence ids not in the stream: {', '.join(map(str, dangling))}")
        counts["dangling"] += len(dangling)
        counts["dangling_items"] += 1
    if any(units[i].undated for i in evidence):
        flags.append("evidence includes undated units")
    if task == "T2" and scoring != "abstain":
        counts["t2_not_abstention"] += 1
    layers = {units[i].layer for i in evidence if not units[i].undated}
    kind = str(answer.get("entity_type") or answer.get("type") or "released")
    strategy = str(answer.get("strategy") or "").strip()
    extra = {
        "scoring": scoring,
        "released_id": _key(asked["id"]),
        "reference": reference_text(answer["answer"]),
        "flags": tuple(flags),
    }
    return Question(
        task,
        kind,
        "open",
        text,
        {},
        gold,
        evidence,
        flashback=layers == {0, 1},
        trap=re.sub(r"\W+", "_", strategy.lower()) or None,
        extra=extra,
    )
