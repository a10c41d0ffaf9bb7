"""--memeval-errata PATH: corrections to a benchmark's golds, read from one of two formats.

The plugin's own (memeval-errata/1):

    {"format": "memeval-errata/1",
     "source": "who published the corrections (a URL, a paper)",
     "errata": [
       {"suite": "locomo", "item": "conv-26-q001", "exclude": true, "reason": "..."},
       {"suite": "locomo", "item": "conv-26-q003", "gold": "March 2023", "reason": "...",
        "source": "this entry's own source, where it differs"}]}

Each entry names an item by its id in the suite (as the reports name it) and either
excludes it (`"exclude": true`) or gives its corrected gold (`"gold"`, any JSON value), with
its reason. dial481/locomo-audit's `errors.json`, as shipped (a list of objects with
`question_id` such as `locomo_0_qa1`, `golden_answer`, `correct_answer`, `error_type`,
`reasoning`), is read as locomo's errata: `WRONG_CITATION` (the gold is right, only its
evidence is not) leaves the item as it is; `AMBIGUOUS` (a gold the auditors call debatable)
excludes it; every other type corrects its gold to the audit's `correct_answer`. The suite
maps a foreign id onto its own (`Suite.erratum_item`). The audit is CC BY-NC: point at
your copy, the plugin ships none of it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..files import json_input
from ..files.user_files import read_text

OPTION = "--memeval-errata"
FORMAT = "memeval-errata/1"
AUDIT_SOURCE = "dial481/locomo-audit errors.json"
#: locomo-audit's error types that leave the gold as it is, and those that exclude the item
AUDIT_KEEPS = frozenset({"WRONG_CITATION"})
AUDIT_EXCLUDES = frozenset({"AMBIGUOUS"})
AUDIT_CORRECTS = frozenset({"HALLUCINATION", "TEMPORAL_ERROR", "ATTRIBUTION_ERROR", "INCOMPLETE"})


@dataclass(frozen=True)
class Erratum:
    """One item's correction: excluded, or its gold corrected (`gold`), with why and whose."""

    suite: str
    item: str
    exclude: bool
    gold: Any = None
    reason: str = ""
    source: str = ""


@dataclass(frozen=True)
class Errata:
    """The errata of a file, and the file's sha256 (the fingerprint's part)."""

    entries: tuple[Erratum, ...]
    sha256: str
    #: the entries read and left as they are (locomo-audit's WRONG_CITATION)
    kept: int = 0

    def of_suite(self, suite: str) -> tuple[Erratum, ...]:
        return tuple(e for e in self.entries if e.suite == suite)

    def digest(self, suite: str) -> str:
        """The sha256 of the suite's entries as read (empty when it has none)."""
        entries = self.of_suite(suite)
        if not entries:
            return ""
        text = json.dumps([e.__dict__ for e in entries], sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(text.encode()).hexdigest()


def read_errata(raw: str | None) -> Errata | None:
    if raw is None:
        return None
    path = Path(raw).expanduser()
    try:
        text = read_text(path)
        data = json_input.loads(text)
    except OSError as exc:
        raise ConfigError(f"{OPTION}: cannot read {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{OPTION}: {path} is not JSON: {str(exc).splitlines()[0]}") from None
    sha256 = hashlib.sha256(text.encode()).hexdigest()
    if isinstance(data, list):
        entries, kept = _audit(data, path)
        return Errata(entries, sha256, kept)
    if isinstance(data, Mapping) and data.get("format") == FORMAT:
        return Errata(_own(data, path), sha256)
    raise ConfigError(
        f"{OPTION}: {path} is neither {FORMAT} (an object naming its format) nor locomo-audit's errors.json"
    )


def _own(data: Mapping[str, Any], path: Path) -> tuple[Erratum, ...]:
    source = data.get("source", "")
    rows = data.get("errata")
    if not isinstance(source, str) or not isinstance(rows, list):
        raise ConfigError(f'{OPTION}: {path}: needs "source" (a string) and "errata" (a list)')
    entries = []
    for index, row in enumerate(rows):
        where = f"{OPTION}: {path}: errata[{index}]"
        if not isinstance(row, Mapping) or set(row) - {"suite", "item", "exclude", "gold", "reason", "source"}:
            raise ConfigError(f"{where}: an object of suite, item, exclude or gold, reason and source")
        suite, item, reason = row.get("suite"), row.get("item"), row.get("reason", "")
        if not all(isinstance(v, str) and v for v in (suite, item)) or not isinstance(reason, str):
            raise ConfigError(f"{where}: suite and item are non-empty strings, reason a string")
        exclude = row.get("exclude", False)
        if exclude is not True and "gold" not in row:
            raise ConfigError(f'{where}: says neither "exclude": true nor a corrected "gold"')
        if exclude is True and "gold" in row:
            raise ConfigError(f"{where}: excludes the item and corrects its gold: one or the other")
        own_source = row.get("source", source)
        entries.append(Erratum(str(suite), str(item), exclude is True, row.get("gold"), reason, str(own_source)))
    return _distinct(tuple(entries), path)


def _audit(rows: list[Any], path: Path) -> tuple[tuple[Erratum, ...], int]:
    entries, kept = [], 0
    for index, row in enumerate(rows):
        where = f"{OPTION}: {path}: entry {index}"
        if not isinstance(row, Mapping) or not isinstance(row.get("question_id"), str):
            raise ConfigError(f"{where}: not a locomo-audit error (no question_id)")
        kind = row.get("error_type")
        if kind in AUDIT_KEEPS:
            kept += 1
            continue
        if kind not in AUDIT_EXCLUDES | AUDIT_CORRECTS:
            raise ConfigError(f"{where} ({row['question_id']}): unknown error_type {kind!r}")
        reason = f"{kind}: {row.get('reasoning', '')}".strip()
        if kind in AUDIT_EXCLUDES:
            entries.append(Erratum("locomo", row["question_id"], True, None, reason, AUDIT_SOURCE))
            continue
        correct = row.get("correct_answer")
        if not isinstance(correct, str) or not correct.strip():
            raise ConfigError(f"{where} ({row['question_id']}): {kind} without a correct_answer")
        entries.append(Erratum("locomo", row["question_id"], False, correct, reason, AUDIT_SOURCE))
    return _distinct(tuple(entries), path), kept


def _distinct(entries: tuple[Erratum, ...], path: Path) -> tuple[Erratum, ...]:
    seen: set[tuple[str, str]] = set()
    for entry in entries:
        if (entry.suite, entry.item) in seen:
            raise ConfigError(f"{OPTION}: {path}: item {entry.item} of {entry.suite} is corrected twice")
        seen.add((entry.suite, entry.item))
    return entries
