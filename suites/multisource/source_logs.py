"""L3: the biased daily self-report and the two sparse logs (objective, device).

Self-report bias is topic dependent (sleep/diet/exercise flattered, work and social
under-reported, obligations reframed as voluntary); the objective log is accurate with
small noise, day dropout and partial coverage; the device log is precise but misses whole
days and drops fields (phone usage ~35%, work session ~50%).
"""

from __future__ import annotations

from typing import Any

from ._common import SCHEMA_VERSION, Rng, clamp, hhmm_to_min, min_to_hhmm
from .personas import PersonaSpec

_JITTER = (-1, 0, 0, 1)
_UP = (0, 0, 1)


def header(spec: PersonaSpec, source: str) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "source_type": source,
        "persona_id": spec.persona_id,
        "persona_name": spec.name,
    }


def _report_sleep(a: dict[str, Any], rng: Rng, cr: float) -> dict[str, Any]:
    bed = hhmm_to_min(a["bedtime"], bedtime=True) + rng.integers(-30, 31)
    wake = hhmm_to_min(a["wake_time"]) + rng.integers(-25, 26)
    duration = a["duration_h"] + rng.uniform(-0.6, 0.4)
    quality = a["quality"] + rng.choice(_JITTER)
    if rng.chance(cr):  # flattering night
        duration += rng.uniform(0.4, 1.0)
        quality = int(clamp(quality + 1, 1, 5))
    return {
        "bedtime": min_to_hhmm(bed),
        "wake_time": min_to_hhmm(wake),
        "duration_h": round(clamp(duration, 4.0, 11.5), 1),
        "quality": int(clamp(quality, 1, 5)),
        "screen_before_bed": a["screen_before_bed"] or rng.chance(0.25),
    }


def _report_exercise(a: dict[str, Any], rng: Rng, cr: float, over: float) -> dict[str, Any]:
    if not a["did_exercise"]:
        if rng.chance(max(cr, over)):  # claims a light session that did not happen
            return {
                "did_exercise": True,
                "type": rng.choice(("walking", "stretching", "yoga")),
                "duration_min": rng.integers(10, 26),
            }
        return {"did_exercise": False}
    duration = a["duration_min"] * rng.uniform(0.90, 1.30)
    if rng.chance(over):
        duration += rng.uniform(5, 12)
    if rng.chance(cr):
        duration += rng.integers(5, 16)
    return {
        "did_exercise": True,
        "type": a["exercise_type"] or rng.choice(("walking", "running", "yoga")),
        "duration_min": int(clamp(duration, 10, 150)),
    }


def _report_diet(a: dict[str, Any], rng: Rng, cr: float, under: float, over: float) -> dict[str, Any]:
    meals = int(clamp(a["meals"] + rng.choice(_JITTER), 1, 6))
    home = int(clamp(a["home_cooked"] + rng.choice(_UP), 0, meals))
    fast = int(clamp(a["fast_food"] - rng.choice(_UP), 0, meals))
    coffee = int(clamp(a["coffee_cups"] + rng.choice(_JITTER), 0, 8))
    if rng.chance(over):
        home = min(meals, home + 1)
    if rng.chance(under):
        fast, coffee = max(0, fast - 1), max(0, coffee - 1)
    if rng.chance(cr):
        home, fast = min(meals, home + 1), max(0, fast - 1)
    orders = []
    for order in a["food_orders"]:
        o = dict(order)
        if o["beneficiary"] not in ("self", "shared") and rng.chance(0.38):
            o["beneficiary"] = "shared" if rng.chance(0.55) else "self"
        if o["meat_included"] and rng.chance(0.30):
            o["meat_included"] = False
        orders.append(o)
    return {"meals": meals, "home_cooked": home, "fast_food": fast, "coffee_cups": coffee, "food_orders": orders}


def _report_work(a: dict[str, Any], rng: Rng, cr: float, under: float) -> dict[str, Any]:
    hours = a["hours"] + rng.uniform(-1.5, 0.75)
    overtime = a["overtime"]
    stress = list(a["stress_events"])
    if rng.chance(under):
        hours -= rng.uniform(0.75, 1.75)
        overtime = False
    if rng.chance(cr):
        hours -= rng.uniform(0.5, 1.5)
        overtime = False
        if stress and rng.chance(0.5):
            stress = stress[:1]
    hours = round(clamp(hours, 0, 16), 1)
    reason = a["afterhours_reason"]
    if reason == "team_need" and rng.chance(0.42):  # obligation told as choice
        reason = "self_project"
    weekend_work = a["worked_on_weekend"]
    if weekend_work and rng.chance(under):
        weekend_work = False
    return {
        "hours": hours,
        "overtime": overtime and hours > 9,
        "worked_on_weekend": weekend_work,
        "stress_events": stress,
        "work_life_balance": a["work_life_balance"],
        "afterhours_reason": reason,
    }


def _report_social(a: dict[str, Any], rng: Rng, cr: float) -> dict[str, Any]:
    activities = list(a["activities"])
    if activities and rng.chance(0.45):
        activities = activities[:1]
    if not activities and rng.chance(cr):
        activities = [rng.choice(("called a friend", "grabbed coffee with someone", "went for a walk with a friend"))]
    if rng.chance(cr) and activities:
        activities.append(rng.choice(("video call with friends", "quiet dinner at home", "book club")))
    supporting = a["supporting_other"]
    if supporting and rng.chance(0.42):
        supporting = False
    return {"activities": activities, "supporting_other": supporting}


def _report_mood(a: dict[str, Any], rng: Rng, cr: float, over: float) -> dict[str, Any]:
    overall = a["overall"] + rng.choice(_UP)
    energy = a["energy"] + rng.choice(_UP)
    stressed = a["stressed"]
    relax = a["relaxation_activity"]
    if rng.chance(max(cr, over)):
        overall, stressed = min(5, overall + 1), False
    if rng.chance(0.35) and not relax:
        relax = rng.choice(("reading", "music", "stretching", "watching TV"))
    return {
        "overall": int(clamp(overall, 1, 5)),
        "stressed": stressed,
        "energy": int(clamp(energy, 1, 5)),
        "loneliness": a["loneliness"],
        "routine_satisfaction": a["routine_satisfaction"],
        "relaxation_activity": relax,
    }


def build_self_report(
    spec: PersonaSpec, events: list[dict[str, Any]], knobs: dict[str, Any], rng: Rng
) -> dict[str, Any]:
    cr = knobs["self_report_conflict_rate"]
    under = knobs["self_report_underreport_bias"]
    over = knobs["self_report_overreport_bias"]
    records = [
        {
            "date": ev["date"],
            "day_index": ev["day_index"],
            "sleep": _report_sleep(ev["sleep"], rng, cr),
            "exercise": _report_exercise(ev["exercise"], rng, cr, over),
            "diet": _report_diet(ev["diet"], rng, cr, under, over),
            "work": _report_work(ev["work"], rng, cr, under),
            "social": _report_social(ev["social"], rng, cr),
            "mood": _report_mood(ev["mood"], rng, cr, over),
        }
        for ev in events
    ]
    return {**header(spec, "daily_self_report"), "records": records}


def _missing(ev: dict[str, Any]) -> dict[str, Any]:
    return {"date": ev["date"], "day_index": ev["day_index"], "available": False, "signals": {}}


def build_objective_log(
    spec: PersonaSpec, events: list[dict[str, Any]], knobs: dict[str, Any], rng: Rng
) -> dict[str, Any]:
    """Payments (delivery seen 75%), timesheet (80%), calendar, check-ins (40%)."""
    records = []
    for ev in events:
        if rng.chance(knobs["objective_dropout_rate"]):
            records.append(_missing(ev))
            continue
        work, diet, ex, social = ev["work"], ev["diet"], ev["exercise"], ev["social"]
        weekend = work["is_weekend"]
        signals: dict[str, Any] = {}
        payments = []
        if diet["coffee_cups"] > 0:
            payments.append(
                {"category": "coffee", "count": int(clamp(diet["coffee_cups"] + rng.choice(_JITTER), 0, 8))}
            )
        if diet["fast_food"] > 0 and not rng.chance(0.25):
            payments.append(
                {"category": "food_delivery", "count": int(clamp(diet["fast_food"] + rng.choice(_JITTER), 0, 5))}
            )
        if ex["did_exercise"] and rng.chance(0.3):
            payments.append({"category": "fitness", "count": 1})
        if payments:
            signals["payments"] = payments
        if not rng.chance(0.2):
            signals["timesheet"] = {
                "hours_logged": round(clamp(work["hours"] + rng.uniform(-0.5, 0.5), 0.0, 16.0), 1),
                "overtime_logged": work["overtime"],
            }
        calendar = []
        if work["hours"] > 0:
            start = 10 if weekend else 9
            block = int(clamp(round(work["hours"] * 60), 30, 900))
            calendar.append(
                {
                    "kind": "work_block",
                    "start": f"{start:02d}:00",
                    "end": min_to_hhmm(start * 60 + block),
                    "duration_min": block,
                }
            )
        if social["activities"]:
            calendar.append(
                {"kind": "social_event", "title": social["activities"][0], "duration_min": rng.integers(60, 181)}
            )
        if ex["did_exercise"] and not rng.chance(0.2):
            calendar.append(
                {
                    "kind": "exercise_session",
                    "title": ex["exercise_type"] or "exercise",
                    "duration_min": int(clamp(ex["duration_min"] + rng.integers(-5, 6), 10, 180)),
                }
            )
        if calendar:  # noisy days keep only the first calendar entry
            noisy = rng.chance(knobs["objective_noise_rate"])
            signals["calendar"] = calendar[:1] if noisy else calendar
        if not rng.chance(0.6):
            checkins = [{"kind": "home", "count": 1}]
            if work["hours"] > 0 and not weekend:
                checkins.append({"kind": "office", "count": 1})
            signals["checkins"] = checkins
        records.append({"date": ev["date"], "day_index": ev["day_index"], "available": True, "signals": signals})
    return {**header(spec, "objective_log"), "records": records}


def build_device_log(
    spec: PersonaSpec, events: list[dict[str, Any]], knobs: dict[str, Any], rng: Rng
) -> dict[str, Any]:
    records = []
    for ev in events:
        if rng.chance(knobs["device_dropout_rate"]):
            records.append(_missing(ev))
            continue
        sleep, ex, work = ev["sleep"], ev["exercise"], ev["work"]
        duration = round(clamp(sleep["duration_h"] + rng.uniform(-0.4, 0.3), 3.5, 12.0), 1)
        signals: dict[str, Any] = {
            "sleep_tracker": {
                "bedtime": min_to_hhmm(hhmm_to_min(sleep["bedtime"], bedtime=True) + rng.integers(-20, 21)),
                "wake_time": min_to_hhmm(hhmm_to_min(sleep["wake_time"]) + rng.integers(-15, 16)),
                "duration_h": duration,
                "wearable_quality_flag": rng.choice(("good", "good", "degraded")),
            }
        }
        if ex["did_exercise"]:
            minutes = int(clamp(ex["duration_min"] + rng.integers(-8, 9), 0, 180))
            steps = int(clamp(minutes * rng.uniform(90, 140) + rng.integers(500, 2501), 1500, 22000))
        else:
            minutes = rng.integers(15, 46)
            steps = rng.integers(2500, 8501)
        signals["activity_tracker"] = {
            "steps": steps,
            "active_minutes": minutes,
            "workout_detected": ex["did_exercise"],
        }
        if not rng.chance(0.35):
            late = sleep["screen_before_bed"] if rng.chance(0.7) else rng.chance(0.25)
            signals["phone_usage"] = {
                "screen_time_min": int(clamp((120 if duration < 6.5 else 0) + rng.integers(80, 361), 20, 720)),
                "late_night_use": late,
            }
        if not rng.chance(0.5):
            signals["work_session"] = {
                "focus_minutes": int(clamp(round(work["hours"] * 45 + rng.integers(-30, 46)), 0, 900)),
                "late_finish": work["overtime"],
            }
        if rng.chance(knobs["device_noise_rate"]):
            tracker = signals["activity_tracker"]
            tracker["steps"] = int(clamp(tracker["steps"] + rng.integers(-1200, 1801), 0, 25000))
        records.append({"date": ev["date"], "day_index": ev["day_index"], "available": True, "signals": signals})
    return {**header(spec, "device_log"), "records": records}
