"""One item on one worker: fill its context (or let the suite drive the memory), retrieve,
answer and judge. Called from the `memeval_result` fixture, during setup."""

from __future__ import annotations

import time

from .prefetch import Prefetcher
from .runner import BoundMemory, Outcome, answer_error, conclude, namespace_for, retrieve, run_item
from .state import RunState
from .types import Item


def evaluate(state: RunState, prefetcher: Prefetcher, suite_ref: str, item: Item, system_name: str, k: int) -> Outcome:
    suite = state.suite(suite_ref)
    filler = state.filler(system_name)
    responder = state.responder(suite)
    judge = state.judge(suite)
    responder_name = state.settings.responder
    if suite.interactive:
        # The suite writes and probes in its own order; the namespace is the item's alone.
        memory = BoundMemory(system_name, filler.system, namespace_for(suite.name, item.id))
        memory.reset()
        started = time.perf_counter()
        try:
            answer = suite.interact(item, memory, responder, k)
        except Exception as exc:
            raise answer_error(responder_name, item, exc) from exc
        seconds = time.perf_counter() - started - memory.retrieve_seconds
        outcome = conclude(suite_ref, item, answer, seconds, memory.totals(), memory, responder_name, judge)
        memory.reset()
        return outcome
    memory = BoundMemory(system_name, filler.system, namespace_for(suite.name, item.context_id))
    if filler.ensure(memory.namespace, lambda: suite.context(item.context_id)):
        prefetcher.start((suite_ref, item.context_id), suite.item, memory, responder, k)
    retrieval = prefetcher.take(system_name, k, item.id) or retrieve(item, memory, k)
    return run_item(suite_ref, item, retrieval, memory, responder_name, responder, judge)
