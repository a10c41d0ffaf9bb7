"""Atom rules of the arbitration, profile, plan-reality and trend questions (A1-D2)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ._atom_view import (
    LAST_14,
    NUM_DAYS,
    Mu,
    Rec,
    View,
    all_sources,
    available_days,
    calendar,
    empty,
    g,
    has,
    home_share,
    n_social,
    nights,
    overtime,
    scale,
    weekend,
)
from ._common import hhmm_to_min
from .ground_truth import compliance_label, realization_label, trend_label, weekend_style_label


def a1(v: View) -> Mu:
    mu = empty()
    if v.sr:
        good = sum(g(r, "sleep", "duration_h", default=0) >= 7.0 for r in v.sr.values())
        mu["daily_self_report"] = nights(scale(good, len(v.sr), NUM_DAYS))
    tracked = [r for r in available_days(v.dl).values() if g(r, "signals", "sleep_tracker", "duration_h") is not None]
    if tracked:
        good = sum(r["signals"]["sleep_tracker"]["duration_h"] >= 7.0 for r in tracked)
        mu["device_log"] = nights(round(good / len(tracked) * 30))
    if v.pl:
        good = sum(g(r, "sleep_target", "duration_h", default=0) >= 7.0 for r in v.pl.values())
        mu["planner"] = nights(scale(good, len(v.pl), NUM_DAYS))
    avg = g(v.block("sleep"), "duration_h")
    if avg is not None:
        mu["profile_ltm"] = "20_or_more" if avg >= 7.3 else "10_to_19" if avg >= 6.5 else "fewer_than_10"
    return mu


def a2(v: View) -> Mu:
    mu = empty()
    if v.sr:
        n = sum(
            1
            for d, r in v.sr.items()
            if (not weekend(d) or g(r, "work", "worked_on_weekend", default=False))
            and g(r, "work", "hours", default=0) > 9.0
        )
        mu["daily_self_report"] = overtime(scale(n, len(v.sr), NUM_DAYS))
    if v.obj:
        n = 0
        for r in available_days(v.obj).values():
            blocks = [e for e in calendar(r) if e.get("kind") == "work_block"]
            n += bool(blocks) and blocks[0].get("duration_min", 0) / 60 > 9.0
        mu["objective_log"] = overtime(scale(n, len(v.obj), NUM_DAYS))
    if v.pl:
        n = sum(g(r, "work_target", "hours_limit", default=0) > 9.0 for r in v.pl.values())
        mu["planner"] = overtime(scale(n, len(v.pl), NUM_DAYS))
    hours = g(v.block("work"), "hours_mean")
    if hours is not None:
        mu["profile_ltm"] = "8_or_more" if hours >= 9.5 else "4_to_7" if hours >= 8.0 else "0_to_3"
    avail = available_days(v.dl)
    if avail:
        n = sum(g(r, "signals", "work_session", "focus_minutes", default=0) > 540 for r in avail.values())
        mu["device_log"] = overtime(scale(n, len(v.dl), NUM_DAYS))
    return mu


def a3(v: View) -> Mu:
    mu = empty()
    total = sum(g(r, "diet", "meals", default=0) for r in v.sr.values())
    if total > 0:
        home = sum(g(r, "diet", "home_cooked", default=0) for r in v.sr.values())
        mu["daily_self_report"] = home_share(home / total)
    if v.pl:
        prio = sum(bool(g(r, "diet_target", "home_cooked_priority", default=False)) for r in v.pl.values())
        mu["planner"] = home_share(prio / len(v.pl))
    diet = v.block("diet") or {}
    if diet.get("home_cooked_mean") is not None and diet.get("meals_per_day") is not None:
        meals = float(diet["meals_per_day"])
        mu["profile_ltm"] = home_share(float(diet["home_cooked_mean"]) / meals if meals > 0 else 0)
    avail = available_days(v.obj)
    if avail:
        delivered = sum(
            p.get("count", 0)
            for r in avail.values()
            for p in g(r, "signals", "payments", default=[])
            if p.get("category") == "food_delivery"
        )
        mu["objective_log"] = home_share(max(0.0, 1.0 - delivered / len(avail) * 30 / 90))
    return mu


def b2(v: View) -> Mu:
    ex = v.block("exercise")
    if ex is None:
        return empty()
    if ex.get("days_per_week") is None:
        return all_sources("no_frequency_described")
    claim = float(ex["days_per_week"])

    def label(days: int, seen: int) -> str:
        delta = days / (seen / 7.0) - claim
        return "within_1_day" if abs(delta) <= 1.0 else "more_than_1_below" if delta < -1.0 else "more_than_1_above"

    mu = empty()
    if v.sr:
        mu["daily_self_report"] = label(sum(bool(g(r, "exercise", "did_exercise")) for r in v.sr.values()), len(v.sr))
    avail = available_days(v.dl)
    if avail:
        n = sum(bool(g(r, "signals", "activity_tracker", "workout_detected")) for r in avail.values())
        mu["device_log"] = label(n, len(avail))
    avail = available_days(v.obj)
    if avail:
        mu["objective_log"] = label(sum(has(r, "exercise_session") for r in avail.values()), len(avail))
    if v.pl:
        mu["planner"] = label(sum(bool(g(r, "exercise_target", "intended")) for r in v.pl.values()), len(v.pl))
    mu["profile_ltm"] = "within_1_day"
    return mu


def b3(v: View) -> Mu:
    traits = None if v.facts is None else v.facts.get("traits")
    if traits is None:
        return empty()
    style = traits.get("afterhours_work_style")
    if style is None:
        return all_sources("no_approach_described")
    mu = empty()
    off = [r for d, r in v.sr.items() if weekend(d)]
    if off:
        worked = sum(bool(g(r, "work", "worked_on_weekend")) for r in off)
        mu["daily_self_report"] = weekend_style_label(style, worked, len(off))
    off = [r for d, r in available_days(v.obj).items() if weekend(d)]
    if off:
        mu["objective_log"] = weekend_style_label(style, sum(has(r, "work_block") for r in off), len(off))
    off = [r for d, r in available_days(v.dl).items() if weekend(d)]
    if off:
        worked = sum(g(r, "signals", "work_session", "focus_minutes", default=0) > 0 for r in off)
        mu["device_log"] = weekend_style_label(style, worked, len(off))
    mu["profile_ltm"] = "matches"
    return mu


def c2(v: View) -> Mu:
    window = [d for d in LAST_14 if d in v.pl]
    if not window:
        return empty()
    planned = [d for d in window if g(v.pl[d], "social_target", "intent", default=False)]
    if not planned:
        return all_sources("no_plans")
    mu = empty()
    seen = [d for d in planned if d in v.sr]
    if seen:
        mu["daily_self_report"] = realization_label(sum(n_social(v.sr[d]) > 0 for d in seen) / len(seen))
    mu["planner"] = "above_50_pct"
    seen = [d for d in planned if d in v.obj]
    avail = [d for d in seen if v.obj[d].get("available")]
    if avail:
        realized = sum(has(v.obj[d], "social_event", "social_venue") for d in avail)
        mu["objective_log"] = realization_label(realized / len(seen))
    return mu


def c3(v: View) -> Mu:
    window = [d for d in LAST_14 if d in v.pl]
    if not window:
        return empty()
    targets = {d: g(v.pl[d], "sleep_target", "bedtime") for d in window}
    if all(t is None for t in targets.values()):
        return all_sources("no_targets")

    def compliance(days: Mapping[int, Rec], *path: str) -> str | None:
        late = early = paired = 0
        for d, target in targets.items():
            actual = g(days.get(d), *path)
            if target is None or actual is None:
                continue
            paired += 1
            delta = hhmm_to_min(actual, bedtime=True) - hhmm_to_min(target, bedtime=True)
            late += delta > 20
            early += delta < -20
        return compliance_label(late, early, paired) if paired else None

    mu = empty()
    mu["daily_self_report"] = compliance(v.sr, "sleep", "bedtime")
    mu["device_log"] = compliance(available_days(v.dl), "signals", "sleep_tracker", "bedtime")
    return mu


def d1(v: View) -> Mu:
    mu = empty()

    def halves(days: Mapping[int, Rec], count: Callable[[Rec], int]) -> str | None:
        early = [count(r) for d, r in days.items() if d <= 14]
        late = [count(r) for d, r in days.items() if d > 14]
        if not early or not late:
            return None
        return trend_label(sum(late) / len(late) - sum(early) / len(early))

    mu["daily_self_report"] = halves(v.sr, n_social)
    mu["planner"] = halves(v.pl, lambda r: int(bool(g(r, "social_target", "intent"))))
    avail = [v.obj[d] for d in sorted(available_days(v.obj))]
    mid = len(avail) // 2
    if mid:  # the objective log compares the first and second half of its available days

        def social(r: Rec) -> int:
            return sum(e.get("kind") in ("social_event", "social_venue") for e in calendar(r))

        early, late = avail[:mid], avail[mid:]
        mu["objective_log"] = trend_label(sum(map(social, late)) / len(late) - sum(map(social, early)) / len(early))
    return mu


def d2(v: View) -> Mu:
    diet = v.block("diet")
    if diet is None:
        return empty()
    if diet.get("meals_per_day") is None or diet.get("home_cooked_mean") is None:
        return all_sources("no_baseline")
    p_meals, p_hc = float(diet["meals_per_day"]), float(diet["home_cooked_mean"])
    mu = empty()
    if v.sr:
        meals = sum(g(r, "diet", "meals", default=0) for r in v.sr.values()) / len(v.sr)
        hc = sum(g(r, "diet", "home_cooked", default=0) for r in v.sr.values()) / len(v.sr)
        mu["daily_self_report"] = "differs_more_than_1" if abs(hc - p_hc) + abs(meals - p_meals) > 1.0 else "within_1"
    mu["profile_ltm"] = "within_1"
    return mu
