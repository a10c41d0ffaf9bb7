"""Answer items concurrently while their tests run one after another, across contexts.

When a worker fills a context, it retrieves the memories of every selected item of that
context and hands them to the responder's `prefetch` (the LLM responder starts its calls
in a bounded thread pool). Each test then takes its retrieval and its answer, which is
usually ready. Offline responders do not declare `Prefetches` and nothing changes for them.
With --memeval-repeat, each selected repeat of an item retrieves and asks on its own,
its calls keyed by the repeat.

So that the endpoint is kept busy across contexts, the worker also fills the stages
(context, memory system, depth) scheduled next on it and prefetches their items, while
fewer than twice its share of --memeval-concurrency answers are pending and at most
`STAGES_AHEAD` stages are filled ahead: memory (retrievals held) and filled namespaces stay
bounded. What comes next is known from the collection order without xdist, and from the
items the controller already sent a worker under xdist (the context scheduler keeps
`STAGES_AHEAD` contexts queued on each worker of a run with an LLM responder).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import pytest

from ..llm.repetition import repeat_scope
from ..llm.tally import count_tokens
from ..protocols import ResponseModel, prefetches
from ..results.usage import Tokens
from ..types import Item
from .collection import CONTEXT_MARK, ITEM_ARG, K_ARG, REPEAT_ARG, SYSTEM_ARG
from .runner import FILLED_NAMESPACES_KEPT, BoundMemory, Retrieval, retrieve

ContextKey = tuple[str, str]  # (suite as the test names it, context id)
Selected = tuple[str, int]  # (item id, repeat)

#: stages filled and prefetched ahead of the one running (one namespace stays for it)
STAGES_AHEAD = FILLED_NAMESPACES_KEPT - 1


def pending_limit(budget: int) -> int:
    """Stages are filled ahead while fewer answers than this are pending: the budget in
    flight, and as many ready for the tests to take while the next stage is filled."""
    return 2 * budget


@dataclass(frozen=True)
class Stage:
    """The items run together on one worker: one context of a suite, for one memory system
    at one retrieval depth."""

    suite_ref: str
    context_id: str
    system: str
    k: int

    @property
    def context(self) -> ContextKey:
        return (self.suite_ref, self.context_id)


def stage_of(item: pytest.Item, default_system: str, default_k: int) -> Stage | None:
    """The stage of a memeval item, None for any other test."""
    suite = item.get_closest_marker("memeval")
    group = item.get_closest_marker(CONTEXT_MARK)
    callspec = getattr(item, "callspec", None)
    if suite is None or group is None or callspec is None or ITEM_ARG not in callspec.params:
        return None
    params = callspec.params
    return Stage(suite.args[0], group.args[0], params.get(SYSTEM_ARG, default_system), params.get(K_ARG, default_k))


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


@dataclass(frozen=True)
class Fill:
    """What filling one stage ahead cost."""

    tokens: dict[str, dict[str, Tokens]]
    ingest_ms: tuple[float, ...] = ()
    #: each session's time to searchable (--memeval-searchable; None: not within the deadline)
    searchable_ms: tuple[float | None, ...] = ()


#: the stages scheduled on this process after the given one, in run order
Upcoming = Callable[[Stage], Sequence[Stage]]


def upcoming_in_order(stages: Sequence[Stage]) -> Upcoming:
    """Without xdist: the stages in collection order (each at its first item)."""
    order = list(dict.fromkeys(stages))
    position = {stage: i for i, stage in enumerate(order)}
    return lambda current: order[position[current] + 1 :] if current in position else ()


def upcoming_in_queue(
    queued: Callable[[], Sequence[pytest.Item]], stage_of_item: Callable[[pytest.Item], Stage | None]
) -> Upcoming:
    """Under xdist: the stages of the items the controller sent this worker that have not
    started yet, in the order they will run."""

    def upcoming(current: Stage) -> list[Stage]:
        stages = (stage_of_item(item) for item in queued())
        return [stage for stage in dict.fromkeys(stages) if stage is not None and stage != current]

    return upcoming


class Prefetcher:
    """`budget`: the answers this process keeps in flight (its share of
    --memeval-concurrency); None, or no `upcoming`, fetches ahead within a stage only."""

    def __init__(
        self, contexts: Mapping[ContextKey, list[Selected]], budget: int | None = None, upcoming: Upcoming | None = None
    ) -> None:
        self.contexts = contexts
        self.budget = budget
        self.upcoming = upcoming
        self._retrievals: dict[tuple[str, int, str, int], Retrieval] = {}
        self._started: set[Stage] = set()
        #: stages this process tried to fill ahead (once each)
        self._tried: set[Stage] = set()
        #: stages filled ahead whose items have not started yet -> their namespace
        self._ahead: dict[Stage, str] = {}
        #: what filling a stage ahead cost (its LLM tokens, each session's milliseconds),
        #: paid by the stage's first item as if it had filled the context itself
        self._fills: dict[Stage, Fill] = {}
        self._calls_started = False

    def start(
        self, stage: Stage, build_item: Callable[[str], Item], memory: BoundMemory, responder: ResponseModel
    ) -> int:
        """Retrieve for every item of a filled stage and submit its answers (once per stage)."""
        if not prefetches(responder) or stage in self._started:
            return 0
        self._started.add(stage)
        by_repeat: dict[int, list[str]] = defaultdict(list)
        for item_id, repeat in self.contexts.get(stage.context, []):
            by_repeat[repeat].append(item_id)
        submitted = 0
        for repeat, item_ids in sorted(by_repeat.items()):
            with repeat_scope(repeat):  # the requests are built (and keyed) here
                requests = []
                for item_id in item_ids:
                    item = build_item(item_id)
                    retrieval = retrieve(item, memory, stage.k)
                    self._retrievals[(memory.system_name, stage.k, item_id, repeat)] = retrieval
                    requests.append((item_id, item.view, retrieval.memories))
                submitted += int(responder.prefetch(requests))
        self._calls_started = self._calls_started or submitted > 0
        return submitted

    def take(self, system_name: str, k: int, item_id: str, repeat: int = 0) -> Retrieval | None:
        return self._retrievals.pop((system_name, k, item_id, repeat), None)

    def arrived(self, stage: Stage) -> Fill:
        """The stage's items are running: it is no longer ahead. The first pays its fill
        (its tokens are counted here; its sessions' timings are returned, to its record)."""
        self._ahead.pop(stage, None)
        fill = self._fills.pop(stage, None)
        if fill is None:
            return Fill({})
        for phase, models in fill.tokens.items():
            for model, tokens in models.items():
                count_tokens(phase, model, tokens)
        return fill

    def kept(self) -> frozenset[str]:
        """The namespaces filled ahead, which no fill may reset to make room."""
        return frozenset(namespace for namespace in self._ahead.values() if namespace)

    def next_stages(self, current: Stage) -> Iterator[Stage]:
        """The stages to fill ahead now, each once, while the endpoint has room for them."""
        if self.budget is None or self.upcoming is None or not self._calls_started:
            return
        while len(self._retrievals) < pending_limit(self.budget) and len(self._ahead) < STAGES_AHEAD:
            stage = next((s for s in self.upcoming(current) if s not in self._started and s not in self._tried), None)
            if stage is None:
                return
            self._tried.add(stage)
            self._ahead[stage] = ""
            yield stage

    def filled_ahead(self, stage: Stage, namespace: str, fill: Fill) -> None:
        """Where a stage filled ahead lives ('' when its fill failed), and what the fill cost
        (see `arrived`)."""
        if namespace:
            self._ahead[stage] = namespace
        else:
            self._ahead.pop(stage, None)
        if fill.tokens or fill.ingest_ms or fill.searchable_ms:
            self._fills[stage] = fill
