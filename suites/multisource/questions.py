"""The 18 question templates of the multisource suite (paper Tables 7-8)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, TypeVar

#: reasoning-type letter -> readable name
REASONING_TYPES: Mapping[str, str] = MappingProxyType(
    {
        "A": "source_arbitration",
        "B": "profile_vs_behaviour",
        "C": "plan_vs_reality",
        "D": "temporal_trend",
        "E": "factor_attribution",
        "F": "missing_evidence",
        "G": "latent_annotation",
        "Ctrl": "control",
    }
)

#: failure-mode tag -> what it probes
FAILURE_MODES: Mapping[str, str] = MappingProxyType(
    {
        "planner_absence": "planner silence conflated with 'no plan'",
        "tracker_missing": "missing tracker data read as inactivity",
        "timesheet_missing": "missing timesheet read as a day off",
        "profile_anchoring": "anchoring on the (stale or idealised) profile",
        "salient_factor": "picking the salient factor instead of testing each",
        "cross_midnight": "bedtime arithmetic across midnight",
        "latent_attribute": "latent motive read off activity wording",
        "self_report_bias": "trusting the biased self-report",
    }
)


@dataclass(frozen=True)
class Question:
    id: str
    type_letter: str
    #: the released data's ``question_type`` string (ground_truth.json)
    gt_type: str
    topic: str
    window_days: int
    text: str
    answer_space: tuple[str, ...]
    #: substantive labels in bias-shift rank order (empty for nominal questions)
    ordered_labels: tuple[str, ...]
    edge_options: tuple[str, ...]
    scale: str  # "ordinal" | "nominal"
    failure_mode: str | None

    @property
    def type_name(self) -> str:
        return REASONING_TYPES[self.type_letter]


def _q(
    qid: str,
    letter: str,
    gt_type: str,
    topic: str,
    window: int,
    text: str,
    space: tuple[str, ...],
    ordered: tuple[str, ...],
    edge: tuple[str, ...],
    failure: str | None,
) -> Question:
    return Question(
        qid, letter, gt_type, topic, window, text, space, ordered, edge, "ordinal" if ordered else "nominal", failure
    )


_ALL = (
    _q(
        "A1",
        "A",
        "arbitration",
        "sleep",
        30,
        "In the past 30 days, how many nights did this person sleep 7 hours or more?",
        ("fewer_than_10", "10_to_19", "20_or_more"),
        ("fewer_than_10", "10_to_19", "20_or_more"),
        (),
        "self_report_bias",
    ),
    _q(
        "A2",
        "A",
        "arbitration",
        "work",
        30,
        "In the past 30 days, on how many days did this person work more than 9 hours?",
        ("0_to_3", "4_to_7", "8_or_more"),
        ("8_or_more", "4_to_7", "0_to_3"),
        (),
        "self_report_bias",
    ),
    _q(
        "A3",
        "A",
        "arbitration",
        "diet",
        30,
        "In the past 30 days, on what share of meal occasions did this person eat home-cooked food?",
        ("less_than_40", "40_to_69", "70_or_more"),
        ("less_than_40", "40_to_69", "70_or_more"),
        (),
        "self_report_bias",
    ),
    _q(
        "B2",
        "B",
        "identity",
        "exercise",
        30,
        "This person's profile describes exercising a certain number of days per week. "
        "In the past 30 days, how did their actual exercise frequency compare to that "
        "description?",
        ("more_than_1_below", "within_1_day", "more_than_1_above", "no_frequency_described"),
        ("more_than_1_below", "within_1_day", "more_than_1_above"),
        ("no_frequency_described",),
        "profile_anchoring",
    ),
    _q(
        "B3",
        "B",
        "identity",
        "work",
        30,
        "This person's profile describes a specific approach to weekend work. In the past "
        "30 days, did their actual weekend work pattern match that description?",
        ("matches", "does_not_match", "no_approach_described"),
        (),
        ("no_approach_described",),
        "profile_anchoring",
    ),
    _q(
        "C2",
        "C",
        "plan_reality",
        "social",
        14,
        "In the past 14 days, on days when this person planned a social activity, what "
        "share of those plans were actually realized?",
        ("below_25_pct", "25_to_50_pct", "above_50_pct", "no_plans"),
        ("below_25_pct", "25_to_50_pct", "above_50_pct"),
        ("no_plans",),
        "planner_absence",
    ),
    _q(
        "C3",
        "C",
        "plan_reality",
        "sleep",
        14,
        "In the past 14 days, on days when this person set a target bedtime, did they go "
        "to bed within 20 minutes of that target?",
        ("within_20min_more_than_50pct", "later_more_than_50pct", "earlier_more_than_50pct", "no_targets"),
        (),
        ("no_targets",),
        "cross_midnight",
    ),
    _q(
        "D1",
        "D",
        "trend",
        "social",
        30,
        "Comparing the first 14 days to the last 16 days of the 30-day window: did this "
        "person's number of social activities per day increase, decrease, or stay the same?",
        ("decreased", "stayed_same", "increased"),
        ("decreased", "stayed_same", "increased"),
        (),
        None,
    ),
    _q(
        "D2",
        "D",
        "trend",
        "diet",
        30,
        "In the past 30 days, did this person's daily home-cooked meal count and total "
        "meal count differ from the averages described in their profile by more than "
        "1 meal/day?",
        ("within_1", "differs_more_than_1", "no_baseline"),
        ("within_1", "differs_more_than_1"),
        ("no_baseline",),
        "profile_anchoring",
    ),
    _q(
        "E1",
        "E",
        "causal",
        "sleep",
        30,
        "In the past 30 days, on nights when this person went to bed after midnight, "
        "which co-occurring factor appeared on more than 50% of those nights?",
        ("work_activity", "social_activity", "no_single_factor", "no_late_nights"),
        (),
        ("no_late_nights",),
        "salient_factor",
    ),
    _q(
        "E2",
        "E",
        "causal",
        "exercise",
        30,
        "In the past 30 days, on days when this person had planned to exercise but did "
        "not, did they work more than 8.5 hours that same day?",
        ("no_fewer_than_30", "between_30_60", "yes_more_than_60"),
        ("no_fewer_than_30", "between_30_60", "yes_more_than_60"),
        (),
        "salient_factor",
    ),
    _q(
        "F1",
        "F",
        "missing_data",
        "social",
        30,
        "In the past 30 days, on how many days did this person attend social activities "
        "when the planner showed no social intent?",
        ("0_to_3", "4_to_6", "7_or_more", "no_social_activities"),
        ("0_to_3", "4_to_6", "7_or_more"),
        ("no_social_activities",),
        "planner_absence",
    ),
    _q(
        "F2",
        "F",
        "missing_data",
        "exercise",
        30,
        "In the past 30 days, on days when the fitness tracker recorded no workout, did "
        "other sources (self-report or payment records) indicate that this person "
        "exercised?",
        ("inactive_confirmed", "both_occurred", "yes_tracker_missing"),
        ("inactive_confirmed", "both_occurred", "yes_tracker_missing"),
        (),
        "tracker_missing",
    ),
    _q(
        "F3",
        "F",
        "missing_data",
        "work",
        30,
        "In the past 30 days, on days when the work timesheet had no entry, did other "
        "sources (self-report, planner, or computer activity log) indicate that this "
        "person worked?",
        ("truly_off", "both_occurred", "yes_worked_despite_no_entry"),
        ("truly_off", "both_occurred", "yes_worked_despite_no_entry"),
        (),
        "timesheet_missing",
    ),
    _q(
        "G1",
        "G",
        "annotation",
        "exercise",
        30,
        "In the past 30 days, on days when this person was physically active, was the "
        "activity deliberate exercise or incidental movement (such as walking to work or "
        "household chores)?",
        ("incidental_movement_70plus", "mix", "deliberate_exercise_70plus", "no_activity"),
        ("incidental_movement_70plus", "mix", "deliberate_exercise_70plus"),
        ("no_activity",),
        "latent_attribute",
    ),
    _q(
        "G2",
        "G",
        "annotation",
        "social",
        30,
        "In the past 30 days, when this person attended social activities, were those "
        "activities voluntary (by choice) or obligatory (e.g., work events, family "
        "commitments)?",
        ("obligatory_70plus", "mix", "voluntary_70plus", "no_meetings"),
        ("obligatory_70plus", "mix", "voluntary_70plus"),
        ("no_meetings",),
        "latent_attribute",
    ),
    _q(
        "Ctrl1",
        "Ctrl",
        "control",
        "diet",
        7,
        "In the past week, how many days did this person eat food prepared outside the home?",
        ("0_to_1_days", "2_to_3_days", "4_or_more"),
        ("4_or_more", "2_to_3_days", "0_to_1_days"),
        (),
        None,
    ),
    _q(
        "Ctrl2",
        "Ctrl",
        "control",
        "sleep",
        7,
        "In the past week, how many nights did this person sleep less than 6 hours?",
        ("0_nights", "1_to_2", "3_or_more"),
        ("3_or_more", "1_to_2", "0_nights"),
        (),
        None,
    ),
)

QUESTIONS: Mapping[str, Question] = MappingProxyType({q.id: q for q in _ALL})
QUESTION_IDS: tuple[str, ...] = tuple(q.id for q in _ALL)

#: a question's rule: a function named after the question (A1: `a1`)
RuleT = TypeVar("RuleT", bound=Callable[..., Any])


def by_question(rules: Iterable[RuleT]) -> dict[str, RuleT]:
    """Rules keyed by the question each answers, in the order given: the function named
    `a1` answers A1, `ctrl1` Ctrl1. Every question has exactly one rule."""
    ids = {qid.lower(): qid for qid in QUESTION_IDS}
    keyed = {ids.get(rule.__name__, rule.__name__): rule for rule in rules}
    if sorted(keyed) != sorted(QUESTION_IDS):
        raise ValueError(f"rules for {sorted(keyed)}, questions {sorted(QUESTION_IDS)}")
    return keyed
