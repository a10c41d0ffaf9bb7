"""Loader for the released benchmark layout.

    <root>/s<seed>/<persona_id>/event_table.json
    <root>/s<seed>/<persona_id>/ground_truth.json
    <root>/s<seed>/<persona_id>/structural_sources/<source>.json
    <root>/s<seed>/nl_renders/<persona_id>.md

``root`` may be a single seed directory, the directory holding the seed directories, or a
release root that nests them under ``benchmark/seeds/``. Problems raise the project's
``DataError`` (a ``ValueError``) with a one-line message naming the file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pytest_memeval.errors import DataError
from pytest_memeval.files import json_input
from pytest_memeval.framework.data_files import read_text

from ._common import SOURCE_NAMES
from .generator import Persona, index_of, is_generated, parse_persona_id, split_of
from .questions import QUESTION_IDS

_SEED_DIR = re.compile(r"^s(\d+)$")
_EVENT_KEYS = ("date", "day_index", "sleep", "exercise", "diet", "work", "social", "context_tags")


def _read_json(path: Path) -> Any:
    try:
        text = read_text(path)
    except FileNotFoundError:
        raise DataError(f"{path}: missing file") from None
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        return json_input.loads(text, constants=True)
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}: bad JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None


def _require(obj: Any, keys: tuple[str, ...], path: Path, where: str = "") -> None:
    if not isinstance(obj, dict):
        raise DataError(f"{path}: expected an object{where}, got {type(obj).__name__}")
    missing = [k for k in keys if k not in obj]
    if missing:
        raise DataError(f"{path}: missing key {missing[0]!r}{where}")


def _records(doc: Any, path: Path) -> None:
    _require(doc, ("records",), path)
    if not isinstance(doc["records"], list):
        raise DataError(f"{path}: 'records' is not a list")
    for i, rec in enumerate(doc["records"]):
        _require(rec, ("date", "day_index"), path, f" in records[{i}]")


def load_released_persona(persona_dir: Path | str, seed: int | None = None) -> Persona:
    """One persona directory of the release (its render is read when present)."""
    pdir = Path(persona_dir)
    pid = pdir.name
    try:
        difficulty, _ = parse_persona_id(pid)
    except ValueError:
        raise DataError(f"{pdir}: directory name is not a persona id") from None
    if is_generated(pid):
        raise DataError(f"{pdir}: not a released persona (released ids start with 'bench_')")
    if seed is None:
        m = _SEED_DIR.match(pdir.parent.name)
        if not m:
            raise DataError(f"{pdir}: parent directory is not named s<seed>")
        seed = int(m.group(1))

    events_path = pdir / "event_table.json"
    events = _read_json(events_path)
    if not isinstance(events, list) or not events:
        raise DataError(f"{events_path}: expected a non-empty list of daily records")
    for i, day in enumerate(events):
        _require(day, _EVENT_KEYS, events_path, f" in day {i + 1}")

    sources: dict[str, Any] = {}
    for name in SOURCE_NAMES:
        path = pdir / "structural_sources" / f"{name}.json"
        doc = _read_json(path)
        if name == "profile_ltm":
            _require(doc, ("facts",), path)
        else:
            _records(doc, path)
        sources[name] = doc
    meta_path = pdir / "structural_sources" / "generation_metadata.json"
    if meta_path.exists():
        sources["generation_metadata"] = _read_json(meta_path)

    gt_path = pdir / "ground_truth.json"
    gt = _read_json(gt_path)
    _require(gt, QUESTION_IDS, gt_path)
    for qid in QUESTION_IDS:
        _require(gt[qid], ("answer",), gt_path, f" in {qid}")

    render_path = pdir.parent / "nl_renders" / f"{pid}.md"
    render = read_text(render_path) if render_path.exists() else None
    return Persona(
        persona_id=pid,
        seed=seed,
        index=index_of(pid),
        difficulty=difficulty,
        split=split_of(seed, pid),
        events=events,
        sources=sources,
        ground_truth=gt,
        nl_render=render,
    )


def seed_dirs(root: Path | str) -> list[Path]:
    """The ``s<seed>`` directories under a release root (or the root itself)."""
    base = Path(root)
    if not base.is_dir():
        raise DataError(f"{base}: not a directory")
    if _SEED_DIR.match(base.name):
        return [base]
    for cand in (base, base / "seeds", base / "benchmark" / "seeds"):
        if cand.is_dir():
            found = sorted(d for d in cand.iterdir() if d.is_dir() and _SEED_DIR.match(d.name))
            if found:
                return found
    raise DataError(f"{base}: no s<seed> directories found (nor under seeds/ or benchmark/seeds/)")


def load_released(
    root: Path | str, seeds: tuple[int, ...] | None = None, split: str | None = None
) -> Iterator[Persona]:
    """Personas of a release in (seed, persona id) order, optionally one split only."""
    for sdir in seed_dirs(root):
        seed = int(sdir.name[1:])
        if seeds is not None and seed not in seeds:
            continue
        for pdir in sorted(p for p in sdir.iterdir() if p.is_dir() and p.name.startswith("bench_")):
            if split is not None and split_of(seed, pdir.name) != split:
                continue
            yield load_released_persona(pdir, seed)
