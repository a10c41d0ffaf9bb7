"""Deterministic natural-language render of the five sources (the released ``nl_renders``).

``render_markdown`` reproduces the released documents byte for byte; ``render_units``
splits the same text into self-describing units for memory ingestion: the profile section
as one unit and, for each daily source, one unit per day that repeats its section header.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ._common import SOURCE_NAMES, is_weekend, weekday_of

SECTION_TITLES: Mapping[str, str] = {
    "profile_ltm": "Long-Term Background and Habits",
    "planner": "Plans and Intentions",
    "daily_self_report": "Daily Self-Reports",
    "objective_log": "Objective Records",
    "device_log": "Device and Activity Records",
}
TITLE_TO_SOURCE: Mapping[str, str] = {v: k for k, v in SECTION_TITLES.items()}
_STYLE_TEXT = {
    "strict_boundary": "maintains strict work-life boundaries",
    "flexible": "has a flexible approach to after-hours work",
    "occasional": "occasionally works after hours",
}

Unit = tuple[str, str]


def day_heading(iso: str) -> str:
    try:
        return f"#### {iso} ({weekday_of(iso).capitalize()})"
    except (ValueError, AttributeError):
        return f"#### {iso}"


def _quality_word(q: float) -> str:
    return "good" if q >= 4.0 else "fair" if q >= 3.0 else "poor"


def profile_lines(doc: Mapping[str, Any]) -> list[str]:
    facts = doc.get("facts", {})
    ident, traits = facts.get("identity", {}), facts.get("traits", {})
    routine = facts.get("routine_snapshot", {})
    intro = f"{ident.get('name', 'This person')} is"
    if ident.get("age"):
        intro += f" a {ident['age']}-year-old"
    if ident.get("occupation"):
        intro += f" {ident['occupation']}"
    if ident.get("city"):
        intro += f" in {ident['city']}"
    intro += "."
    if ident.get("relationship"):
        intro += f" Relationship status: {ident['relationship']}."
    lines = [intro]

    parts = [
        f"dietary restriction: {traits['dietary_restriction']}"
        if traits.get("dietary_restriction")
        else "no dietary restrictions"
    ]
    if traits.get("social_preference"):
        parts.append(f"social preference toward {traits['social_preference']}")
    if traits.get("close_friends") is not None:
        parts.append(f"{traits['close_friends']} close friends")
    if traits.get("primary_exercise"):
        parts.append(f"primary exercise: {traits['primary_exercise']}")
    style = traits.get("afterhours_work_style")
    if style:
        parts.append(_STYLE_TEXT.get(style, f"after-hours style: {style}"))
    lines.append("Traits: " + "; ".join(parts) + ".")

    def topic(label: str, block: Mapping[str, Any], specs: Sequence[tuple[str, str]]) -> None:
        out = [fmt.format(block[key]) for key, fmt in specs if block.get(key)]
        if out:
            lines.append(f"{label}: " + ", ".join(out) + ".")

    topic(
        "Sleep habits",
        routine.get("sleep", {}),
        (("bedtime", "typically goes to bed around {}"), ("duration_h", "sleeps about {:.1f} hours")),
    )
    topic(
        "Exercise",
        routine.get("exercise", {}),
        (("days_per_week", "exercises about {:.1f} days per week"), ("type", "usually through {}")),
    )
    topic(
        "Diet",
        routine.get("diet", {}),
        (
            ("meals_per_day", "averages {:.1f} meals per day"),
            ("home_cooked_mean", "about {:.1f} of those are home-cooked"),
        ),
    )
    work = dict(routine.get("work", {}))
    if work.get("overtime_share"):
        work["overtime_pct"] = work["overtime_share"] * 100
    topic(
        "Work",
        work,
        (("hours_mean", "works about {:.1f} hours per day"), ("overtime_pct", "overtime on about {:.0f}% of days")),
    )
    topic(
        "Social life",
        routine.get("social", {}),
        (("active_days_per_week", "socially active about {:.1f} days per week"),),
    )
    return lines


def planner_lines(rec: Mapping[str, Any]) -> list[str]:
    parts = []
    st = rec.get("sleep_target") or {}
    if st.get("bedtime") and st.get("duration_h"):
        parts.append(
            f"Planned bedtime {st['bedtime']}, wake {st.get('wake_time') or 'unknown'}, "
            f"targeting {st['duration_h']:.1f} hours of sleep"
        )
    et = rec.get("exercise_target") or {}
    if et:
        if et.get("intended"):
            dur = et.get("duration_min")
            parts.append(f"Planned {et.get('type', 'exercise')}" + (f" for {dur} minutes" if dur else ""))
        else:
            parts.append("No workout planned")
    wt = rec.get("work_target") or {}
    if wt.get("hours_limit"):
        parts.append(
            f"Work capped at {wt['hours_limit']:.1f} hours"
            + (f", finish by {wt['finish_by']}" if wt.get("finish_by") else "")
        )
    hc = (rec.get("diet_target") or {}).get("home_cooked_priority")
    if hc is True:
        parts.append("Home-cooked food prioritized")
    elif hc is False:
        parts.append("Home-cooked food not prioritized")
    soc = rec.get("social_target") or {}
    if soc:
        parts.append("Social activity planned" if soc.get("intent") else "No social activity planned")
    return [f"- {p}." for p in parts] or ["- No specific plans recorded."]


def self_report_lines(rec: Mapping[str, Any]) -> list[str]:
    lines = []
    sl = rec.get("sleep") or {}
    if sl:
        s = "- Sleep:"
        if sl.get("bedtime"):
            s += f" went to bed at {sl['bedtime']}"
        if sl.get("wake_time"):
            s += f", woke at {sl['wake_time']}"
        if sl.get("duration_h") is not None:
            s += f", slept {sl['duration_h']:.1f} hours"
        if sl.get("quality") is not None:
            s += f", quality {_quality_word(float(sl['quality']))}"
        lines.append(s + ".")
    ex = rec.get("exercise") or {}
    if ex:
        if ex.get("did_exercise"):
            dur = ex.get("duration_min")
            lines.append(f"- Exercise: {ex.get('type', 'exercise')}" + (f", {dur} minutes" if dur else "") + ".")
        else:
            lines.append("- Exercise: none.")
    di = rec.get("diet") or {}
    if di:
        s = "- Diet:"
        if di.get("meals") is not None:
            s += f" {di['meals']} meals total"
        if di.get("home_cooked") is not None:
            s += f", {di['home_cooked']} home-cooked"
        lines.append(s + ".")
    wk = rec.get("work") or {}
    if wk:
        s = "- Work:"
        if wk.get("hours") is not None:
            s += f" {wk['hours']:.1f} hours"
        if wk.get("overtime") is True:
            s += ", overtime"
        if wk.get("worked_on_weekend") is True:
            s += ", worked on weekend"
        elif wk.get("worked_on_weekend") is False and is_weekend(rec["date"]):
            s += ", no weekend work commitment"
        lines.append(s + ".")
    so = rec.get("social") or {}
    if so:
        acts = so.get("activities") or []
        s = f"- Social: {', '.join(str(a) for a in acts)}" if acts else "- Social: no activities"
        if so.get("supporting_other") is True:
            s += ". Was supporting someone else"
        lines.append(s + ".")
    return lines


def objective_lines(rec: Mapping[str, Any]) -> list[str]:
    if not rec.get("available", True):
        return ["- Records unavailable for this date."]
    sig = rec.get("signals") or {}
    lines = []
    ts = sig.get("timesheet")
    if ts:
        lines.append(
            f"- Timesheet: {ts['hours_logged']:.1f} hours logged"
            + (", overtime reported" if ts.get("overtime_logged") else ", no overtime")
            + "."
        )
    if sig.get("payments"):
        pays = [
            f"{p.get('count', 1)} {p.get('category', 'unknown').replace('_', ' ')} purchase"
            + ("s" if p.get("count", 1) > 1 else "")
            for p in sig["payments"]
        ]
        lines.append(f"- Payments: {', '.join(pays)}.")
    if sig.get("calendar"):
        entries = []
        for e in sig["calendar"]:
            s = e.get("kind", "event").replace("_", " ")
            if e.get("title"):
                s += f": {e['title']}"
            if e.get("start") and e.get("end"):
                s += (
                    f" ({e['start']}-{e['end']}" + (f", {e['duration_min']} min" if e.get("duration_min") else "") + ")"
                )
            elif e.get("duration_min"):
                s += f" ({e['duration_min']} min)"
            entries.append(s)
        lines.append(f"- Calendar: {'; '.join(entries)}.")
    return lines or ["- No records for this date."]


def device_lines(rec: Mapping[str, Any]) -> list[str]:
    if not rec.get("available", True):
        return ["- Records unavailable for this date."]
    sig = rec.get("signals") or {}
    lines = []
    st = sig.get("sleep_tracker")
    if st:
        s = "- Sleep tracker:"
        if st.get("bedtime"):
            s += f" bed {st['bedtime']}"
        if st.get("wake_time"):
            s += f", wake {st['wake_time']}"
        if st.get("duration_h") is not None:
            s += f", {st['duration_h']:.1f} hours"
        lines.append(s + ".")
    at = sig.get("activity_tracker")
    if at:
        s = "- Activity:"
        if at.get("active_minutes") is not None:
            s += f" {at['active_minutes']} active minutes"
        if at.get("workout_detected") is True:
            s += ", workout detected"
        elif at.get("workout_detected") is False:
            s += ", no workout detected"
        lines.append(s + ".")
    ws = sig.get("work_session")
    if ws and ws.get("focus_minutes") is not None:
        s = f"- Work session: {ws['focus_minutes']} minutes of focus time"
        if ws.get("late_finish") is True:
            s += ", finished late"
        elif ws.get("late_finish") is False:
            s += ", no late finish"
        lines.append(s + ".")
    return lines or ["- No device records for this date."]


_DAY_RENDERERS = {
    "planner": planner_lines,
    "daily_self_report": self_report_lines,
    "objective_log": objective_lines,
    "device_log": device_lines,
}


def _records(doc: Any) -> list[Mapping[str, Any]]:
    return list(doc.get("records", [])) if isinstance(doc, Mapping) else list(doc)


def render_section(name: str, doc: Any) -> str:
    """One ``## ...`` section of the memory document."""
    if doc is None:
        return f"## {name}\n\nData not available."
    lines = [f"## {SECTION_TITLES[name]}", ""]
    if name == "profile_ltm":
        return "\n".join(lines + profile_lines(doc))
    for rec in _records(doc):
        lines.append(day_heading(rec.get("date", "unknown")))
        lines.extend(_DAY_RENDERERS[name](rec))
        lines.append("")
    return "\n".join(lines)


def _documents(sources: Any) -> Mapping[str, Any]:
    """The source documents of a ``Persona`` or a ``{name: document}`` mapping."""
    return getattr(sources, "sources", sources)


def render_markdown(sources: Mapping[str, Any]) -> str:
    """The full five-section memory document, as released in ``nl_renders/<id>.md``.

    ``sources`` maps source names to released documents (``Persona.sources``); a
    ``Persona`` itself is accepted too.
    """
    sources = _documents(sources)
    return "\n\n".join(render_section(name, sources.get(name)) for name in SOURCE_NAMES)


def render_units(sources: Mapping[str, Any]) -> list[Unit]:
    """The memory document as (source, text) units: the profile, then one per source-day."""
    sources = _documents(sources)
    units: list[Unit] = []
    for name in SOURCE_NAMES:
        doc = sources.get(name)
        if doc is None:
            continue
        if name == "profile_ltm":
            units.append((name, render_section(name, doc)))
            continue
        header = f"## {SECTION_TITLES[name]}"
        for rec in _records(doc):
            body = "\n".join([day_heading(rec.get("date", "unknown")), *_DAY_RENDERERS[name](rec)])
            units.append((name, f"{header}\n{body}"))
    return units


_SECTION_RE = re.compile(r"^## (.+?)\s*$", re.M)
_DAY_RE = re.compile(r"^#### ", re.M)


def units_from_markdown(text: str) -> list[Unit]:
    """Split a released (or ``render_markdown``) document into ``render_units`` units."""
    units: list[Unit] = []
    heads = list(_SECTION_RE.finditer(text))
    for i, m in enumerate(heads):
        name = TITLE_TO_SOURCE.get(m.group(1))
        if name is None:
            continue
        body = text[m.end() : heads[i + 1].start() if i + 1 < len(heads) else len(text)]
        if name == "profile_ltm":
            units.append((name, f"## {m.group(1)}\n\n{body.strip()}"))
            continue
        starts = [d.start() for d in _DAY_RE.finditer(body)]
        for j, s in enumerate(starts):
            block = body[s : starts[j + 1] if j + 1 < len(starts) else len(body)].strip()
            units.append((name, f"## {m.group(1)}\n{block}"))
    return units
