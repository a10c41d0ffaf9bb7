"""--memeval-oracle: an item answered from a store of only the sessions that hold its gold
evidence, the ceiling that separates retrieval from reading (docs/statistics.md, "The oracle").

An oracle item's store depends on its evidence, not only on its context: its namespace is
named by the context and the evidence ids (hashed, like every namespace), so items of one
context with the same evidence share one fill, and the scheduler's grouping by context
still keeps them on one worker.
"""

from __future__ import annotations

from ..types import Context, Evidence, Item
from .runner import namespace_for


def oracle_namespace(suite: str, item: Item) -> str:
    """The namespace of the item's oracle store (an item without evidence: an empty one)."""
    ids = sorted(item.evidence.ids) if item.evidence is not None else []
    return namespace_for(suite, "\0".join([item.context_id, "oracle", *ids]))


def oracle_context(context: Context, evidence: Evidence | None) -> Context:
    """The context's sessions that hold an evidence message, in their order; none without evidence."""
    ids = evidence.ids if evidence is not None else frozenset()
    held = tuple(session for session in context.sessions if any(m.id in ids for m in session))
    return Context(context.id, held)
