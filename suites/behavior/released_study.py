"""The real subjects of the release as the suite's inputs (layout in released.py).

Per subject: the paper's battery (the behavioural-prediction questions with their verbatim
held-out passages), the extracted facts, the production specification and the training
half of the corpus.

- Facts: data/<subject>/facts.json {"facts": [{id, text}]}, in order.
- Specification: data/global_subjects/<subject>/spec_production.md as it is; Hamerton has
  no such file, his is composed of the "Injectable Block" of each layer in data/hamerton/spec/
  (anchors, core, predictions, then the unified brief), the composition the file names.
- Training half: the paper split each corpus by chapter and kept results/global_<subject>/
  heldout.txt, whitespace-flattened. The training half is the text of
  data/source_corpora/<subject>/raw.txt after the Project Gutenberg header and before the
  held-out half begins. Hamerton's split (chapters 1-10 of a file not in the release) cannot
  be rebuilt, so he has no training half here.
- Wrong specification (v2): results/_wrong_spec_v2/wrong_spec_v2_manifest.json maps each
  subject to the subject whose specification it receives (a derangement drawn with seed 42).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pytest_memeval.errors import DataError
from pytest_memeval.framework.data_files import read_json, read_text

from .released import (
    HAMERTON,
    RESULTS_DIR,
    battery_path,
    check_root,
    data_dir,
    results_dir,
    subjects,
)

BEHAVIOURAL = "behavioral_prediction"
SPEC_LAYERS = (
    ("ANCHORS", "anchors_v4.md"),
    ("CORE", "core_v4.md"),
    ("PREDICTIONS", "predictions_v4.md"),
    ("UNIFIED BRIEF", "brief_v5_clean.md"),
)
INJECTABLE = "## Injectable Block"
MANIFEST = RESULTS_DIR / "_wrong_spec_v2" / "wrong_spec_v2_manifest.json"
#: words of the training half the direct corpus conditions serve, as the paper cut it for its model
CORPUS_WORDS = 100_000
#: words of the held-out half that locate it in the raw text
_ANCHOR_WORDS = 40
_GUTENBERG_START = re.compile(r"\*\*\* ?START OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK[^\n]*\n")


@dataclass(frozen=True)
class Question:
    id: int
    text: str
    category: str
    #: the verbatim held-out excerpt the judges compare with
    passage: str


@dataclass(frozen=True)
class Study:
    root: Path
    subjects: tuple[str, ...]
    #: subject -> whose specification it receives under the v2 wrong-spec control
    partners: dict[str, str]

    @classmethod
    def load(cls, root: Path) -> Study:
        check_root(root)
        cohort = subjects(root)
        if not cohort:
            raise DataError(f"{root / 'data'}: no subjects (data/global_subjects/<subject>/ or data/hamerton/)")
        manifest = root / MANIFEST
        mapping = read_json(manifest).get("mapping", {}) if manifest.is_file() else {}
        partners = {s: str(p) for s, p in mapping.items() if s in cohort and p in cohort and p != s}
        return cls(root, cohort, partners)

    def questions(self, subject: str) -> tuple[Question, ...]:
        return _questions(self.root, subject)

    def facts(self, subject: str) -> tuple[str, ...]:
        return _facts(self.root, subject)

    def spec(self, subject: str) -> str:
        return _spec(self.root, subject)

    def training_half(self, subject: str) -> str | None:
        return _training_half(self.root, subject)

    def corpus(self, subject: str) -> str | None:
        """What C8 and C9 serve: the training half's first CORPUS_WORDS words."""
        return _corpus(self.root, subject)

    def has_training_half(self, subject: str) -> bool:
        """Cheap: whether the files the training half is cut from are there."""
        raw = self.root / "data" / "source_corpora" / subject / "raw.txt"
        return subject != HAMERTON and raw.is_file() and (results_dir(self.root, subject) / "heldout.txt").is_file()


def _text(path: Path) -> str:
    try:
        return read_text(path, encoding="utf-8-sig")
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 ({exc})") from None


@lru_cache(maxsize=32)
def _questions(root: Path, subject: str) -> tuple[Question, ...]:
    path = battery_path(root, subject)
    data = read_json(path)
    rows = data.get("questions") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise DataError(f"{path}: no 'questions' list")
    out = []
    for row in rows:
        if not isinstance(row, dict) or row.get("tier") != BEHAVIOURAL or not row.get("held_out_passage"):
            continue
        try:
            out.append(
                Question(
                    int(row["id"]),
                    str(row["text"]).strip(),
                    str(row.get("category") or "uncategorised"),
                    str(row["held_out_passage"]),
                )
            )
        except (KeyError, TypeError, ValueError):
            raise DataError(f"{path}: a behavioural question without an integer id or a text") from None
    if not out:
        raise DataError(f"{path}: no {BEHAVIOURAL} questions with a held_out_passage")
    return tuple(out)


@lru_cache(maxsize=32)
def _facts(root: Path, subject: str) -> tuple[str, ...]:
    path = data_dir(root, subject) / "facts.json"
    data = read_json(path)
    rows = data.get("facts") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise DataError(f"{path}: no 'facts' list")
    facts = tuple(str(r["text"]).strip() for r in rows if isinstance(r, dict) and str(r.get("text", "")).strip())
    if not facts:
        raise DataError(f"{path}: no facts with a text")
    return facts


@lru_cache(maxsize=32)
def _spec(root: Path, subject: str) -> str:
    if subject != HAMERTON:
        text = _text(data_dir(root, subject) / "spec_production.md").strip()
        if not text:
            raise DataError(f"{data_dir(root, subject) / 'spec_production.md'}: empty")
        return text
    sections = []
    for title, name in SPEC_LAYERS:
        path = data_dir(root, subject) / "spec" / name
        text = _text(path)
        at = text.find(INJECTABLE)
        if at < 0:
            raise DataError(f"{path}: no '{INJECTABLE}' section")
        sections.append(f"## {title}\n\n{text[at + len(INJECTABLE) :].strip()}")
    return "\n\n".join(sections)


@lru_cache(maxsize=16)
def _training_half(root: Path, subject: str) -> str | None:
    heldout_path = results_dir(root, subject) / "heldout.txt"
    raw_path = root / "data" / "source_corpora" / subject / "raw.txt"
    if subject == HAMERTON or not heldout_path.is_file():
        return None
    raw, heldout = _text(raw_path), _text(heldout_path).split()
    if len(heldout) < _ANCHOR_WORDS:
        raise DataError(f"{heldout_path}: fewer than {_ANCHOR_WORDS} words")
    start = _GUTENBERG_START.search(raw)
    body = start.end() if start else 0
    cut = _locate(raw, heldout[:_ANCHOR_WORDS])
    if cut is None or cut <= body:
        raise DataError(f"{heldout_path}: its opening words are not in {raw_path} (cannot split off the training half)")
    return raw[body:cut].strip()


@lru_cache(maxsize=16)
def _corpus(root: Path, subject: str) -> str | None:
    half = _training_half(root, subject)
    return None if half is None else truncated(half)


def _locate(raw: str, words: list[str]) -> int | None:
    """The offset in `raw` where the word sequence `words` begins, whatever the whitespace."""
    spans = [m.span() for m in re.finditer(r"\S+", raw)]
    flat = " ".join(raw[a:b] for a, b in spans)
    at = flat.find(" ".join(words))
    if at < 0:
        return None
    starts, position = [], 0
    for a, b in spans:
        starts.append(position)
        position += b - a + 1
    index = bisect.bisect_right(starts, at) - 1
    return spans[index][0] + (at - starts[index])


def paragraphs(text: str) -> list[str]:
    """The text's paragraphs (blank-line separated), each on one line."""
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if p.strip()]


def truncated(text: str, words: int = CORPUS_WORDS) -> str:
    """At most `words` words of `text` (whitespace kept inside the part that stays)."""
    spans = [m.start() for m in re.finditer(r"\S+", text)]
    return text if len(spans) <= words else text[: spans[words]].rstrip()
