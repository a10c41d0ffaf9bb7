"""The 46 constrained predicates of the extraction step (paper App. A.1), in its seven groups.

Facts are (subject, predicate, object) triples; the extractor emits no other predicate.
"""

from __future__ import annotations

PREDICATE_GROUPS: dict[str, tuple[str, ...]] = {
    "behavioral patterns": (
        "practices",
        "avoids",
        "prefers",
        "follows",
        "monitors",
        "plays",
        "studies",
        "builds",
        "manages",
    ),
    "values, beliefs and self-view": ("values", "believes", "prioritizes", "identifies_as", "aspires_to", "wants_to"),
    "emotions and dispositions": (
        "fears",
        "loves",
        "hates",
        "enjoys",
        "dislikes",
        "admires",
        "struggles_with",
        "excels_at",
    ),
    "experiences, decisions and learning": ("experienced", "learned", "decided", "lost", "founded"),
    "relationships": (
        "married_to",
        "parents",
        "raised_by",
        "mentored_by",
        "friends_with",
        "collaborates_with",
        "reports_to",
        "relates_to",
        "conflicts_with",
        "maintains",
    ),
    "biographical context": (
        "owns",
        "works_at",
        "lives_in",
        "raised_in",
        "attended",
        "graduated_from",
        "interested_in",
    ),
    "fallback": ("unknown",),
}

PREDICATES: frozenset[str] = frozenset(p for group in PREDICATE_GROUPS.values() for p in group)
