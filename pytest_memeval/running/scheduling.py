"""Keeping each context on one xdist worker without touching pytest's node ids.

A context (a persona, a dataset) is filled into a memory system once per worker, so all
items of one (suite, context, memory system) should run on the same worker; with several
depths (--memeval-k) each depth is a group of its own, so a context is filled once per
depth, unless the suite keeps its depths on one store (`Suite.splits_by_k`, memfail). xdist's own
`loadgroup` needs an '@group' suffix on node ids, which breaks pasting ids back into
pytest, `--lf` and JUnit. Instead the plugin supplies a scheduler through xdist's
`pytest_xdist_make_scheduler` hook: a `LoadScopeScheduling` whose scope of a node id is
its group. The controller never collects, so each worker writes its node id -> group
table to a directory the controller named, and the scheduler reads one when every worker
has collected. Remote workers (`--tx ssh=...`) write on their own machine; the scheduler
then derives the groups of the suites it indexed itself (bundled and entry-point suites)
from their parameter ids, and schedules other tests one by one.

Used for `-n N` (xdist's default `--dist load`) and `--dist loadgroup`; any other --dist
the user chooses is respected, and prefetching is then off.

A worker that dies gives its unfinished groups back to the queue (xdist's rule), the item it
was running among them: that item runs again on another worker, once. An item that took
`CRASH_ATTEMPTS` workers down is not sent again (it ends as an error record, `crashes`), so
that the rest of its context still runs instead of every fresh worker dying on it until
xdist's restart limit ends the run.
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from ..framework.suite import IndexEntry
from .collection import CONTEXT_MARK, ITEM_ARG, K_ARG, SYSTEM_ARG

GROUPS_DIR = "memeval_groups_dir"
GROUPED_MODES = ("load", "loadgroup")
#: how many workers an item may take down before it is not sent again: the first crash may
#: be the machine's (the OOM killer), a second one is the item's
CRASH_ATTEMPTS = 2


def is_distributed(config: pytest.Config) -> bool:
    """On the controller: whether xdist workers will run the tests."""
    return bool(getattr(config.option, "numprocesses", None) or getattr(config.option, "tx", None))


def uses_context_scheduler(config: pytest.Config) -> bool:
    """On the controller: whether this xdist run schedules by context."""
    return is_distributed(config) and config.getvalue("dist") in GROUPED_MODES


def contexts_stay_together(config: pytest.Config) -> bool:
    """Whether every item of a context runs in this process (no xdist, or our scheduler)."""
    workerinput = getattr(config, "workerinput", None)
    return workerinput is None or workerinput.get(GROUPS_DIR) is not None


def queued_items(config: pytest.Config, session: pytest.Session) -> Callable[[], list[pytest.Item]] | None:
    """On an xdist worker: the items the controller sent it that have not started yet (the
    next one first), read from xdist's worker loop; None where there is no such loop."""
    # xdist runs its worker module through execnet, so its class is known by name only
    worker = next((p for p in config.pluginmanager.get_plugins() if type(p).__name__ == "WorkerInteractor"), None)
    if worker is None or not hasattr(worker, "torun"):
        return None

    def queued() -> list[pytest.Item]:
        with worker.torun.lock() as queue:
            indices = [worker.nextitem_index, *queue]
        return [session.items[i] for i in indices if isinstance(i, int) and not isinstance(i, bool)]

    return queued


def make_groups_dir() -> str:
    return tempfile.mkdtemp(prefix="memeval-groups-")


def remove_groups_dir(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)


SplitsByK = Callable[[str], bool]


def group_name(suite_ref: str, context: str, system: str, k: int | None) -> str:
    """'suite_ref::context::system', plus '::k<k>' when the suite's depths run apart."""
    return f"{suite_ref}::{context}::{system}" + (f"::k{k}" if k is not None else "")


def group_of(item: pytest.Item, default_system: str, splits_by_k: SplitsByK) -> str | None:
    """The group of a memeval item (its suite, context, memory system, and its depth where
    several are run and the suite allows it), None for any other test."""
    suite = item.get_closest_marker("memeval")
    context = item.get_closest_marker(CONTEXT_MARK)
    callspec = getattr(item, "callspec", None)
    if suite is None or context is None or callspec is None or ITEM_ARG not in callspec.params:
        return None
    system = callspec.params.get(SYSTEM_ARG, default_system)
    k = callspec.params.get(K_ARG) if splits_by_k(suite.args[0]) else None
    return group_name(suite.args[0], context.args[0], system, k)


def write_groups(
    config: pytest.Config, items: Sequence[pytest.Item], default_system: str, splits_by_k: SplitsByK
) -> None:
    """On a worker, after collection: the table the controller's scheduler reads."""
    workerinput = getattr(config, "workerinput", {})
    directory = workerinput.get(GROUPS_DIR)
    if directory is None:
        return
    groups = {
        item.nodeid: group for item in items if (group := group_of(item, default_system, splits_by_k)) is not None
    }
    target = Path(directory) / f"{workerinput['workerid']}.json"
    partial = target.with_suffix(".part")
    partial.write_text(json.dumps(groups), encoding="utf-8")
    partial.replace(target)  # the scheduler never reads half a table


def make_scheduler(
    config: pytest.Config,
    log: Any,
    directory: str,
    by_params: Callable[[], dict[str, str]],
    pending_per_worker: int = 0,
    most_ahead: int = 0,
) -> Any:
    """`by_params` gives the fallback table: parameter id -> group, for the suites the
    controller indexed. With `pending_per_worker` (answers a worker keeps pending while it
    fills ahead, prefetch.py), each worker is kept enough groups beyond the one it runs to
    hold that many items, at most `most_ahead`: more would leave one worker with a queue
    while another has run out at the end. Otherwise xdist's rule holds (a new group when
    two tests are left)."""
    from xdist.scheduler import LoadScopeScheduling

    class ContextScheduling(LoadScopeScheduling):
        """xdist's scope scheduling with one scope per (suite, context, memory system)."""

        groups: dict[str, str] = {}
        params: dict[str, str] = {}

        def __init__(self, config: pytest.Config, log: Any) -> None:
            super().__init__(config, log)
            #: node id -> how many workers died while running it
            self.crashes: Counter[str] = Counter()

        def schedule(self) -> None:
            if self.collection is None:
                self.groups = _read_groups(directory, [node.gateway.id for node in self.registered_collections])
                if not self.groups:
                    self.params = by_params()
            super().schedule()

        def _split_scope(self, nodeid: str) -> str:
            if self.groups:
                return self.groups.get(nodeid, nodeid)
            params = nodeid[nodeid.find("[") + 1 : -1] if nodeid.endswith("]") else ""
            return self.params.get(params, nodeid)

        # xdist's LoadScopeScheduling finds each node id with list.index when it hands out
        # a scope, and recounts every scope a worker ever had on each report: both grow
        # with the run (O(items^2) on the controller). Positions come from one table here,
        # and a finished scope leaves the worker's books.
        _positions: dict[str, int] | None = None

        def _assign_work_unit(self, node: Any) -> None:
            scope, work_unit = self.workqueue.popitem(last=False)
            self.assigned_work.setdefault(node, {})[scope] = work_unit
            if self._positions is None:
                self._positions = {nodeid: i for i, nodeid in enumerate(self.collection)}
            node.send_runtest_some([self._positions[nodeid] for nodeid, done in work_unit.items() if not done])

        _scopes_ahead: int | None = None

        def _reschedule(self, node: Any) -> None:
            if node.shutting_down:
                return
            assigned = self.assigned_work.setdefault(node, {})
            if pending_per_worker and most_ahead:
                if self._scopes_ahead is None:  # from the mean group size, once the groups are known
                    per_scope = len(self.collection or ()) / max(len(self.workqueue), 1)
                    self._scopes_ahead = min(most_ahead, max(1, math.ceil(pending_per_worker / max(per_scope, 1))))
                while self.workqueue and len(assigned) <= self._scopes_ahead:
                    self._assign_work_unit(node)
            elif self.workqueue and self._pending_of(assigned) <= 2:
                self._assign_work_unit(node)
            # an xdist worker starts an item only once it holds the next one or is told to
            # shut down: one item alone (a crashed group given back with one item left)
            # would wait for ever while other groups are queued
            while self.workqueue and self._pending_of(assigned) < 2:
                self._assign_work_unit(node)
            if not self.workqueue:
                node.shutdown()

        def remove_node(self, node: Any) -> str | None:
            """A worker finished or died: xdist's rule (its unfinished groups go back to the
            queue; the item it was running is returned), except that an item that took
            CRASH_ATTEMPTS workers down is not sent again."""
            workload = self.assigned_work.pop(node)
            # items run in the order they were sent, and finished groups leave the books:
            # the first unfinished item is the one the worker was running
            crashed = next((nodeid for unit in workload.values() for nodeid, done in unit.items() if not done), None)
            if crashed is None:
                return None
            self.crashes[crashed] += 1
            if self.crashes[crashed] >= CRASH_ATTEMPTS:
                for unit in workload.values():
                    if crashed in unit:
                        unit[crashed] = True
            self.workqueue.update((scope, unit) for scope, unit in workload.items() if not all(unit.values()))
            for other in self.assigned_work:
                self._reschedule(other)
            return crashed

        def mark_test_complete(self, node: Any, item_index: int, duration: float = 0) -> None:
            nodeid = self.registered_collections[node][item_index]
            scope = self._split_scope(nodeid)
            assigned = self.assigned_work[node]
            assigned[scope][nodeid] = True
            if all(assigned[scope].values()):
                del assigned[scope]
            self._reschedule(node)

    return ContextScheduling(config, log)


def groups_by_params(
    entries: Mapping[str, Sequence[IndexEntry]], systems: Sequence[str], ks: Sequence[int], splits_by_k: SplitsByK
) -> dict[str, str]:
    """Each parameter id pytest gives a memeval item of these suites -> its group (the ids
    are built as collection.parametrize builds them: item, then system, then k)."""
    table = {}
    for suite_ref, index in entries.items():
        split = len(ks) > 1 and splits_by_k(suite_ref)
        for entry in index:
            for system in systems:
                for k in ks:
                    parts = [entry.id, *([system] if len(systems) > 1 else []), *([f"k{k}"] if len(ks) > 1 else [])]
                    table["-".join(parts)] = group_name(suite_ref, entry.context_id, system, k if split else None)
    return table


def _read_groups(directory: str, worker_ids: Sequence[str]) -> dict[str, str]:
    for worker_id in worker_ids:
        path = Path(directory) / f"{worker_id}.json"
        if path.is_file():
            groups: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
            return groups
    return {}
