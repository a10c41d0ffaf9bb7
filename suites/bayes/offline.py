"""Running episodes without pytest: for the self-test agents, the acceptance script and tests.

The same orchestration as the plugin (`evaluation.evaluate_items`): fresh namespace,
`interact`, judge, the same record, with response models the command line cannot name.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pytest_memeval.results.records import Record, RunKey

from .suite import BayesSuite


def run_episodes(
    suite: BayesSuite,
    system: Any,
    system_name: str,
    responder: Any,
    responder_name: str,
    episode_ids: Iterable[str],
    k: int,
) -> list[Record]:
    """One record per episode, exactly as the plugin makes it."""
    from pytest_memeval.running.evaluation import Components, evaluate_items

    parts = Components.offline(suite, system, system_name, responder)
    return list(evaluate_items(parts, episode_ids, RunKey(suite.name, system_name, responder_name, k=k)))
