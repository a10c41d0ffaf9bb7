"""L3: the stale profile and the optimistic planner, plus the per-difficulty source knobs.

Each projector reads the latent events and writes one source in the released
``structural_sources/<name>.json`` schema. ``project_sources`` assembles all five sources
and ``generation_metadata``; the self-report and the two logs live in ``source_logs``.
"""

from __future__ import annotations

from typing import Any

from ._common import SCHEMA_VERSION, Rng, clamp, hhmm_to_min, min_to_hhmm, stream_seed
from .personas import PersonaSpec
from .source_logs import build_device_log, build_objective_log, build_self_report, header

# stream numbers of the per-persona RNGs (0 = L1 persona, 1 = L2 events)
STREAMS = {"profile_ltm": 2, "planner": 3, "daily_self_report": 4, "objective_log": 5, "device_log": 6}

_KNOB_NAMES = (
    "self_report_conflict_rate",
    "self_report_underreport_bias",
    "self_report_overreport_bias",
    "planner_optimism_bias",
    "planner_behavior_gap_rate",
    "device_dropout_rate",
    "device_noise_rate",
    "objective_dropout_rate",
    "objective_noise_rate",
)
_KNOB_VALUES = {
    "stable": (0.16, 0.12, 0.10, 0.14, 0.12, 0.10, 0.08, 0.09, 0.07),
    "temporal_shift": (0.20, 0.18, 0.12, 0.20, 0.26, 0.14, 0.13, 0.12, 0.10),
    "stated_vs_revealed": (0.34, 0.10, 0.24, 0.28, 0.22, 0.16, 0.14, 0.15, 0.11),
}


def source_knobs(spec: PersonaSpec) -> dict[str, Any]:
    if spec.difficulty == "temporal_shift":
        anchor = max(2, spec.shift["shift_day"] - 2)  # type: ignore[index]
    else:
        anchor = 10 if spec.difficulty == "stated_vs_revealed" else 12
    knobs: dict[str, Any] = {"profile_anchor_end_day": anchor}
    knobs.update(zip(_KNOB_NAMES, _KNOB_VALUES[spec.difficulty]))
    if spec.stated is not None:  # sparse stated personas lose more log days
        extra = spec.stated["missing_day_prob"]
        knobs["device_dropout_rate"] = min(0.50, knobs["device_dropout_rate"] + extra)
        knobs["objective_dropout_rate"] = min(0.50, knobs["objective_dropout_rate"] + extra)
    return knobs


def _mean(values: list[float]) -> float:
    # the released profiles round the mean to 3 places before the final rounding
    return round(sum(values) / len(values), 3) if values else 0.0


def _mode(values: list[str]) -> str | None:
    counts: dict[str, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    best = None
    for v, c in counts.items():  # first-seen wins ties
        if best is None or c > counts[best]:
            best = v
    return best


def _snapshot(anchor: list[dict[str, Any]], params: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Early-window routine summary; zero/empty statistics fall back to the habit params."""
    n = len(anchor)
    ps, pe, pd, pw, pso, pm = (params[k] for k in ("sleep", "exercise", "diet", "work", "social", "mood"))
    active = [r["exercise"] for r in anchor if r["exercise"]["did_exercise"]]
    social_days = sum(1 for r in anchor if r["social"]["activities"])
    acts = [a for r in anchor for a in r["social"]["activities"]]
    bed = _mean([hhmm_to_min(r["sleep"]["bedtime"], bedtime=True) for r in anchor])
    return {
        "sleep": {
            "bedtime": min_to_hhmm(int(round(bed))) if n else ps["bedtime_mean"],
            "duration_h": round(_mean([r["sleep"]["duration_h"] for r in anchor]), 1) or ps["duration_mean_h"],
            "quality_mean": round(_mean([r["sleep"]["quality"] for r in anchor]), 1) or ps["quality_mean"],
        },
        "exercise": {
            "days_per_week": round(len(active) * 7.0 / n, 1) or pe["days_per_week"],
            "type": _mode([e["exercise_type"] for e in active if e["exercise_type"]]) or pe["type"],
            "session_minutes": (round(_mean([e["duration_min"] for e in active]), 1) if active else 0.0)
            or pe["duration_mean_min"],
        },
        "diet": {
            "meals_per_day": round(_mean([r["diet"]["meals"] for r in anchor]), 1) or pd["meals_per_day"],
            "home_cooked_mean": round(_mean([r["diet"]["home_cooked"] for r in anchor]), 1)
            or round(pd["home_cook_prob"] * pd["meals_per_day"], 1),
            "coffee_cups_mean": round(_mean([r["diet"]["coffee_cups"] for r in anchor]), 1) or pd["coffee_cups_mean"],
        },
        "work": {
            "hours_mean": round(_mean([r["work"]["hours"] for r in anchor]), 1) or pw["hours_mean"],
            "overtime_share": round(sum(r["work"]["overtime"] for r in anchor) / n, 2) or pw["overtime_prob"],
            "work_life_balance_mean": round(_mean([r["work"]["work_life_balance"] for r in anchor]), 1),
        },
        "social": {
            "active_days_per_week": round(social_days * 7.0 / n, 1) or round(pso["meetup_prob_per_day"] * 7.0, 1),
            "activity_mode": _mode(acts) or (pso["social_activities"][0] if pso["social_activities"] else None),
        },
        "mood": {
            "overall_mean": round(_mean([r["mood"]["overall"] for r in anchor]), 1) or pm["overall_mean"],
            "energy_mean": round(_mean([r["mood"]["energy"] for r in anchor]), 1) or pm["energy_mean"],
            "stressed_share": round(sum(r["mood"]["stressed"] for r in anchor) / n, 2) or pm["stress_prob"],
            "loneliness_mean": round(_mean([r["mood"]["loneliness"] for r in anchor]), 1),
            "routine_satisfaction_mean": round(_mean([r["mood"]["routine_satisfaction"] for r in anchor]), 1),
        },
    }


def _stated_snapshot(spec: PersonaSpec) -> dict[str, Any]:
    """The idealised self-narrative of a stated-vs-revealed persona."""
    stated = spec.stated or {}
    return {
        "sleep": {"bedtime": "22:30", "duration_h": 8.0, "quality_label": "good"},
        "exercise": {"days_per_week": 5.0, "type": spec.traits["primary_exercise"], "session_minutes": 45},
        "diet": {"meals_per_day": 3.0, "home_cooked_mean": 2.1, "home_cooked_bias": "often", "coffee_cups_mean": 1.0},
        "work": {"hours_mean": 8.0, "overtime_bias": "rare"},
        "social": {"self_description": stated.get("social_description"), "close_friends": spec.traits["close_friends"]},
        "mood": {"self_description": stated.get("mood_description")},
    }


def build_profile(spec: PersonaSpec, events: list[dict[str, Any]], knobs: dict[str, Any]) -> dict[str, Any]:
    anchor_end = knobs["profile_anchor_end_day"]
    anchor = [r for r in events if r["day_index"] <= anchor_end]
    if spec.difficulty == "stated_vs_revealed":
        snapshot, style = _stated_snapshot(spec), "strict_boundary"
    else:
        snapshot = _snapshot(anchor, spec.params)
        weekends = [r["work"] for r in anchor if r["work"]["is_weekend"]]
        style = None
        if weekends:
            rate = sum(w["worked_on_weekend"] for w in weekends) / len(weekends)
            style = "strict_boundary" if rate <= 0.15 else "flexible" if rate >= 0.35 else None
    ident = spec.identity
    return {
        **header(spec, "profile_ltm"),
        "difficulty_type": spec.difficulty,
        "anchor_window": {
            "start_day_index": 1,
            "end_day_index": anchor_end,
            "total_days": len(events),
            "staleness_days": max(0, len(events) - anchor_end),
        },
        "facts": {
            "identity": {
                "name": spec.name,
                "age": ident["age"],
                "occupation": ident["occupation"],
                "city": ident["city"],
                "relationship": ident["relationship"],
            },
            "traits": {**spec.traits, "afterhours_work_style": style},
            "routine_snapshot": snapshot,
        },
    }


def build_planner(spec: PersonaSpec, events: list[dict[str, Any]], knobs: dict[str, Any], rng: Rng) -> dict[str, Any]:
    """Aspirational plans drawn from the habit params (never from what happened)."""
    p = spec.params
    opt, gap = knobs["planner_optimism_bias"], knobs["planner_behavior_gap_rate"]
    base_duration = round(clamp(p["sleep"]["duration_mean_h"] + opt, 5.5, 9.0), 1)
    habit_bed = hhmm_to_min(p["sleep"]["bedtime_mean"], bedtime=True)
    plan_ex_p = min(0.95, p["exercise"]["days_per_week"] / 7.0 + 0.15)
    base_ex_min = int(clamp(round(p["exercise"]["duration_mean_min"] * (1.0 + opt * 0.5)), 10, 120))
    social_p = max(0.2, p["social"]["meetup_prob_per_day"] + 0.10)
    diet_target = {
        "meals": int(clamp(round(p["diet"]["meals_per_day"]), 1, 5)),
        "home_cooked_priority": p["diet"]["home_cook_prob"] >= 0.5,
        "coffee_limit": int(clamp(round(p["diet"]["coffee_cups_mean"] + 0.5), 0, 8)),
    }
    mood_goal = int(clamp(round(p["mood"]["overall_mean"] + 0.3), 1, 5))
    context = {
        "city": spec.identity["city"],
        "occupation": spec.identity["occupation"],
        "dietary_restriction": spec.traits["dietary_restriction"],
    }
    records = []
    for ev in events:
        weekend = ev["work"]["is_weekend"]
        duration = base_duration
        bed = habit_bed - rng.integers(10, 36)
        planned = rng.chance(plan_ex_p)
        ex_min = base_ex_min
        limit = round(clamp(p["work"]["hours_mean"] - rng.uniform(0.2, 0.8), 4.0, 12.0), 1)
        social = rng.chance(social_p)
        if rng.chance(gap):  # an extra-aspirational day
            duration = round(clamp(duration + rng.uniform(0.2, 0.6), 5.5, 9.0), 1)
            limit = round(clamp(limit - rng.uniform(0.4, 1.1), 0.0, 12.0), 1)
            if not planned:
                planned = True
                ex_min = int(clamp(ex_min + rng.integers(5, 16), 10, 120))
            if rng.chance(0.5):
                social = True
        if weekend:
            if rng.chance(0.75):
                planned = True
            limit = round(clamp(limit - rng.uniform(0.5, 1.0), 0.0, 10.0), 1)
        records.append(
            {
                "date": ev["date"],
                "day_index": ev["day_index"],
                "sleep_target": {
                    "bedtime": min_to_hhmm(bed),
                    "duration_h": duration,
                    "wake_time": min_to_hhmm(bed + int(round(duration * 60))),
                },
                "exercise_target": {
                    "intended": planned,
                    "type": p["exercise"]["type"],
                    "duration_min": ex_min if planned else 0,
                },
                "work_target": {
                    "hours_limit": limit,
                    "avoid_overtime": True,
                    "finish_by": "16:00" if weekend else "18:00",
                },
                "diet_target": dict(diet_target),
                "social_target": {"intent": social},
                "wellbeing_target": {"mood_goal": mood_goal},
                "persona_context": dict(context),
            }
        )
    return {**header(spec, "planner"), "records": records}


def _conflicts(events: list[dict[str, Any]], sources: dict[str, Any], name: str) -> int:
    """Days on which a source visibly disagrees with the latent record (metadata only)."""
    n = 0
    for ev, rec in zip(events, sources[name]["records"]):
        if not rec.get("available", True):
            continue
        if name == "daily_self_report":
            n += (
                abs(rec["sleep"]["duration_h"] - ev["sleep"]["duration_h"]) >= 0.75
                or rec["exercise"]["did_exercise"] != ev["exercise"]["did_exercise"]
                or abs(rec["work"]["hours"] - ev["work"]["hours"]) >= 1.0
            )
        else:
            n += (
                abs(rec["sleep_target"]["duration_h"] - ev["sleep"]["duration_h"]) >= 0.75
                or rec["exercise_target"]["intended"] != ev["exercise"]["did_exercise"]
                or abs(rec["work_target"]["hours_limit"] - ev["work"]["hours"]) >= 1.0
            )
    return n


def project_sources(spec: PersonaSpec, events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """All five sources plus ``generation_metadata``, each from its own RNG stream."""
    knobs = source_knobs(spec)

    def rng(name: str) -> Rng:
        return Rng(spec.seed, spec.index, STREAMS[name])

    sources: dict[str, dict[str, Any]] = {
        "profile_ltm": build_profile(spec, events, knobs),
        "planner": build_planner(spec, events, knobs, rng("planner")),
        "daily_self_report": build_self_report(spec, events, knobs, rng("daily_self_report")),
        "objective_log": build_objective_log(spec, events, knobs, rng("objective_log")),
        "device_log": build_device_log(spec, events, knobs, rng("device_log")),
    }
    sources["generation_metadata"] = {
        "schema_version": SCHEMA_VERSION,
        "persona_id": spec.persona_id,
        "difficulty_type": spec.difficulty,
        "seed": spec.seed,
        "persona_seed_namespace": {
            name: stream_seed(spec.seed, spec.index, STREAMS[name])
            for name in ("profile_ltm", "daily_self_report", "planner", "device_log", "objective_log")
        },
        "source_knobs": knobs,
        "summary": {
            "days": len(events),
            "profile_anchor_end_day": knobs["profile_anchor_end_day"],
            "self_report_conflict_days": _conflicts(events, sources, "daily_self_report"),
            "planner_gap_days": _conflicts(events, sources, "planner"),
            "device_missing_days": sum(not r["available"] for r in sources["device_log"]["records"]),
            "objective_missing_days": sum(not r["available"] for r in sources["objective_log"]["records"]),
        },
    }
    return sources
