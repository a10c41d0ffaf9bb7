"""Recover per-source records from retrieved text (whole renders, units or arbitrary chunks).

Each line of the render has a grammar unique to its source ("- Planned bedtime ...",
"- Sleep: went to bed ...", "- Timesheet: ...", "- Sleep tracker: ..."), so a line's source
is read from the line itself; section headers are only needed for the one ambiguous line
("- Records unavailable for this date.", used by both logs). A line counts only if it
matches its full grammar and sits under a day heading, so truncated lines and garbage are
ignored. Duplicates merge by (source, date, line kind), keeping the longest line.

The output uses the released ``structural_sources`` field names (only the rendered
fields), so the atom readout runs unchanged on parsed and on structured sources.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from typing import Any

from ._common import DAYS, NUM_DAYS, START_DATE
from .render import TITLE_TO_SOURCE

DAILY_SOURCES = ("planner", "daily_self_report", "objective_log", "device_log")
_HHMM = r"\d{2}:\d{2}"
_T = f"({_HHMM})"
_F = r"(\d+(?:\.\d+)?)"

# (kind, source, pattern); first match wins, so specific patterns come before general ones
_LINE_GRAMMAR: list[tuple[str, str, re.Pattern[str]]] = [
    (k, s, re.compile(p))
    for k, s, p in (
        ("sleep", "planner", rf"^- Planned bedtime {_T}, wake ({_HHMM}|unknown), targeting {_F} hours of sleep\.$"),
        ("exercise", "planner", r"^- (No workout planned)\.$"),
        ("exercise", "planner", r"^- Planned (.+?)(?: for (\d+) minutes)?\.$"),
        ("work", "planner", rf"^- Work capped at {_F} hours(?:, finish by {_T})?\.$"),
        ("diet", "planner", r"^- Home-cooked food (not )?prioritized\.$"),
        ("social", "planner", r"^- (No social activity|Social activity) planned\.$"),
        ("empty", "planner", r"^- No specific plans recorded\.$"),
        (
            "sleep",
            "daily_self_report",
            rf"^- Sleep:(?: went to bed at {_T})?(?:, woke at {_T})?(?:, slept {_F} hours)?(?:, quality (good|fair|poor|unknown))?\.$",
        ),
        ("exercise", "daily_self_report", r"^- Exercise: (.+?)(?:, (\d+) minutes)?\.$"),
        ("diet", "daily_self_report", r"^- Diet:(?: (\d+) meals total)?(?:, (\d+) home-cooked)?\.$"),
        (
            "work",
            "daily_self_report",
            rf"^- Work:(?: {_F} hours)?(, overtime)?(, worked on weekend|, no weekend work commitment)?\.$",
        ),
        ("social", "daily_self_report", r"^- Social: (.+?)(\. Was supporting someone else)?\.$"),
        ("timesheet", "objective_log", rf"^- Timesheet: {_F} hours logged, (overtime reported|no overtime)\.$"),
        ("payments", "objective_log", r"^- Payments: (.+)\.$"),
        ("calendar", "objective_log", r"^- Calendar: (.+)\.$"),
        ("empty", "objective_log", r"^- No records for this date\.$"),
        ("sleep_tracker", "device_log", rf"^- Sleep tracker:(?: bed {_T})?(?:, wake {_T})?(?:, {_F} hours)?\.$"),
        (
            "activity",
            "device_log",
            r"^- Activity:(?: (\d+) active minutes)?(?:, (workout detected|no workout detected))?\.$",
        ),
        (
            "work_session",
            "device_log",
            r"^- Work session: (\d+) minutes of focus time(?:, (finished late|no late finish))?\.$",
        ),
        ("empty", "device_log", r"^- No device records for this date\.$"),
    )
]
#: how many leading characters of a line pick the grammar lines it is tried against
_KEY_LENGTH = 8


def _literal_prefixes(pattern: str) -> tuple[str, ...]:
    """The texts one of which every match of `pattern` starts with: its literal characters
    after '^' up to the first special one (less the last when a quantifier makes it
    optional), each alternative of a group of plain alternatives that follows them added
    (unless a quantifier makes that group optional)."""
    m = re.match(r"\^([^\\()\[\]{}?*+|.$]*)(.?)", pattern)
    if m is None:
        return ("",)
    literal, after = m.groups()
    if after in ("?", "*", "{"):
        return (literal[:-1],)
    group = re.match(r"\(([A-Za-z ]+(?:\|[A-Za-z ]+)*)\)(?![?*{])", pattern[m.end(1) :])
    if after == "(" and group is not None:
        return tuple(literal + alternative for alternative in group.group(1).split("|"))
    return (literal,)


_PREFIXES = [_literal_prefixes(pat.pattern) for _, _, pat in _LINE_GRAMMAR]


def _may_start(key: str, prefix: str) -> bool:
    """Whether a line whose first `_KEY_LENGTH` characters (or all, when shorter) are
    `key` can start with `prefix`."""
    if len(prefix) <= len(key):
        return key.startswith(prefix)
    return len(key) == _KEY_LENGTH and prefix.startswith(key)


@lru_cache(maxsize=256)
def _candidates(key: str) -> tuple[tuple[str, str, re.Pattern[str]], ...]:
    """The grammar lines, in order, that a line starting with `key` (its first
    `_KEY_LENGTH` characters, or all of a shorter line) can match: trying only these finds
    the same first match as trying all (a pattern none of whose literal prefixes starts
    the line cannot match), with about one regex call per line instead of ten."""
    return tuple(
        entry
        for entry, prefixes in zip(_LINE_GRAMMAR, _PREFIXES, strict=True)
        if any(_may_start(key, prefix) for prefix in prefixes)
    )


_UNAVAILABLE = "- Records unavailable for this date."
_UNAVAILABLE_MATCH = re.compile(re.escape(_UNAVAILABLE)).match(_UNAVAILABLE)
_DAY_RE = re.compile(r"^#### (\d{4})-(\d{2})-(\d{2})(?: \([A-Za-z]+\))?$")
_SECTION_RE = re.compile(r"^## (.+?)$")

_PROFILE_GRAMMAR: list[tuple[str, re.Pattern[str]]] = [
    (k, re.compile(p))
    for k, p in (
        ("identity", r"^(.+?) is a (\d+)-year-old (.+?) in (.+?)\.(?: Relationship status: (.+)\.)?$"),
        ("traits", r"^Traits: (.+)\.$"),
        ("sleep", rf"^Sleep habits: (?:typically goes to bed around {_T})?(?:, )?(?:sleeps about {_F} hours)?\.$"),
        ("exercise", rf"^Exercise: (?:exercises about {_F} days per week)?(?:, )?(?:usually through (.+?))?\.$"),
        ("diet", rf"^Diet: (?:averages {_F} meals per day)?(?:, )?(?:about {_F} of those are home-cooked)?\.$"),
        ("work", rf"^Work: (?:works about {_F} hours per day)?(?:, )?(?:overtime on about (\d+)% of days)?\.$"),
        ("social", rf"^Social life: (?:socially active about {_F} days per week)?\.$"),
    )
]
_STYLES = {
    "maintains strict work-life boundaries": "strict_boundary",
    "has a flexible approach to after-hours work": "flexible",
    "occasionally works after hours": "occasional",
}


@dataclass
class ParsedSources:
    """Per-source evidence recovered from text.

    ``profile`` holds profile facts in the ``profile_ltm.facts`` layout (only the blocks
    whose line was seen) or None; each daily source maps day_index -> record.
    """

    profile: dict[str, Any] | None = None
    planner: dict[int, dict[str, Any]] = field(default_factory=dict)
    daily_self_report: dict[int, dict[str, Any]] = field(default_factory=dict)
    objective_log: dict[int, dict[str, Any]] = field(default_factory=dict)
    device_log: dict[int, dict[str, Any]] = field(default_factory=dict)

    def days(self, source: str) -> list[int]:
        return sorted(getattr(self, source))

    def as_sources(self) -> dict[str, Any]:
        """The released ``structural_sources`` layout (absent sources are left out)."""
        out: dict[str, Any] = {}
        if self.profile is not None:
            out["profile_ltm"] = {"facts": self.profile}
        for name in DAILY_SOURCES:
            recs = getattr(self, name)
            if recs:
                out[name] = {"records": [recs[d] for d in sorted(recs)]}
        return out


def _day_index(m: re.Match[str]) -> int | None:
    try:
        d = date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None
    i = (d - START_DATE).days + 1
    return i if 1 <= i <= NUM_DAYS else None


@lru_cache(maxsize=512)
def _heading_day(line: str) -> int | None:
    """The day index of a day heading ('#### 2026-03-02 (Monday)'), None when it names no
    day of the window; a render repeats the same 30 headings in every source."""
    m = _DAY_RE.match(line)
    return _day_index(m) if m else None


def _num(text: str | None) -> float | None:
    return None if text is None else float(text)


def _planner(lines: Mapping[str, re.Match[str]], rec: dict[str, Any]) -> None:
    if "sleep" in lines:
        g = lines["sleep"].groups()
        rec["sleep_target"] = {
            "bedtime": g[0],
            "duration_h": float(g[2]),
            "wake_time": None if g[1] == "unknown" else g[1],
        }
    if "exercise" in lines:
        m = lines["exercise"]
        if m.group(1) == "No workout planned":
            rec["exercise_target"] = {"intended": False}
        else:
            rec["exercise_target"] = {
                "intended": True,
                "type": m.group(1),
                "duration_min": int(m.group(2)) if m.group(2) else 0,
            }
    if "work" in lines:
        g = lines["work"].groups()
        rec["work_target"] = {"hours_limit": float(g[0]), "avoid_overtime": True, "finish_by": g[1]}
    if "diet" in lines:
        rec["diet_target"] = {"home_cooked_priority": lines["diet"].group(1) is None}
    if "social" in lines:
        rec["social_target"] = {"intent": lines["social"].group(1) == "Social activity"}


def _self_report(lines: Mapping[str, re.Match[str]], rec: dict[str, Any]) -> None:
    if "sleep" in lines:
        g = lines["sleep"].groups()
        rec["sleep"] = {"bedtime": g[0], "wake_time": g[1], "duration_h": _num(g[2]), "quality_label": g[3]}
    if "exercise" in lines:
        m = lines["exercise"]
        if m.group(1) == "none" and m.group(2) is None:
            rec["exercise"] = {"did_exercise": False}
        else:
            rec["exercise"] = {
                "did_exercise": True,
                "type": m.group(1),
                "duration_min": int(m.group(2)) if m.group(2) else None,
            }
    if "diet" in lines:
        g = lines["diet"].groups()
        rec["diet"] = {"meals": None if g[0] is None else int(g[0]), "home_cooked": None if g[1] is None else int(g[1])}
    if "work" in lines:
        g = lines["work"].groups()
        rec["work"] = {
            "hours": _num(g[0]),
            "overtime": g[1] is not None,
            "worked_on_weekend": g[2] == ", worked on weekend",
        }
    if "social" in lines:
        m = lines["social"]
        acts = [] if m.group(1) == "no activities" else m.group(1).split(", ")
        rec["social"] = {"activities": acts, "supporting_other": m.group(2) is not None}


_PAYMENT_RE = re.compile(r"^(\d+) (.+?) purchases?$")
_CALENDAR_RE = re.compile(
    r"^([a-z ]+?)(?:: (.+?))?(?: \((?:(\d{2}:\d{2})-(\d{2}:\d{2})(?:, (\d+) min)?|(\d+) min)\))?$"
)


def _objective(lines: Mapping[str, re.Match[str]], rec: dict[str, Any]) -> None:
    sig: dict[str, Any] = {}
    if "timesheet" in lines:
        g = lines["timesheet"].groups()
        sig["timesheet"] = {"hours_logged": float(g[0]), "overtime_logged": g[1] == "overtime reported"}
    if "payments" in lines:
        items = [_PAYMENT_RE.match(p) for p in lines["payments"].group(1).split(", ")]
        sig["payments"] = [{"category": m.group(2).replace(" ", "_"), "count": int(m.group(1))} for m in items if m]
    if "calendar" in lines:
        entries = []
        for part in lines["calendar"].group(1).split("; "):
            m = _CALENDAR_RE.match(part)
            if not m:
                continue
            kind, title, start, end, dur, dur_only = m.groups()
            e: dict[str, Any] = {"kind": kind.replace(" ", "_")}
            if title:
                e["title"] = title
            if start:
                e.update(start=start, end=end)
            if dur or dur_only:
                e["duration_min"] = int(dur or dur_only)
            entries.append(e)
        sig["calendar"] = entries
    rec["signals"] = sig


def _device(lines: Mapping[str, re.Match[str]], rec: dict[str, Any]) -> None:
    sig: dict[str, Any] = {}
    if "sleep_tracker" in lines:
        g = lines["sleep_tracker"].groups()
        sig["sleep_tracker"] = {"bedtime": g[0], "wake_time": g[1], "duration_h": _num(g[2])}
    if "activity" in lines:
        g = lines["activity"].groups()
        sig["activity_tracker"] = {
            "active_minutes": None if g[0] is None else int(g[0]),
            "workout_detected": None if g[1] is None else g[1] == "workout detected",
        }
    if "work_session" in lines:
        g = lines["work_session"].groups()
        sig["work_session"] = {
            "focus_minutes": int(g[0]),
            "late_finish": None if g[1] is None else g[1] == "finished late",
        }
    rec["signals"] = sig


_BUILDERS: dict[str, Callable[[Mapping[str, re.Match[str]], dict[str, Any]], None]] = {
    "planner": _planner,
    "daily_self_report": _self_report,
    "objective_log": _objective,
    "device_log": _device,
}


def _profile(lines: Mapping[str, re.Match[str]]) -> dict[str, Any] | None:
    if not any(k != "identity" for k in lines):
        return None
    facts: dict[str, Any] = {}
    if "identity" in lines:
        g = lines["identity"].groups()
        facts["identity"] = {"name": g[0], "age": int(g[1]), "occupation": g[2], "city": g[3], "relationship": g[4]}
    if "traits" in lines:
        traits: dict[str, Any] = {"afterhours_work_style": None}
        for part in lines["traits"].group(1).split("; "):
            if part.startswith("dietary restriction: "):
                traits["dietary_restriction"] = part[len("dietary restriction: ") :]
            elif part.startswith("social preference toward "):
                traits["social_preference"] = part[len("social preference toward ") :]
            elif part.endswith(" close friends") and part.split(" ")[0].isdigit():
                traits["close_friends"] = int(part.split(" ")[0])
            elif part.startswith("primary exercise: "):
                traits["primary_exercise"] = part[len("primary exercise: ") :]
            elif part in _STYLES:
                traits["afterhours_work_style"] = _STYLES[part]
            elif part.startswith("after-hours style: "):
                traits["afterhours_work_style"] = part[len("after-hours style: ") :]
        facts["traits"] = traits
    snap: dict[str, Any] = {}
    fields = {
        "sleep": ("bedtime", "duration_h"),
        "exercise": ("days_per_week", "type"),
        "diet": ("meals_per_day", "home_cooked_mean"),
        "work": ("hours_mean", "overtime_share"),
        "social": ("active_days_per_week",),
    }
    for block, names in fields.items():
        if block not in lines:
            continue
        values = lines[block].groups()
        out = {}
        for name, raw in zip(names, values):
            if raw is None:
                continue
            if name in ("bedtime", "type"):
                out[name] = raw
            elif name == "overtime_share":
                out[name] = int(raw) / 100
            else:
                out[name] = float(raw)
        snap[block] = out
    facts["routine_snapshot"] = snap
    return facts


def parse_records(texts: Iterable[str] | str) -> ParsedSources:
    """Recover per-source structured records from any collection of text chunks."""
    if isinstance(texts, str):
        texts = [texts]
    daily: dict[tuple[str, int], dict[str, re.Match[str]]] = {}
    profile: dict[str, re.Match[str]] = {}

    def keep(store: dict[str, re.Match[str]], kind: str, m: re.Match[str]) -> None:
        old = store.get(kind)
        if old is None or len(m.string) > len(old.string):
            store[kind] = m

    for text in texts:
        source: str | None = None
        day: int | None = None
        for raw in str(text).splitlines():
            line = raw.strip()
            if not line:
                continue
            if line.startswith("#### "):
                day = _heading_day(line)
                continue
            if line.startswith("## "):
                title = line[3:].strip()
                source = TITLE_TO_SOURCE.get(title, title if title in DAILY_SOURCES else None)
                day = None
                continue
            if not line.startswith("- "):
                for kind, pat in _PROFILE_GRAMMAR:
                    m = pat.match(line)
                    if m:
                        keep(profile, kind, m)
                        source = "profile_ltm"
                        break
                continue
            if line == _UNAVAILABLE:
                if source in ("objective_log", "device_log") and day is not None:
                    keep(daily.setdefault((source, day), {}), "unavailable", _UNAVAILABLE_MATCH)  # type: ignore[arg-type]
                continue
            for kind, src, pat in _candidates(line[:_KEY_LENGTH]):
                m = pat.match(line)
                if m:
                    source = src
                    if day is not None:
                        store = daily.setdefault((src, day), {})
                        old = store.get(kind)  # `keep`, inline: the loop's hottest line
                        if old is None or len(line) > len(old.string):
                            store[kind] = m
                    break

    parsed = ParsedSources(profile=_profile(profile))
    for (src, day), lines in daily.items():
        rec: dict[str, Any] = {"date": DAYS[day - 1][0], "day_index": day}
        if src in ("objective_log", "device_log"):
            signal_lines = {k: v for k, v in lines.items() if k not in ("unavailable", "empty")}
            rec["available"] = bool(signal_lines) or "unavailable" not in lines
            lines = signal_lines
        _BUILDERS[src](lines, rec)
        getattr(parsed, src)[day] = rec
    return parsed
