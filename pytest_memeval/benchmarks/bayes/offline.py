"""Running episodes without pytest: for the self-test agents, the acceptance script and tests.

The plugin runs an episode through `evaluate` (fixtures); this does the same steps in
process (fresh namespace, `interact`, judge, the same record) so that response models the
command line cannot name, such as the self-test agents, can be measured.
"""

from __future__ import annotations

import hashlib
from typing import Any, Iterable

from ...runner import BoundMemory, Retrieval, conclude
from .suite import BayesSuite


def run_episodes(
    suite: BayesSuite, system: Any, system_name: str, responder: Any, responder_name: str, episode_ids: Iterable[str], k: int
) -> list[dict[str, Any]]:
    """One record per episode, shaped as the plugin's records (plus `k`)."""
    records = []
    judge = suite.judge()
    for episode_id in episode_ids:
        item = suite.item(episode_id)
        namespace = "bayes-" + hashlib.sha256(episode_id.encode()).hexdigest()[:16]
        memory = BoundMemory(system_name, system, namespace)
        memory.reset()
        answer = suite.interact(item, memory, responder, k)
        outcome = conclude(suite.name, item, answer, 0.0, Retrieval([], 0.0), memory, responder_name, judge)
        memory.reset()
        records.append(dict(outcome.record, k=k))
    return records
