"""Every judge score and response of the release, read as shipped (layout in released.py).

Judge files come in three shapes, all of them lists of rows:

- long: {question_id, condition, judge, score, parse_failure}, one judge per row
  (globals' judgments_v2.json; <system>[_fullpipeline]_judgments_<judge>.json, where the
  file name gives the judge when the row does not; c8_c9_judgments_<judge>.json; Hamerton's
  judgments_harmonized.json and <judge>_judgments.json);
- wide: one row per (question, condition) with a `<judge>_score` field per judge (Hamerton's
  judgments.json with haiku_score and gemini_score, the latter Gemini Flash; gpt54_judgments.json;
  gemini_pro_judgments.json);
- merged: <prefix>_judgments_merged.json, all judges of a prefix in one long file, read only
  for judges that have no file of their own (it repeats them otherwise).

A parse failure is stored as score 0 with `parse_failure: true`; it is read as a missing
score (None), as is any score outside 1-5. Question ids are integers or strings. Re-judged
cells in results/_s114_backfills/ replace their cell when asked to (`backfills=True`); the
paper's published aggregates were computed without them.

Responses are rows with a `responses` {condition: {text}} map (results_v2.json,
<prefix>_results.json, c8_c9_results.json; Hamerton's results_harmonized.json and
fullstack_haiku.json). A judge file whose results file is absent from the copy at hand
(the release's largest files may be left out, e.g. letta_fullpipeline_results.json) is
still read; the absence is reported.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_memeval.errors import DataError
from pytest_memeval.files import json_input
from pytest_memeval.framework.data_files import read_json, read_text, regular_files

from .released import (
    GEMINI_JUDGES,
    HAMERTON,
    PRIMARY_JUDGES,
    RESULTS_DIR,
    battery_path,
    condition_of,
    results_dir,
)

JUDGES = PRIMARY_JUDGES + GEMINI_JUDGES
#: prefixes of the per-judge files besides the memory systems': c8_c9 holds C8 and C9
_JUDGE_FILE = re.compile(r"^(?P<prefix>[a-z0-9_]+?)_judgments_(?P<judge>[a-z0-9_]+)\.json$")
_HAMERTON_WIDE = {
    "judgments.json": {"haiku_score": "haiku", "gemini_score": "gemini_flash"},
    "gpt54_judgments.json": {"gpt54_score": "gpt54"},
    "gemini_pro_judgments.json": {"gemini_pro_score": "gemini_pro"},
}
_HAMERTON_LONG = ("judgments_harmonized.json", "sonnet_judgments.json", "opus_judgments.json", "gpt4o_judgments.json")
_RESPONSE_FILES = ("results_v2.json", "results_harmonized.json", "fullstack_haiku.json")


@dataclass(frozen=True)
class Score:
    subject: str
    question: int
    #: our condition key (released.condition_of)
    condition: str
    #: the memory system of a C1/C3 condition, None for a direct one
    system: str | None
    judge: str
    #: 1-5, or None for a parse failure
    score: int | None


@dataclass
class Release:
    """What the replay reads: scores, responses, categories and what was missing."""

    scores: list[Score] = field(default_factory=list)
    #: (subject, question, condition, system) -> response text
    responses: dict[tuple[str, int, str, str | None], str] = field(default_factory=dict)
    #: (subject, question) -> the battery's category
    categories: dict[tuple[str, int], str] = field(default_factory=dict)
    #: results files that judge files imply but that this copy lacks
    absent: list[str] = field(default_factory=list)
    #: cells replaced by a backfill
    backfilled: int = 0


def read_release(root: Path, subjects: Iterable[str], backfills: bool = False) -> Release:
    subjects = tuple(subjects)
    release = Release()
    for subject in subjects:
        folder = results_dir(root, subject)
        if not folder.is_dir():
            raise DataError(f"{folder}: missing (the subject's responses and judge scores)")
        release.scores += list(_subject_scores(subject, folder))
        _read_responses(release, subject, folder, root)
        release.categories.update(_categories(root, subject))
    if backfills:
        _apply_backfills(release, root / RESULTS_DIR / "_s114_backfills", set(subjects))
    return release


def _subject_scores(subject: str, folder: Path) -> Iterator[Score]:
    if subject == HAMERTON:
        for name in _HAMERTON_LONG:
            if (folder / name).is_file():
                yield from _long(subject, folder / name, None)
        for name, fields in _HAMERTON_WIDE.items():
            if (folder / name).is_file():
                yield from _wide(subject, folder / name, fields)
    elif (folder / "judgments_v2.json").is_file():
        yield from _long(subject, folder / "judgments_v2.json", None)
    for prefix, judges in sorted(_per_judge_files(folder).items()):
        for judge, path in sorted(judges.items()):
            yield from _long(subject, path, judge)
        merged = folder / f"{prefix}_judgments_merged.json"
        if merged.is_file():
            yield from (s for s in _long(subject, merged, None) if s.judge not in judges)


def _per_judge_files(folder: Path) -> dict[str, dict[str, Path]]:
    """prefix -> judge -> file, for <prefix>_judgments_<judge>.json with a known judge."""
    found: dict[str, dict[str, Path]] = {}
    for path in regular_files(folder.glob("*_judgments_*.json")):
        match = _JUDGE_FILE.match(path.name)
        if match and match["judge"] in JUDGES:
            found.setdefault(match["prefix"], {})[match["judge"]] = path
    return found


def _rows(path: Path) -> list[dict[str, Any]]:
    data = read_json(path)
    if not isinstance(data, list) or not all(isinstance(row, dict) for row in data):
        raise DataError(f"{path}: expected a list of objects")
    return data


def _long(subject: str, path: Path, judge: str | None) -> Iterator[Score]:
    for i, row in enumerate(_rows(path)):
        name = row.get("judge", judge)
        condition = condition_of(str(row.get("condition")))
        if condition is None or name not in JUDGES:
            continue
        score = None if _flag(row.get("parse_failure")) else _score(row.get("score"))
        yield Score(subject, _question(row, path, i), condition[0], condition[1], str(name), score)


def _wide(subject: str, path: Path, fields: dict[str, str]) -> Iterator[Score]:
    for i, row in enumerate(_rows(path)):
        condition = condition_of(str(row.get("condition")))
        if condition is None:
            continue
        for key, judge in fields.items():
            if key in row:
                yield Score(subject, _question(row, path, i), condition[0], condition[1], judge, _score(row[key]))


def _question(row: dict[str, Any], path: Path, index: int) -> int:
    try:
        return int(row["question_id"])
    except (KeyError, TypeError, ValueError):
        raise DataError(f"{path}: row {index} has no integer question_id") from None


def _flag(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def _score(value: Any) -> int | None:
    try:
        score = int(value)
    except (TypeError, ValueError):
        return None
    return score if 1 <= score <= 5 and score == float(value) else None


def _read_responses(release: Release, subject: str, folder: Path, root: Path) -> None:
    names = [n for n in _RESPONSE_FILES if (folder / n).is_file()]
    names += sorted(p.name for p in regular_files(folder.glob("*_results.json")))
    for name in names:
        for i, row in enumerate(_rows(folder / name)):
            responses = row.get("responses")
            if not isinstance(responses, dict) or "question_id" not in row:
                continue
            question = _question(row, folder / name, i)
            for condition_name, response in responses.items():
                condition = condition_of(condition_name)
                if condition is None:
                    continue
                text = response.get("text") if isinstance(response, dict) else response
                key = (subject, question, condition[0], condition[1])
                release.responses.setdefault(key, text if isinstance(text, str) else "")
    for prefix in sorted(_per_judge_files(folder)):
        expected = folder / f"{prefix}_results.json"
        if not expected.is_file():
            release.absent.append(str(expected.relative_to(root)))


def _categories(root: Path, subject: str) -> dict[tuple[str, int], str]:
    path = battery_path(root, subject)
    if not path.is_file():
        return {}
    try:
        data = json_input.loads(read_text(path), constants=True)
        questions = data["questions"]
        return {
            (subject, int(q["id"])): str(q.get("category", "")) for q in questions if isinstance(q, dict) and "id" in q
        }
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise DataError(f"{path}: not a battery ({type(exc).__name__}: {exc})") from None


def _apply_backfills(release: Release, folder: Path, subjects: set[str]) -> None:
    """Replace each scored cell that a backfill file re-judged (unscored backfill rows change nothing)."""
    if not folder.is_dir():
        return
    index = {(s.subject, s.question, s.condition, s.system, s.judge): i for i, s in enumerate(release.scores)}
    for path in regular_files(sorted(folder.glob("*__*__*.json"))):
        subject = path.name.split("__")[0].removeprefix("global_")
        if subject not in subjects:
            continue
        for fresh in _long(subject, path, None):
            if fresh.score is None:
                continue
            key = (fresh.subject, fresh.question, fresh.condition, fresh.system, fresh.judge)
            if key in index:
                release.scores[index[key]] = fresh
            else:
                index[key] = len(release.scores)
                release.scores.append(fresh)
            release.backfilled += 1
