"""Answer a context's items concurrently while its tests run one after another.

When a worker fills a context, it retrieves the memories of every selected item of that
context and hands them to the responder's `prefetch` (the LLM responder starts its calls
in a bounded thread pool). Each test then takes its retrieval and its answer, which is
usually ready. Offline responders have no `prefetch` and nothing changes for them.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Callable, Sequence

import pytest

from .collection import CONTEXT_MARK, ITEM_ARG
from .protocols import ResponseModel
from .runner import BoundMemory, Retrieval, retrieve
from .types import Item

ContextKey = tuple[str, str]  # (suite as the test names it, context id)


def items_by_context(items: Sequence[pytest.Item]) -> dict[ContextKey, list[str]]:
    """The selected item ids of each context, in run order (one entry per item, not per system)."""
    grouped: dict[ContextKey, list[str]] = defaultdict(list)
    for item in items:
        suite = item.get_closest_marker("memeval")
        group = item.get_closest_marker(CONTEXT_MARK)
        callspec = getattr(item, "callspec", None)
        if suite is None or group is None or callspec is None or ITEM_ARG not in callspec.params:
            continue
        ids = grouped[(suite.args[0], group.args[0])]
        item_id = callspec.params[ITEM_ARG]
        if item_id not in ids:
            ids.append(item_id)
    return dict(grouped)


class Prefetcher:
    def __init__(self, contexts: dict[ContextKey, list[str]]) -> None:
        self.contexts = contexts
        self._retrievals: dict[tuple[str, str], Retrieval] = {}

    def start(
        self, key: ContextKey, build_item: Callable[[str], Item], memory: BoundMemory, responder: ResponseModel, k: int
    ) -> int:
        """Retrieve for every item of a freshly filled context and submit its answers."""
        prefetch = getattr(responder, "prefetch", None)
        if prefetch is None:
            return 0
        requests = []
        for item_id in self.contexts.get(key, []):
            item = build_item(item_id)
            retrieval = retrieve(item, memory, k)
            self._retrievals[(memory.system_name, k, item_id)] = retrieval
            requests.append((item_id, item.view, retrieval.memories))
        return int(prefetch(requests))

    def take(self, system_name: str, k: int, item_id: str) -> Retrieval | None:
        return self._retrievals.pop((system_name, k, item_id), None)
