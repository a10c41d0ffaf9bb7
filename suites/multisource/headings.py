"""The question headings and label glosses of the paper's LLM prompt (appendix C.6.1).

They are part of the public question, so the LLM responder shows them exactly as the
paper's prompt does: "## A1 - Sleep Duration Count (Sleep, 30 days)" and
"- fewer_than_10 (0-9 nights)".
"""

from __future__ import annotations

from collections.abc import Mapping

TITLES: Mapping[str, str] = {
    "A1": "Sleep Duration Count (Sleep, 30 days)",
    "A2": "Long Work Days Count (Work, 30 days)",
    "A3": "Home-Cooked Share (Diet, 30 days)",
    "B2": "Exercise Frequency vs Profile (Exercise, 30 days)",
    "B3": "Weekend Work vs Profile (Work, 30 days)",
    "C2": "Social Plan Realization (Social, 14 days)",
    "C3": "Bedtime vs Target (Sleep, 14 days)",
    "D1": "Social Trend (Social, 30 days)",
    "D2": "Diet vs Baseline (Diet, 30 days)",
    "E1": "Late Night Cause (Sleep, 30 days)",
    "E2": "Exercise Skip Cause (Exercise, 30 days)",
    "F1": "Unplanned Social Count (Social, 30 days)",
    "F2": "Tracker Missing vs Inactive (Exercise, 30 days)",
    "F3": "Timesheet Missing vs Off (Work, 30 days)",
    "G1": "Deliberate vs Incidental Exercise (Exercise, 30 days)",
    "G2": "Voluntary vs Obligatory Social (Social, 30 days)",
    "Ctrl1": "Outside Meals (Diet, 7 days)",
    "Ctrl2": "Short Sleep Nights (Sleep, 7 days)",
}

LABEL_NOTES: Mapping[str, Mapping[str, str]] = {
    "A1": {"fewer_than_10": "0-9 nights", "10_to_19": "10-19 nights", "20_or_more": "20-30 nights"},
    "A2": {"0_to_3": "0-3 days", "4_to_7": "4-7 days", "8_or_more": "8+ days"},
    "A3": {"less_than_40": "<40%", "40_to_69": "40%", "70_or_more": "70%"},
    "B2": {
        "more_than_1_below": ">1 day/week less than profile",
        "within_1_day": "within +/-1 day/week of profile",
        "more_than_1_above": ">1 day/week more than profile",
        "no_frequency_described": "profile has no exercise frequency",
    },
    "C2": {
        "below_25_pct": "<25%",
        "25_to_50_pct": "25%",
        "above_50_pct": ">50%",
        "no_plans": "no social plans in planner",
    },
    "E1": {
        "work_activity": "overtime/unusually long work hours on >50%",
        "social_activity": "social activity present on >50%",
        "no_single_factor": "neither factor exceeds 50%",
    },
    "E2": {"no_fewer_than_30": "<30%", "between_30_60": "30%", "yes_more_than_60": ">60%"},
}
