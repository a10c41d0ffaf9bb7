"""Markers of the multisource suite: conditions and targeted failure modes (spec, Table 8)."""

from __future__ import annotations

REASONING_TYPES = {
    "A": "arbitration",
    "B": "identity",
    "C": "plan_reality",
    "D": "trend",
    "E": "factor_attribution",
    "F": "missing_data",
    "G": "annotation",
    "Ctrl": "control",
}
DIFFICULTIES = ("stable", "temporal_shift", "stated_vs_revealed")
TOPICS = ("sleep", "work", "diet", "social", "exercise")
WINDOWS = (7, 14, 30)
FAILURE_MODES = {
    "planner_absence": "planner absence read as 'no plan' (C2, F1)",
    "tracker_missing": "a missing tracker record read as inactivity (F2)",
    "timesheet_missing": "a missing timesheet read as a day off (F3)",
    "profile_anchoring": "anchoring on a stale or idealised profile (B2, B3, D2)",
    "salient_factor": "picking the salient factor instead of testing each (E1, E2)",
    "cross_midnight": "bedtime arithmetic across midnight (C3)",
    "latent_attribute": "a latent attribute seen only through biased projections (G1, G2)",
    "self_report_bias": "trusting a directionally biased self-report (A1-A3)",
}


def marker_descriptions() -> dict[str, str]:
    markers = {f"type_{name}": f"multisource reasoning type {letter} ({name})" for letter, name in REASONING_TYPES.items()}
    markers.update({f"difficulty_{d}": f"multisource persona difficulty class {d}" for d in DIFFICULTIES})
    markers.update({f"topic_{t}": f"question topic {t}" for t in TOPICS})
    markers.update({f"window_{w}d": f"question about the last {w} days" for w in WINDOWS})
    markers.update(
        {
            "answer_ordinal": "ordered answer scale",
            "answer_nominal": "unordered categorical answer space",
            "edge_label": "the true answer is an edge label (no_plans, no_baseline, ...), not a SKIP",
            "source_unreachable": "no single source's direct readout equals the true answer",
        }
    )
    markers.update({f"fm_{name}": f"targeted failure mode: {text}" for name, text in FAILURE_MODES.items()})
    return markers
