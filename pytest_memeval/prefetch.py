"""Answer a context's items concurrently while its tests run one after another.

When a worker fills a context, it retrieves the memories of every selected item of that
context and hands them to the responder's `prefetch` (the LLM responder starts its calls
in a bounded thread pool). Each test then takes its retrieval and its answer, which is
usually ready. Offline responders do not declare `Prefetches` and nothing changes for them.
With --memeval-repeat, each selected repeat of an item retrieves and asks on its own,
its calls keyed by the repeat.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

import pytest

from .collection import CONTEXT_MARK, ITEM_ARG, REPEAT_ARG
from .protocols import Prefetches, ResponseModel
from .repetition import repeat_scope
from .runner import BoundMemory, Retrieval, retrieve
from .types import Item

ContextKey = tuple[str, str]  # (suite as the test names it, context id)
Selected = tuple[str, int]  # (item id, repeat)


def items_by_context(items: Sequence[pytest.Item]) -> dict[ContextKey, list[Selected]]:
    """The selected (item id, repeat) of each context, in run order (one entry per item
    and repeat, not per system)."""
    grouped: dict[ContextKey, list[Selected]] = defaultdict(list)
    for item in items:
        suite = item.get_closest_marker("memeval")
        group = item.get_closest_marker(CONTEXT_MARK)
        callspec = getattr(item, "callspec", None)
        if suite is None or group is None or callspec is None or ITEM_ARG not in callspec.params:
            continue
        selected = grouped[(suite.args[0], group.args[0])]
        entry = (callspec.params[ITEM_ARG], callspec.params.get(REPEAT_ARG, 0))
        if entry not in selected:
            selected.append(entry)
    return dict(grouped)


class Prefetcher:
    def __init__(self, contexts: dict[ContextKey, list[Selected]]) -> None:
        self.contexts = contexts
        self._retrievals: dict[tuple[str, int, str, int], Retrieval] = {}

    def start(
        self, key: ContextKey, build_item: Callable[[str], Item], memory: BoundMemory, responder: ResponseModel, k: int
    ) -> int:
        """Retrieve for every item of a freshly filled context and submit its answers."""
        if not isinstance(responder, Prefetches):
            return 0
        by_repeat: dict[int, list[str]] = defaultdict(list)
        for item_id, repeat in self.contexts.get(key, []):
            by_repeat[repeat].append(item_id)
        submitted = 0
        for repeat, item_ids in sorted(by_repeat.items()):
            with repeat_scope(repeat):  # the requests are built (and keyed) here
                requests = []
                for item_id in item_ids:
                    item = build_item(item_id)
                    retrieval = retrieve(item, memory, k)
                    self._retrievals[(memory.system_name, k, item_id, repeat)] = retrieval
                    requests.append((item_id, item.view, retrieval.memories))
                submitted += int(responder.prefetch(requests))
        return submitted

    def take(self, system_name: str, k: int, item_id: str, repeat: int = 0) -> Retrieval | None:
        return self._retrievals.pop((system_name, k, item_id, repeat), None)
