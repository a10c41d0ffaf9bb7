"""The seven tasks, their levels, and the public question forms.

A task (T1..T7) is private: T2 items are all answered by abstaining, so naming the task
would give the answer away. What the responder sees is the question's *form*, which T1
and T2 share ("extract"), and the answer format of that form.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Task:
    code: str
    name: str
    level: str
    #: the paper's metric (Table 2, 0-100): only the rubric judge's scores carry it
    metric: str
    marker: str
    #: our deterministic diagnostic of the task (0-100); never the paper's name
    diagnostic: str


TASKS = {
    t.code: t
    for t in (
        Task("T1", "context-aware extraction", "I", "t1_extraction", "T1_extraction", "t1_entity_f1"),
        Task("T2", "adversarial abstention", "I", "t2_abstention", "T2_abstention", "t2_abstain_exact"),
        Task("T3", "temporal reasoning", "I", "t3_temporal", "T3_temporal", "t3_value_bands"),
        Task("T4", "logical event ordering", "II", "t4_ordering", "T4_ordering", "t4_rank_bands"),
        Task("T5", "mnestic trigger analysis", "II", "t5_trigger", "T5_trigger", "t5_cue_bands"),
        Task("T6", "mind-body interaction", "III", "t6_mind_body", "T6_mind_body", "t6_coverage"),
        Task("T7", "expert-annotated insight (principles)", "III", "t7_principle", "T7_principle", "t7_coverage"),
    )
}
LEVELS = {"I": ("T1", "T2", "T3"), "II": ("T4", "T5"), "III": ("T6", "T7")}
#: the paper's level metrics and ours (mean of the task diagnostics)
LEVEL_METRICS = {level: f"level_{level.lower()}" for level in LEVELS}
LEVEL_DIAGNOSTICS = {level: f"level_{level.lower()}_diag" for level in LEVELS}
LEVEL_NAMES = {"I": "precision and factuality", "II": "narrative logic and causality", "III": "interpretive insight"}
TRAP_KINDS = {
    "entity_swap": "a real person put into an exchange they were not part of",
    "spatiotemporal": "a real exchange moved to a date or place where it did not happen",
    "false_causality": "a real exchange tied to a real but unrelated event as its cause",
}
ABSTAIN = "ABSTAIN"

#: public answer formats by question form; the LLM prompt quotes them
ANSWER_FORMATS = {
    "extract": 'the items, separated by semicolons (e.g. "saffron; a wool scarf")',
    "duration": 'the duration with its units (e.g. "1 hour 5 minutes", "40 seconds")',
    "gap": 'a number of whole years (e.g. "23 years")',
    "order": 'the option letters from earliest to latest, separated by " > " (e.g. "B > A > C")',
    "state": "a short noun phrase",
    "rank": 'the option letters from least to most, separated by " > " (e.g. "B > A > C")',
    "trigger": 'the cue as "the <sense> of <thing>" (e.g. "the sound of church bells")',
    "mind_body": "two or three sentences",
    "principle": "two or three sentences",
    "open": "a short answer",
}
