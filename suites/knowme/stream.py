"""The life stream: atomic narrative units, how they are written to memory and read back.

A unit is the released record (id, timestamp, location, action, dialogue, environment,
background, inner_thought). Its timestamp is when its content happened: a recalled
episode carries its historical date even though it is narrated later, next to the present
trigger that evoked it (the paper's mnemonic realignment).

What a memory system stores is `render(unit)`: a header line "YYYY-MM-DD HH:MM:SS | place"
("undated | place" for a released unit without a timestamp) and one "Field: text" line per
non-empty field. The unit id is not written: ids follow
narration order, and evidence ids are private. `parse_units` reads renders back out of any
memory texts (whole, several per text, or cut at line breaks).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
#: the header's time of a unit the release ships without a timestamp
UNDATED = "undated"
#: (record key, label in the rendered text)
FIELDS = (
    ("action", "Action"),
    ("dialogue", "Dialogue"),
    ("environment", "Environment"),
    ("background", "Background"),
    ("inner_thought", "Inner thought"),
)
_LABELS = {label: key for key, label in FIELDS}
_HEADER = re.compile(r"^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}) \| (.*)$")
_UNDATED_HEADER = re.compile(rf"^{UNDATED} \| ")
_FIELD_LINE = re.compile(r"^(Action|Dialogue|Environment|Background|Inner thought): (.*)$")

#: stack-machine alignment of a unit (paper App. A.4); private to the generator
ALIGNMENTS = ("MAINTAIN", "PUSH", "POP", "TRANSIENT")


@dataclass(frozen=True)
class Unit:
    id: int
    timestamp: str
    location: str
    action: str = ""
    dialogue: str = ""
    environment: str = ""
    background: str = ""
    inner_thought: str = ""
    #: 0 for the present, 1 inside a recalled (flashback) block; never rendered
    layer: int = 0
    alignment: str = "MAINTAIN"

    @property
    def time(self) -> datetime:
        return datetime.strptime(self.timestamp, TIME_FORMAT)

    @property
    def undated(self) -> bool:
        """A released unit shipped with an empty timestamp (kept, never placed in time)."""
        return not self.timestamp

    def record(self) -> dict[str, Any]:
        """The released record shape (empty fields as null)."""
        out: dict[str, Any] = {"id": self.id, "timestamp": self.timestamp, "location": self.location}
        out.update({key: getattr(self, key) or None for key, _ in FIELDS})
        return out


def render(unit: Unit) -> str:
    lines = [f"{unit.timestamp or UNDATED} | {unit.location}"]
    lines.extend(f"{label}: {getattr(unit, key)}" for key, label in FIELDS if getattr(unit, key))
    return "\n".join(lines)


@dataclass(frozen=True)
class ParsedUnit:
    """A unit as read back from memory text."""

    time: datetime
    location: str
    fields: Mapping[str, str] = field(default_factory=dict)

    def get(self, key: str) -> str:
        return self.fields.get(key, "")

    @property
    def text(self) -> str:
        return " ".join(self.fields.get(key, "") for key, _ in FIELDS)

    @property
    def date(self) -> str:
        return self.time.strftime("%Y-%m-%d")


def parse_units(texts: Iterable[str]) -> list[ParsedUnit]:
    """Every unit found in the texts, once each, in the order first seen.

    A chunk that starts mid-unit (no header) is skipped: without its timestamp and place it
    cannot anchor anything. So is an undated unit, for the same reason.
    """
    seen: dict[tuple[Any, ...], ParsedUnit] = {}
    for text in texts:
        current: tuple[datetime, str, dict[str, str]] | None = None
        last_key: str | None = None
        for line in text.splitlines():
            if _UNDATED_HEADER.match(line.strip()):
                _keep(seen, current)
                current, last_key = None, None
                continue
            header = _HEADER.match(line.strip())
            if header:
                _keep(seen, current)
                try:
                    when = datetime.strptime(header.group(1), TIME_FORMAT)
                except ValueError:
                    current, last_key = None, None
                    continue
                current, last_key = (when, header.group(2).strip(), {}), None
                continue
            if current is None:
                continue
            found = _FIELD_LINE.match(line.strip())
            if found:
                last_key = _LABELS[found.group(1)]
                current[2][last_key] = found.group(2).strip()
            elif last_key is not None and line.strip():
                current[2][last_key] += " " + line.strip()
        _keep(seen, current)
    return list(seen.values())


def _keep(seen: dict[tuple[Any, ...], ParsedUnit], current: tuple[datetime, str, dict[str, str]] | None) -> None:
    if current is None:
        return
    when, location, fields = current
    key = (when, location, tuple(sorted(fields.items())))
    if key not in seen:
        seen[key] = ParsedUnit(when, location, dict(fields))


def long_date(timestamp: str) -> str:
    """'March 14, 2011' for '2011-03-14 ...'."""
    when = datetime.strptime(timestamp[:10], "%Y-%m-%d")
    return f"{when:%B} {when.day}, {when.year}"


def month_year(timestamp: str) -> str:
    when = datetime.strptime(timestamp[:10], "%Y-%m-%d")
    return f"{when:%B} {when.year}"


def whole_years_between(earlier: datetime, later: datetime) -> int:
    """Completed years from `earlier` to `later` (a birthday-style count)."""
    years = later.year - earlier.year
    if (later.month, later.day, later.time()) < (earlier.month, earlier.day, earlier.time()):
        years -= 1
    return years


def format_duration(seconds: int) -> str:
    """'1 hour 5 minutes', '8 minutes 40 seconds', '2 hours'."""
    hours, rest = divmod(int(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    parts = []
    for value, unit in ((hours, "hour"), (minutes, "minute"), (secs, "second")):
        if value:
            parts.append(f"{value} {unit}{'' if value == 1 else 's'}")
    return " ".join(parts) if parts else "0 seconds"
