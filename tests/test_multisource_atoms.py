"""Direct-readout atoms on hand-built sources, and the question table."""

from __future__ import annotations

import pytest
from pytest_memeval.suites.multisource import (
    DAYS,
    FAILURE_MODES,
    QUESTION_IDS,
    QUESTIONS,
    REASONING_TYPES,
    SOURCE_NAMES,
    source_atoms,
)


def _day(i: int, **fields) -> dict:
    return {"date": DAYS[i - 1][0], "day_index": i, **fields}


def _device(i: int, available=True, bed="23:00", hours=7.5, workout=False, minutes=20, focus=None, late=False) -> dict:
    if not available:
        return _day(i, available=False, signals={})
    sig = {
        "sleep_tracker": {"bedtime": bed, "wake_time": "07:00", "duration_h": hours},
        "activity_tracker": {"active_minutes": minutes, "workout_detected": workout},
    }
    if focus is not None:
        sig["work_session"] = {"focus_minutes": focus, "late_finish": late}
    return _day(i, available=True, signals=sig)


def test_device_sleep_is_extrapolated_over_worn_nights():
    # 12 worn nights, 8 of them >= 7 h -> round(8/12*30) = 20 -> "20_or_more"
    recs = [_device(i, hours=8.0 if i <= 8 else 6.0) for i in range(1, 13)]
    recs += [_device(i, available=False) for i in range(13, 31)]
    atoms = source_atoms({"device_log": {"records": recs}})
    assert atoms["A1"]["device_log"] == "20_or_more"
    assert atoms["A1"]["daily_self_report"] is None and atoms["A1"]["profile_ltm"] is None
    # the device knows its own dropout: workouts seen and days missing -> both
    recs[0] = _device(1, workout=True, minutes=45)
    assert source_atoms({"device_log": {"records": recs}})["F2"]["device_log"] == "both_occurred"


def test_bedtime_compliance_crosses_midnight():
    planner = [
        _day(i, sleep_target={"bedtime": "23:50", "duration_h": 7.5, "wake_time": "07:20"}) for i in range(1, 31)
    ]
    # 00:05 is 15 min after a 23:50 target (within), 00:30 is 40 min late
    device = [_device(i, bed="00:05" if i % 2 else "00:30") for i in range(1, 31)]
    atoms = source_atoms({"planner": {"records": planner}, "device_log": {"records": device}})
    assert atoms["C3"]["device_log"] == "within_20min_more_than_50pct"  # 7 late of 14 is not > half
    device = [_device(i, bed="00:30") for i in range(1, 31)]
    atoms = source_atoms({"planner": {"records": planner}, "device_log": {"records": device}})
    assert atoms["C3"]["device_log"] == "later_more_than_50pct"
    assert atoms["E1"]["device_log"] == "no_single_factor"  # late nights but no late finishes
    assert atoms["E1"]["planner"] == "no_late_nights"  # 23:50 is before midnight


def test_profile_edge_labels_and_constant_atoms():
    profile = {
        "facts": {
            "traits": {"afterhours_work_style": None},
            "routine_snapshot": {"exercise": {"type": "yoga"}, "diet": {"meals_per_day": 3.0}},
        }
    }
    atoms = source_atoms({"profile_ltm": profile})
    assert set(atoms["B2"].values()) == {"no_frequency_described"}
    assert set(atoms["B3"].values()) == {"no_approach_described"}
    assert set(atoms["D2"].values()) == {"no_baseline"}
    profile["facts"]["traits"]["afterhours_work_style"] = "strict_boundary"
    profile["facts"]["routine_snapshot"]["exercise"]["days_per_week"] = 3.0
    atoms = source_atoms({"profile_ltm": profile})
    assert atoms["B2"]["profile_ltm"] == "within_1_day" and atoms["B3"]["profile_ltm"] == "matches"
    assert atoms["B2"]["planner"] is None


def test_timesheet_gaps_against_self_report():
    objective = [_day(i, available=i > 4, signals={}) for i in range(1, 31)]
    report = [_day(i, work={"hours": 8.0 if i in (1, 2) else 0.0}) for i in range(1, 31)]
    atoms = source_atoms({"objective_log": {"records": objective}, "daily_self_report": {"records": report}})
    assert atoms["F3"]["daily_self_report"] == "both_occurred"  # 2 worked, 2 off among 4 gaps
    report = [_day(i, work={"hours": 8.0 if i < 4 else 0.0}) for i in range(1, 31)]
    atoms = source_atoms({"objective_log": {"records": objective}, "daily_self_report": {"records": report}})
    assert atoms["F3"]["daily_self_report"] == "both_occurred"
    report = [_day(i, work={"hours": 8.0}) for i in range(1, 31)]
    atoms = source_atoms({"objective_log": {"records": objective}, "daily_self_report": {"records": report}})
    assert atoms["F3"]["daily_self_report"] == "yes_worked_despite_no_entry"


def test_every_question_and_source_is_present():
    atoms = source_atoms({})
    assert list(atoms) == list(QUESTION_IDS)
    assert all(list(a) == list(SOURCE_NAMES) for a in atoms.values())


def test_question_table():
    assert len(QUESTIONS) == 18 and set(REASONING_TYPES) == {"A", "B", "C", "D", "E", "F", "G", "Ctrl"}
    tags = {q.id: q.failure_mode for q in QUESTIONS.values()}
    expected = {
        "C2": "planner_absence",
        "F1": "planner_absence",
        "F2": "tracker_missing",
        "F3": "timesheet_missing",
        "B2": "profile_anchoring",
        "B3": "profile_anchoring",
        "D2": "profile_anchoring",
        "E1": "salient_factor",
        "E2": "salient_factor",
        "C3": "cross_midnight",
        "G1": "latent_attribute",
        "G2": "latent_attribute",
        "A1": "self_report_bias",
        "A2": "self_report_bias",
        "A3": "self_report_bias",
    }
    assert {k: v for k, v in tags.items() if v} == expected
    assert set(expected.values()) == set(FAILURE_MODES)
    for q in QUESTIONS.values():
        assert set(q.ordered_labels) | set(q.edge_options) <= set(q.answer_space)
        assert q.scale == ("nominal" if q.id in ("B3", "C3", "E1") else "ordinal")
        assert q.window_days == {"C2": 14, "C3": 14, "Ctrl1": 7, "Ctrl2": 7}.get(q.id, 30)
        assert q.text.endswith("?")
    assert sum(len(q.answer_space) == 4 for q in QUESTIONS.values()) == 7


def test_each_question_has_one_readout_rule_and_one_ground_truth_rule_keyed_by_its_name() -> None:
    from pytest_memeval.suites.multisource import atoms, ground_truth
    from pytest_memeval.suites.multisource.questions import by_question

    assert list(atoms.RULES) == list(ground_truth.RULES) == list(QUESTION_IDS)
    assert atoms.RULES["Ctrl2"].__name__ == ground_truth.RULES["Ctrl2"].__name__ == "ctrl2"
    with pytest.raises(ValueError, match="rules for"):
        by_question(rule for qid, rule in atoms.RULES.items() if qid != "G2")  # a question left without a rule
