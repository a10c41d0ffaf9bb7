"""Markers of the memfail suite: dataset, targeted operation and the conditions of each item."""

from __future__ import annotations

from .condition_data import CONDITION_TYPES
from .datasets import DATASETS


def marker_descriptions() -> dict[str, str]:
    markers = {d.marker: f"memfail dataset {d.title}" for d in DATASETS}
    markers.update(
        {
            "targets_summary": "memfail: the item targets summarisation (details, conditions, identity must survive)",
            "targets_storage": "memfail: the item targets storage (compatible facts kept, contradicted ones replaced)",
            "targets_retrieval": "memfail: the item targets retrieval (every needed memory in the top-k)",
            "targets_abstention": "memfail: the right answer is to abstain (the question names a stranger)",
            "condition_met": "memfail Conditional-Facts: the question's situation satisfies the rule",
            "condition_unmet": "memfail Conditional-Facts: the question's situation does not satisfy the rule",
            "persona_direct": "memfail Persona-Retrieval: the question names the essay's person",
            "persona_misleading": "memfail Persona-Retrieval: the question names a distractor no memory mentions",
            "update_overwrite": "memfail Knowledge-Update: a later statement replaces the earlier value",
            "update_addition": "memfail Knowledge-Update: a later statement adds a value beside the earlier one",
        }
    )
    markers.update(
        {f"cond_{t.name}": f"memfail Conditional-Facts condition type {t.name} ({t.group})" for t in CONDITION_TYPES}
    )
    markers.update({f"facts_{n}": f"memfail Coexisting-Facts: {n} coexisting preferences needed" for n in range(2, 6)})
    markers.update({f"hops_{k}": f"memfail Long-Hop: a chain of {k} hops ({k + 1} facts)" for k in range(1, 4)})
    return markers
