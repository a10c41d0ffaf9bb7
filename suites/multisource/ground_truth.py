"""Ground-truth label rules f_q(L2, L3) of the 18 questions (paper Table 9).

Behavioural truth comes from the latent event table; the profile claim (B2, B3, D2), the
plans (C2, C3, E2, F1) and log availability (F2, F3) come from the visible sources, as in
the released benchmark. ``derivation_detail`` strings follow the released format.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ._common import hhmm_to_min
from .questions import QUESTIONS, by_question

Events = Sequence[Mapping[str, Any]]
Rule = Callable[[Events, Mapping[str, Any]], tuple[str, str]]


def _records(sources: Mapping[str, Any], name: str) -> list[Mapping[str, Any]]:
    src = sources.get(name)
    if src is None:
        return []
    return list(src["records"]) if isinstance(src, Mapping) else list(src)


def _by_day(sources: Mapping[str, Any], name: str) -> dict[int, Mapping[str, Any]]:
    return {int(r["day_index"]): r for r in _records(sources, name)}


def _facts(sources: Mapping[str, Any]) -> Mapping[str, Any]:
    return (sources.get("profile_ltm") or {}).get("facts") or {}


def _band(value: float, cuts: Sequence[tuple[float, str]], default: str) -> str:
    """First label whose lower cut ``value`` reaches (cuts in descending order)."""
    for cut, label in cuts:
        if value >= cut:
            return label
    return default


def _n_social(day: Mapping[str, Any]) -> int:
    return len(day["social"].get("activities") or [])


def a1(events: Events, sources: Mapping[str, Any]) -> tuple[str, str]:
    good = sum(1 for d in events if d["sleep"]["duration_h"] >= 7.0)
    return _band(good, ((20, "20_or_more"), (10, "10_to_19")), "fewer_than_10"), f"good_nights={good}/30"


def a2(events: Events, sources: Mapping[str, Any]) -> tuple[str, str]:
    worked = [d for d in events if not d["work"]["is_weekend"] or d["work"]["worked_on_weekend"]]
    n = sum(1 for d in worked if d["work"]["hours"] > 9.0)
    return _band(n, ((8, "8_or_more"), (4, "4_to_7")), "0_to_3"), f"overtime_days={n}/{len(worked)}"


def a3(events: Events, sources: Mapping[str, Any]) -> tuple[str, str]:
    total = sum(d["diet"]["meals"] for d in events)
    home = sum(d["diet"]["home_cooked"] for d in events)
    ratio = home / total if total > 0 else 0.0
    label = _band(ratio, ((0.7, "70_or_more"), (0.4, "40_to_69")), "less_than_40")
    return label, f"home={home}/total={total} ratio={ratio:.3f}"


def b2(events: Events, sources: Mapping[str, Any]) -> tuple[str, str]:
    claim = ((_facts(sources).get("routine_snapshot") or {}).get("exercise") or {}).get("days_per_week")
    if claim is None:
        return "no_frequency_described", "profile_ltm has no exercise.days_per_week"
    claim = float(claim)
    actual = sum(1 for d in events if d["exercise"]["did_exercise"]) / (len(events) / 7.0)
    delta = actual - claim
    label = "within_1_day" if abs(delta) <= 1.0 else "more_than_1_below" if delta < -1.0 else "more_than_1_above"
    return label, f"profile={claim:.1f}/wk actual={actual:.2f}/wk delta={delta:+.2f}"


def weekend_style_label(style: str, worked: int, off_days: int) -> str:
    """Whether ``worked`` weekend days out of ``off_days`` fit the profile's style."""
    ratio = worked / off_days
    if style == "strict_boundary":
        return "matches" if ratio <= 0.15 else "does_not_match"
    if style == "flexible":
        return "does_not_match" if worked == 0 and off_days >= 4 else "matches"
    return "matches" if ratio < 0.5 else "does_not_match"


def b3(events: Events, sources: Mapping[str, Any]) -> tuple[str, str]:
    style = (_facts(sources).get("traits") or {}).get("afterhours_work_style")
    if style is None:
        return "no_approach_described", "profile_ltm has no afterhours_work_style"
    off = [d for d in events if d["work"]["is_weekend"]]
    if not off:
        return "no_approach_described", "no_weekend_days_observed"
    worked = sum(1 for d in off if d["work"]["worked_on_weekend"])
    return (
        weekend_style_label(style, worked, len(off)),
        f"identity={style} worked={worked}/{len(off)} ratio={worked / len(off):.3f}",
    )


def realization_label(ratio: float) -> str:
    return "above_50_pct" if ratio > 0.5 else "25_to_50_pct" if ratio >= 0.25 else "below_25_pct"


def c2(events: Events, sources: Mapping[str, Any]) -> tuple[str, str]:
    plans = _by_day(sources, "planner")
    planned = [d for d in events[-14:] if (plans.get(int(d["day_index"])) or {}).get("social_target", {}).get("intent")]
    if not planned:
        return "no_plans", "planned_days=0/14"
    realized = sum(1 for d in planned if _n_social(d) > 0)
    ratio = realized / len(planned)
    return realization_label(ratio), f"realized={realized}/{len(planned)} ratio={ratio:.3f}"


def compliance_label(late: int, early: int, paired: int) -> str:
    if late / paired > 0.5:
        return "later_more_than_50pct"
    if early / paired > 0.5:
        return "earlier_more_than_50pct"
    return "within_20min_more_than_50pct"


def c3(events: Events, sources: Mapping[str, Any]) -> tuple[str, str]:
    plans = _by_day(sources, "planner")
    late = early = paired = 0
    for d in events[-14:]:
        target = ((plans.get(int(d["day_index"])) or {}).get("sleep_target") or {}).get("bedtime")
        if target is None:
            continue
        paired += 1
        delta = hhmm_to_min(d["sleep"]["bedtime"], bedtime=True) - hhmm_to_min(target, bedtime=True)
        late += delta > 20
        early += delta < -20
    if paired == 0:
        return "no_targets", "paired=0/14"
    return (
        compliance_label(late, early, paired),
        f"late={late} early={early} on_time={paired - late - early} / {paired}",
    )


def trend_label(delta: float) -> str:
    return "increased" if delta > 0.15 else "decreased" if delta < -0.15 else "stayed_same"


def d1(events: Events, sources: Mapping[str, Any]) -> tuple[str, str]:
    early = sum(_n_social(d) for d in events[:14]) / 14
    late_days = events[14:]
    late = sum(_n_social(d) for d in late_days) / max(1, len(late_days))
    delta = late - early
    return trend_label(delta), f"early={early:.3f}/d late={late:.3f}/d delta={delta:+.3f}"


def d2(events: Events, sources: Mapping[str, Any]) -> tuple[str, str]:
    diet = (_facts(sources).get("routine_snapshot") or {}).get("diet") or {}
    if diet.get("meals_per_day") is None or diet.get("home_cooked_mean") is None:
        return "no_baseline", "profile_ltm has no diet.meals_per_day or home_cooked_mean"
    p_meals, p_hc = float(diet["meals_per_day"]), float(diet["home_cooked_mean"])
    n = len(events)
    meals = sum(d["diet"]["meals"] for d in events) / n if n else 0.0
    hc = sum(d["diet"]["home_cooked"] for d in events) / n if n else 0.0
    delta = abs(hc - p_hc) + abs(meals - p_meals)
    label = "differs_more_than_1" if delta > 1.0 else "within_1"
    return label, (
        f"profile_meals={p_meals:.1f} profile_hc={p_hc:.1f} actual_meals={meals:.2f} "
        f"actual_hc={hc:.2f} delta={delta:.3f}"
    )


def factor_label(work: int, social: int, total: int) -> str:
    if work / total > 0.5:
        return "work_activity"
    return "social_activity" if social / total > 0.5 else "no_single_factor"


def e1(events: Events, sources: Mapping[str, Any]) -> tuple[str, str]:
    late = [d for d in events if hhmm_to_min(d["sleep"]["bedtime"], bedtime=True) > 1440]
    if not late:
        return "no_late_nights", "late_nights=0"
    work = sum(1 for d in late if "work_stress" in d.get("context_tags", ()))
    social = sum(
        1 for d in late if "work_stress" not in d.get("context_tags", ()) and "social" in d.get("context_tags", ())
    )
    return (
        factor_label(work, social, len(late)),
        f"late_nights={len(late)} work={work} social={social} other={len(late) - work - social}",
    )


def share_label(ratio: float) -> str:
    return "yes_more_than_60" if ratio > 0.6 else "no_fewer_than_30" if ratio < 0.3 else "between_30_60"


def e2(events: Events, sources: Mapping[str, Any]) -> tuple[str, str]:
    plans = _by_day(sources, "planner")
    skipped = [
        d
        for d in events
        if (plans.get(int(d["day_index"])) or {}).get("exercise_target", {}).get("intended")
        and not d["exercise"]["did_exercise"]
    ]
    if len(skipped) <= 2:
        return "between_30_60", f"skip_days={len(skipped)} (too_few, default)"
    work = sum(1 for d in skipped if d["work"]["hours"] > 8.5 or d["work"]["overtime"])
    ratio = work / len(skipped)
    return share_label(ratio), f"skip_days={len(skipped)} work_caused={work} ratio={ratio:.3f}"


def unplanned_label(n: int) -> str:
    return "0_to_3" if n <= 3 else "4_to_6" if n <= 6 else "7_or_more"


def f1(events: Events, sources: Mapping[str, Any]) -> tuple[str, str]:
    plans = _by_day(sources, "planner")
    social = [d for d in events if _n_social(d) > 0]
    if not social:
        return "no_social_activities", "social_days=0"
    unplanned = sum(
        1 for d in social if not (plans.get(int(d["day_index"])) or {}).get("social_target", {}).get("intent")
    )
    return unplanned_label(unplanned), f"social_days={len(social)} unplanned={unplanned}"


def gap_label(explained: int, gaps: int, labels: tuple[str, str, str]) -> str:
    """Mixed -> ``both``; more gap days than explained ones -> ``missing``; else ``confirmed``."""
    confirmed, both, missing = labels
    if explained == 0 and gaps == 0:
        return confirmed
    if explained > 0 and gaps > 0:
        return both
    return missing if gaps > explained else confirmed


def f2(events: Events, sources: Mapping[str, Any]) -> tuple[str, str]:
    device = _by_day(sources, "device_log")
    inactive = missing = 0
    for d in events:
        rec = device.get(int(d["day_index"]))
        if rec is not None and rec.get("available", False) and _workout_detected(rec):
            continue
        if d["exercise"]["did_exercise"]:
            missing += 1
        else:
            inactive += 1
    label = gap_label(inactive, missing, ("inactive_confirmed", "both_occurred", "yes_tracker_missing"))
    detail = "no_no-workout_days" if inactive == missing == 0 else f"inactive={inactive} missing={missing}"
    return label, detail


def _workout_detected(device_day: Mapping[str, Any]) -> bool:
    return bool(device_day.get("signals", {}).get("activity_tracker", {}).get("workout_detected", False))


def f3(events: Events, sources: Mapping[str, Any]) -> tuple[str, str]:
    objective = _by_day(sources, "objective_log")
    off = worked = 0
    for d in events:
        rec = objective.get(int(d["day_index"]))
        if rec is not None and rec.get("available", False):
            continue
        if d["work"]["hours"] > 0:
            worked += 1
        else:
            off += 1
    if off + worked == 0:
        return "truly_off", "all_records_present (no gaps)"
    label = gap_label(off, worked, ("truly_off", "both_occurred", "yes_worked_despite_no_entry"))
    return label, f"no_record_days={off + worked} truly_off={off} unclear={worked}"


def seventy_label(ratio: float, labels: tuple[str, str, str]) -> str:
    low, mid, high = labels
    return high if ratio > 0.7 else low if ratio < 0.3 else mid


G1_LABELS = ("incidental_movement_70plus", "mix", "deliberate_exercise_70plus")
G2_LABELS = ("obligatory_70plus", "mix", "voluntary_70plus")


def g1(events: Events, sources: Mapping[str, Any]) -> tuple[str, str]:
    active = [d for d in events if d["exercise"]["did_exercise"]]
    if not active:
        return "no_activity", "active_days=0"
    n = sum(1 for d in active if d["exercise"].get("intentional"))
    ratio = n / len(active)
    return seventy_label(ratio, G1_LABELS), f"intentional={n}/{len(active)} ratio={ratio:.3f}"


def g2(events: Events, sources: Mapping[str, Any]) -> tuple[str, str]:
    social = [d for d in events if _n_social(d) > 0]
    if not social:
        return "no_meetings", "social_days=0"
    n = sum(1 for d in social if not d["social"].get("supporting_other"))
    ratio = n / len(social)
    return seventy_label(ratio, G2_LABELS), f"voluntary={n}/{len(social)} ratio={ratio:.3f}"


def outside_label(n: int) -> str:
    return "0_to_1_days" if n <= 1 else "2_to_3_days" if n <= 3 else "4_or_more"


def short_label(n: int) -> str:
    return "0_nights" if n == 0 else "1_to_2" if n <= 2 else "3_or_more"


def ctrl1(events: Events, sources: Mapping[str, Any]) -> tuple[str, str]:
    n = sum(1 for d in events[-7:] if d["diet"]["meals"] > d["diet"]["home_cooked"])
    return outside_label(n), f"outside_days={n}/7"


def ctrl2(events: Events, sources: Mapping[str, Any]) -> tuple[str, str]:
    n = sum(1 for d in events[-7:] if d["sleep"]["duration_h"] < 6.0)
    return short_label(n), f"short_nights={n}/7"


RULES: Mapping[str, Rule] = by_question((a1, a2, a3, b2, b3, c2, c3, d1, d2, e1, e2, f1, f2, f3, g1, g2, ctrl1, ctrl2))


def compute_ground_truth(events: Events, sources: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """``{qid: {question_id, question_type, question_topic, answer, derivation_detail}}``.

    ``sources`` maps source names to the released JSON documents (or to their
    ``records`` lists); only profile_ltm, planner, objective_log and device_log are read.
    """
    out = {}
    for qid, rule in RULES.items():
        answer, detail = rule(events, sources)
        q = QUESTIONS[qid]
        out[qid] = {
            "question_id": qid,
            "question_type": q.gt_type,
            "question_topic": q.topic,
            "answer": answer,
            "derivation_detail": detail,
        }
    return out
