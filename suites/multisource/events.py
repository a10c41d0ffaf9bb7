"""L2: the latent 30-day event table of one persona (released ``event_table.json`` schema)."""

from __future__ import annotations

from typing import Any

from ._common import DAYS, Rng, clamp, hhmm_to_min, min_to_hhmm
from .personas import PersonaSpec

STRESS_EVENTS = (
    "tight deadline",
    "difficult client call",
    "unexpected bug",
    "last-minute changes",
    "team conflict",
    "presentation prep",
    "budget concerns",
    "overloaded inbox",
)
_LATE_WEEKEND_BED = hhmm_to_min("23:45", bedtime=True)


def _sleep(p: dict[str, Any], rng: Rng, weekend: bool, target: int) -> dict[str, Any]:
    bed = int(rng.normal(hhmm_to_min(p["bedtime_mean"], bedtime=True), p["bedtime_std_min"]))
    if weekend:
        bed += rng.integers(15, 46)
    bed = int(clamp(bed, 1200, 1680))
    duration = round(clamp(rng.normal(p["duration_mean_h"], p["duration_std_h"]), 3.0, 11.0), 1)
    quality = int(clamp(round(rng.normal(p["quality_mean"], p["quality_std"])), 1, 5))
    interruptions = rng.integers(1, 4) if quality <= 2 else rng.integers(0, 2) if quality == 3 else 0
    return {
        "bedtime": min_to_hhmm(bed),
        "wake_time": min_to_hhmm(bed + int(duration * 60)),
        "duration_h": duration,
        "quality": quality,
        "interruptions": interruptions,
        "trouble_falling_asleep": rng.chance(p["trouble_falling_asleep_prob"]),
        "screen_before_bed": rng.chance(p["screen_before_bed_prob"]),
        "short_night": duration < 5.5,
        "weekend_late_bed": weekend and bed >= _LATE_WEEKEND_BED,
        "met_target_bedtime": bed <= target,
        "target_bedtime_minutes": target,
    }


def _exercise(p: dict[str, Any], rng: Rng, weekday: str) -> dict[str, Any]:
    preferred = p["preferred_days"]
    prob = (0.85 if weekday in preferred else 0.05) if preferred else p["days_per_week"] / 7.0
    if rng.chance(p["skip_prob"]):
        prob *= 0.3
    if not rng.chance(prob):
        return {"did_exercise": False, "exercise_type": None, "duration_min": None, "intentional": False}
    duration = int(clamp(int(rng.normal(p["duration_mean_min"], p["duration_std_min"])), 10, 120))
    # deliberate = long enough and on a habitual day (or no habitual days at all)
    on_habit = not preferred or weekday in preferred
    return {
        "did_exercise": True,
        "exercise_type": p["type"],
        "duration_min": duration,
        "intentional": on_habit and duration >= 30,
    }


def _work(p: dict[str, Any], rng: Rng, weekend: bool, sem: dict[str, Any]) -> dict[str, Any]:
    if weekend:
        if not rng.chance(p["weekend_work_prob"]):
            return {
                "hours": 0.0,
                "overtime": False,
                "is_weekend": True,
                "worked_on_weekend": False,
                "stress_events": [],
                "work_life_balance": 3,
                "afterhours_reason": None,
            }
        hours = rng.normal(p["hours_mean"] * 0.5, p["hours_std"])
    else:
        hours = rng.normal(p["hours_mean"], p["hours_std"])
    hours = round(clamp(hours, 0.0, 16.0), 1)
    overtime = hours > 9.0
    stress: list[str] = []
    if rng.chance(p["stress_prob"]):
        stress = rng.sample(STRESS_EVENTS, rng.integers(1, 3))
    wlb = 3.6 + (-0.9 if overtime else 0.2) + (-0.7 if weekend and hours > 0 else 0.0)
    wlb += (-0.5 if stress else 0.2) + (-0.4 if hours >= 9.5 else 0.2)
    reason = None
    if hours >= 9.0:
        reason = "self_project" if rng.chance(sem["afterhours_for_self_prob"]) else "team_need"
    return {
        "hours": hours,
        "overtime": overtime,
        "is_weekend": weekend,
        "worked_on_weekend": weekend and hours > 0,
        "stress_events": stress,
        "work_life_balance": int(clamp(round(wlb), 1, 5)),
        "afterhours_reason": reason,
    }


def _social(p: dict[str, Any], rng: Rng, weekend: bool, sem: dict[str, Any]) -> dict[str, Any]:
    prob = p["meetup_prob_per_day"] + (p["weekend_social_boost"] if weekend else 0.0)
    if not rng.chance(prob):
        return {"activities": [], "supporting_other": False}
    pool = p["social_activities"]
    activities = rng.sample(pool, min(1 if rng.chance(0.7) else 2, len(pool)))
    return {"activities": activities, "supporting_other": rng.chance(sem["obligation_social_prob"])}


def _diet(p: dict[str, Any], rng: Rng, sem: dict[str, Any], tags: list[str]) -> dict[str, Any]:
    meals = int(clamp(round(rng.normal(p["meals_per_day"], 0.4)), 1, 5))
    home_p = p["home_cook_prob"]
    home = sum(rng.chance(home_p) for _ in range(meals))
    ff_prob = p["fast_food_prob"]
    if "work_stress" in tags:
        ff_prob = max(ff_prob, sem["takeout_on_stress_prob"])
    # fast food is drawn per non-home meal with a rate renormalised by the non-home share
    ff_rate = ff_prob / max(1.0 - home_p + 0.01, 0.01)
    fast_food = sum(rng.chance(ff_rate) for _ in range(meals - home))
    coffee = int(clamp(round(rng.normal(p["coffee_cups_mean"], p["coffee_cups_std"])), 0, 8))
    exception = bool(set(tags) & set(sem["exception_contexts"]))
    meat_p = sem["self_meat_on_exception_prob"] if exception else sem["self_meat_baseline_prob"]
    other_p, shared_p = sem["for_others_food_order_prob"], sem["shared_order_prob"]
    orders = []
    for _ in range(meals):
        r = rng.random()
        beneficiary = "other" if r < other_p else "shared" if r < other_p + shared_p else "self"
        orders.append({"beneficiary": beneficiary, "meat_included": rng.chance(meat_p), "context_tag": tags[0]})
    return {"meals": meals, "home_cooked": home, "fast_food": fast_food, "coffee_cups": coffee, "food_orders": orders}


def _mood(
    p: dict[str, Any], rng: Rng, work: dict[str, Any], sleep: dict[str, Any], social: dict[str, Any], single: bool
) -> dict[str, Any]:
    overall = rng.normal(p["overall_mean"], p["overall_std"])
    overall -= (0.5 if work["stress_events"] else 0) + (0.5 if sleep["duration_h"] < 5.5 else 0)
    overall -= 0.3 if sleep["quality"] <= 2 else 0
    overall = int(clamp(round(overall), 1, 5))
    stressed = rng.chance(p["stress_prob"]) or bool(work["stress_events"])
    energy = rng.normal(p["energy_mean"], p["energy_std"]) - (1.0 if sleep["duration_h"] < 6.0 else 0)
    energy = int(clamp(round(energy), 1, 5))
    lonely = 2.2 + (0.6 if single else 0) + (-0.5 if social["activities"] else 0.9)
    lonely += (0.3 if overall <= 2 else -0.2) + (0.2 if energy <= 2 else 0)
    satisfied = 3.0 + (0.5 if sleep["duration_h"] >= 7.0 else -0.6)
    q = sleep["quality"]
    satisfied += 0.4 if q >= 4 else -0.3 if q <= 2 else 0.0
    satisfied += 0.4 if work["hours"] > 0 and not work["overtime"] else -0.7 if work["overtime"] else 0
    satisfied += 0.2 if social["activities"] else -0.1
    relax = None
    if rng.chance(p["relaxation_prob"]) and p["relaxation_activities"]:
        relax = rng.choice(p["relaxation_activities"])
    return {
        "overall": overall,
        "stressed": stressed,
        "energy": energy,
        "loneliness": int(clamp(round(lonely), 1, 5)),
        "routine_satisfaction": int(clamp(round(satisfied), 1, 5)),
        "relaxation_activity": relax,
    }


def generate_events(spec: PersonaSpec, rng: Rng) -> list[dict[str, Any]]:
    """The 30 daily records of ``spec``; temporal-shift personas switch params at shift_day."""
    # the latent bedtime target always refers to the pre-shift habit
    target = max(1200, hhmm_to_min(spec.params["sleep"]["bedtime_mean"], bedtime=True) - 20)
    single = spec.identity["relationship"] == "single"
    sem = spec.semantic
    records = []
    for i, (iso, weekday, weekend) in enumerate(DAYS):
        p = spec.params_on(i + 1)
        sleep = _sleep(p["sleep"], rng, weekend, target)
        exercise = _exercise(p["exercise"], rng, weekday)
        work = _work(p["work"], rng, weekend, sem)
        social = _social(p["social"], rng, weekend, sem)
        tags = sorted(
            (["weekend"] if weekend else [])
            + (["social"] if social["activities"] else [])
            + (["work_stress"] if work["stress_events"] or work["overtime"] else [])
        ) or ["routine"]
        diet = _diet(p["diet"], rng, sem, tags)
        mood = _mood(p["mood"], rng, work, sleep, social, single)
        records.append(
            {
                "date": iso,
                "day_of_week": weekday,
                "day_index": i + 1,
                "persona_id": spec.persona_id,
                "sleep": sleep,
                "exercise": exercise,
                "diet": diet,
                "work": work,
                "social": social,
                "mood": mood,
                "context_tags": tags,
            }
        )
    return records
