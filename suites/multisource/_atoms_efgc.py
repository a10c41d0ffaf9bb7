"""Atom rules of the factor, missing-data, annotation and control questions (E1-Ctrl2)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ._atom_view import (
    LAST_7,
    NUM_DAYS,
    Mu,
    Rec,
    View,
    available_days,
    calendar,
    empty,
    g,
    has,
    long_work,
    n_social,
    scale,
)
from ._common import hhmm_to_min
from .ground_truth import (
    G1_LABELS,
    G2_LABELS,
    factor_label,
    gap_label,
    outside_label,
    seventy_label,
    share_label,
    short_label,
    unplanned_label,
)

F2_LABELS = ("inactive_confirmed", "both_occurred", "yes_tracker_missing")
F3_LABELS = ("truly_off", "both_occurred", "yes_worked_despite_no_entry")


def _after_midnight(t: str) -> bool:
    return hhmm_to_min(t, bedtime=True) > 1440


def e1(v: View) -> Mu:
    mu = empty()
    if v.sr:
        late = [r for r in v.sr.values() if _after_midnight(g(r, "sleep", "bedtime", default="23:00"))]
        if not late:
            mu["daily_self_report"] = "no_late_nights"
        else:
            work = sum(bool(g(r, "work", "overtime")) for r in late)
            social = sum(not g(r, "work", "overtime") and n_social(r) > 0 for r in late)
            mu["daily_self_report"] = factor_label(work, social, len(late))
    avail = available_days(v.dl)
    if avail:
        late = [
            r
            for r in avail.values()
            if g(r, "signals", "sleep_tracker", "bedtime") is not None
            and _after_midnight(r["signals"]["sleep_tracker"]["bedtime"])
        ]
        if not late:
            mu["device_log"] = "no_late_nights"
        else:
            work = sum(bool(g(r, "signals", "work_session", "late_finish")) for r in late)
            mu["device_log"] = "work_activity" if work / len(late) > 0.5 else "no_single_factor"
    if v.pl:
        late = [r for r in v.pl.values() if _after_midnight(g(r, "sleep_target", "bedtime", default="22:00"))]
        if not late:
            mu["planner"] = "no_late_nights"
        else:
            work = sum(
                g(r, "work_target", "hours_limit", default=0) > 8
                or not g(r, "work_target", "avoid_overtime", default=True)
                for r in late
            )
            mu["planner"] = "work_activity" if work / len(late) > 0.5 else "no_single_factor"
    avail = available_days(v.obj)
    if avail:
        work = sum(long_work(r) for r in avail.values())
        social = sum(not long_work(r) and has(r, "social_event") for r in avail.values())
        n = len(avail)
        mu["objective_log"] = (
            "work_activity" if work / n > 0.3 else "social_activity" if social / n > 0.3 else "no_single_factor"
        )
    return mu


def e2(v: View) -> Mu:
    mu = empty()
    if v.sr and v.pl:
        skipped = [
            v.sr[d]
            for d, r in v.pl.items()
            if g(r, "exercise_target", "intended") and d in v.sr and not g(v.sr[d], "exercise", "did_exercise")
        ]
        if len(skipped) <= 2:
            mu["daily_self_report"] = "between_30_60"
        else:
            work = sum(g(r, "work", "hours", default=0) > 8.5 or bool(g(r, "work", "overtime")) for r in skipped)
            mu["daily_self_report"] = share_label(work / len(skipped))
    intended = [r for r in v.pl.values() if g(r, "exercise_target", "intended")]
    if intended:
        busy = sum(g(r, "work_target", "hours_limit", default=0) > 8 for r in intended)
        mu["planner"] = share_label(busy / len(intended))
    idle = [r for r in available_days(v.dl).values() if not g(r, "signals", "activity_tracker", "workout_detected")]
    if idle:
        heavy = sum(
            bool(g(r, "signals", "work_session", "late_finish"))
            or g(r, "signals", "work_session", "focus_minutes", default=0) > 480
            for r in idle
        )
        mu["device_log"] = share_label(heavy / len(idle))
    idle = [r for r in available_days(v.obj).values() if not has(r, "exercise_session")]
    if idle:
        mu["objective_log"] = share_label(sum(long_work(r) for r in idle) / len(idle))
    share = g(v.block("work"), "overtime_share")
    if share is not None:
        mu["profile_ltm"] = share_label(float(share))
    return mu


def f1(v: View) -> Mu:
    mu = empty()

    def planned(d: int) -> bool:
        return bool(g(v.pl[d], "social_target", "intent"))

    seen = [d for d in v.sr if d in v.pl]
    if seen:
        social = [d for d in seen if n_social(v.sr[d]) > 0]
        unplanned = scale(sum(not planned(d) for d in social), len(seen), NUM_DAYS)
        mu["daily_self_report"] = unplanned_label(unplanned) if social else "no_social_activities"
    seen = [d for d in v.obj if d in v.pl]
    if seen:
        social = [d for d in seen if v.obj[d].get("available") and has(v.obj[d], "social_event")]
        unplanned = scale(sum(not planned(d) for d in social), len(seen), NUM_DAYS)
        mu["objective_log"] = unplanned_label(unplanned) if social else "no_social_activities"
    if v.pl:
        n = scale(sum(planned(d) for d in v.pl), len(v.pl), NUM_DAYS)
        mu["planner"] = "4_to_6" if 5 <= n < 10 else "0_to_3"
    dpw = g(v.block("social"), "active_days_per_week")
    if dpw is not None:
        mu["profile_ltm"] = "no_social_activities" if dpw == 0 else unplanned_label(int(dpw * 4.3 * 0.5))
    return mu


def f2(v: View) -> Mu:
    mu = empty()
    seen = [d for d in v.dl if d in v.sr]
    if seen:
        inactive = missing = 0
        for d in seen:
            device_available = bool(v.dl[d].get("available"))
            if device_available and g(v.dl[d], "signals", "activity_tracker", "workout_detected"):
                continue
            if g(v.sr[d], "exercise", "did_exercise"):
                missing += 1
            else:
                inactive += 1
        mu["daily_self_report"] = gap_label(inactive, missing, F2_LABELS)
    if v.dl:
        unavail = sum(not r.get("available") for r in v.dl.values())
        workouts = sum(
            bool(g(r, "signals", "activity_tracker", "workout_detected")) for r in available_days(v.dl).values()
        )
        mu["device_log"] = (
            "inactive_confirmed"
            if unavail == 0
            else "both_occurred"
            if workouts > 0
            else "yes_tracker_missing"
            if unavail > len(v.dl) * 0.3
            else "inactive_confirmed"
        )
    if v.pl:
        n = scale(sum(bool(g(r, "exercise_target", "intended")) for r in v.pl.values()), len(v.pl), NUM_DAYS)
        mu["planner"] = "yes_tracker_missing" if n >= 15 else "both_occurred" if n >= 5 else "inactive_confirmed"
    avail = available_days(v.obj)
    if avail:
        rate = sum(has(r, "exercise_session") for r in avail.values()) / len(avail)
        mu["objective_log"] = F2_LABELS[2] if rate > 0.3 else F2_LABELS[1] if rate > 0.1 else F2_LABELS[0]
    dpw = g(v.block("exercise"), "days_per_week")
    if dpw is not None:
        mu["profile_ltm"] = F2_LABELS[2] if dpw >= 3 else F2_LABELS[1] if dpw >= 1 else F2_LABELS[0]
    return mu


def f3(v: View) -> Mu:
    mu = empty()
    gaps = [d for d, r in v.obj.items() if not r.get("available")]

    def vote(other: Mapping[int, Rec], worked: Callable[[Rec], bool]) -> str:
        seen = [d for d in gaps if d in other]
        n = sum(worked(other[d]) for d in seen)
        if not seen:
            return "truly_off"
        if n > 0 and len(seen) - n > 0:
            return "both_occurred"
        return "yes_worked_despite_no_entry" if n > len(seen) * 0.5 else "truly_off"

    if v.obj and v.sr:
        seen = [d for d in gaps if d in v.sr]
        worked = sum(g(v.sr[d], "work", "hours", default=0) > 0 for d in seen)
        mu["daily_self_report"] = gap_label(len(seen) - worked, worked, F3_LABELS)
    if v.obj and v.dl:
        mu["device_log"] = vote(
            v.dl,
            lambda r: bool(r.get("available")) and g(r, "signals", "work_session", "focus_minutes", default=0) > 30,
        )
    if v.obj and v.pl:
        mu["planner"] = vote(v.pl, lambda r: g(r, "work_target", "hours_limit", default=0) > 0)
    hours = g(v.block("work"), "hours_mean")
    if hours is not None:
        mu["profile_ltm"] = F3_LABELS[2] if hours > 6 else F3_LABELS[1] if hours > 3 else F3_LABELS[0]
    return mu


def g1(v: View) -> Mu:
    mu = empty()
    if v.sr:
        active = [r for r in v.sr.values() if g(r, "exercise", "did_exercise")]
        long = sum(g(r, "exercise", "duration_min", default=0) >= 30 for r in active)
        mu["daily_self_report"] = seventy_label(long / len(active), G1_LABELS) if active else "no_activity"
    if any(g(r, "exercise_target", "intended") for r in v.pl.values()):
        mu["planner"] = "deliberate_exercise_70plus"  # every planned session is deliberate
    avail = available_days(v.dl)
    if avail:
        active = [r for r in avail.values() if g(r, "signals", "activity_tracker", "workout_detected")]
        if active:
            n = sum(g(r, "signals", "activity_tracker", "active_minutes", default=0) >= 30 for r in active)
            mu["device_log"] = seventy_label(n / len(active), G1_LABELS)
        elif all(g(r, "signals", "activity_tracker", "active_minutes", default=0) <= 10 for r in avail.values()):
            mu["device_log"] = "no_activity"
    return mu


def g2(v: View) -> Mu:
    mu = empty()
    if v.sr:
        social = [r for r in v.sr.values() if n_social(r) > 0]
        chosen = sum(not g(r, "social", "supporting_other") for r in social)
        mu["daily_self_report"] = seventy_label(chosen / len(social), G2_LABELS) if social else "no_meetings"
    if v.obj:
        events = sum(e.get("kind") == "social_event" for r in available_days(v.obj).values() for e in calendar(r))
        mu["objective_log"] = "mix" if events else "no_meetings"
    if v.pl:
        planned = any(g(r, "social_target", "intent") for r in v.pl.values())
        mu["planner"] = "voluntary_70plus" if planned else "no_meetings"
    dpw = g(v.block("social"), "active_days_per_week")
    if dpw is not None:
        mu["profile_ltm"] = "no_meetings" if float(dpw) == 0 else "mix"
    return mu


def ctrl1(v: View) -> Mu:
    mu = empty()
    week = [v.sr[d] for d in LAST_7 if d in v.sr]
    if week:
        n = sum(g(r, "diet", "meals", default=0) > g(r, "diet", "home_cooked", default=0) for r in week)
        mu["daily_self_report"] = outside_label(scale(n, len(week), 7))
    week = [v.pl[d] for d in LAST_7 if d in v.pl]
    if week:
        n = sum(not g(r, "diet_target", "home_cooked_priority", default=True) for r in week)
        mu["planner"] = outside_label(scale(n, len(week), 7))
    diet = v.block("diet") or {}
    if diet.get("meals_per_day") is not None and diet.get("home_cooked_mean") is not None:
        outside_per_day = max(0.0, float(diet["meals_per_day"]) - float(diet["home_cooked_mean"]))
        mu["profile_ltm"] = outside_label(round(outside_per_day * 7))
    return mu


def ctrl2(v: View) -> Mu:
    mu = empty()
    week = [v.sr[d] for d in LAST_7 if d in v.sr]
    if week:
        n = sum(g(r, "sleep", "duration_h", default=8) < 6.0 for r in week)
        mu["daily_self_report"] = short_label(scale(n, len(week), 7))
    recent = [v.dl[d] for d in sorted(available_days(v.dl))][-7:]  # the tracker's last 7 worn nights
    if recent:
        short = sum(g(r, "signals", "sleep_tracker", "duration_h", default=8) < 6.0 for r in recent)
        mu["device_log"] = short_label(short)
    week = [v.pl[d] for d in LAST_7 if d in v.pl]
    if week:
        n = sum(g(r, "sleep_target", "duration_h", default=8) < 6.0 for r in week)
        mu["planner"] = short_label(scale(n, len(week), 7))
    return mu
