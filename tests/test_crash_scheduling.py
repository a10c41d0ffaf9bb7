"""The plugin's xdist scheduler when workers die, driven in this process by a model of
xdist's controller and workers (no subprocess): a worker starts an item only once it holds
the next one or was told to shut down, as xdist's worker loop does.

The audit's hang: under `-n 2` an adapter that kills its worker on every attempt at one
item stopped a 30-item run at 26/30 for ever: the crashed group came back with one item
left, a fresh worker was sent that one item alone, and waited for a next one that never
came. The second form: every fresh worker died on that item until xdist's restart limit
ended the run, and the rest of its context never ran.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_memeval.running import scheduling

CONTEXTS = tuple(f"p{i}" for i in range(10))
THINGS = ("colour", "city", "pet")
#: bounds every simulated run: far more steps than any run here takes
MAX_STEPS = 10_000


class _Worker:
    """An xdist worker as the scheduler sees it."""

    def __init__(self, number: int) -> None:
        self.gateway = SimpleNamespace(id=f"gw{number}")
        self.queue: list[int] = []
        self.shutting_down = False

    def send_runtest_some(self, indices: list[int]) -> None:
        self.queue.extend(indices)

    def shutdown(self) -> None:
        self.shutting_down = True

    def can_start(self) -> bool:
        """xdist's worker loop takes the next index before it runs an item (its nextitem)."""
        return len(self.queue) >= 2 or (bool(self.queue) and self.shutting_down)


class _Controller:
    """xdist's DSession, reduced to the calls it makes on the scheduler."""

    def __init__(
        self,
        tmp_path: Path,
        workers: int,
        max_restart: int,
        pick: Callable[[list[_Worker]], _Worker],
        startup_steps: int = 0,
    ) -> None:
        params = {f"{c}-{t}": f"widetoy::{c}::crashy" for c in CONTEXTS for t in THINGS}
        self.collection = [f"test_wide.py::test_wide[{p}]" for p in params]
        config = SimpleNamespace(
            getvalue=lambda name: [f"{workers}*popen"], option=SimpleNamespace(loadscopereorder=False)
        )
        self.scheduler: Any = scheduling.make_scheduler(config, None, str(tmp_path / "no-tables"), lambda: params)
        self.max_restart, self.pick, self.startup_steps = max_restart, pick, startup_steps
        self.started = 0
        self.live: list[_Worker] = []
        #: the steps at which the replacements still starting are ready
        self.starting: list[int] = []
        self.shuttingdown = False
        self.ran: list[str] = []
        self.crashed: list[str] = []
        self.limit_reached = False
        nodes = [self._start() for _ in range(workers)]
        for node in nodes:
            self.scheduler.add_node_collection(node, self.collection)
        self.scheduler.schedule()

    def _start(self) -> _Worker:
        node = _Worker(self.started)
        self.started += 1
        self.live.append(node)
        if self.shuttingdown:
            node.shutdown()
        else:
            self.scheduler.add_node(node)
        return node

    def run(self, crashes_on: Callable[[str], bool]) -> list[_Worker]:
        """Runs until no worker can go on; returns the workers left holding items they will never start."""
        for step in range(MAX_STEPS):
            while self.starting and self.starting[0] <= step:
                self.starting.pop(0)
                self._replacement_ready()
            for done in [n for n in self.live if n.shutting_down and not n.queue]:
                self.live.remove(done)
                if done in self.scheduler.assigned_work:
                    assert self.scheduler.remove_node(done) is None
            ready = [node for node in self.live if node.can_start()]
            if not ready and not self.starting:
                return [node for node in self.live if node.queue]
            if not ready:
                continue
            node = self.pick(ready)
            index = node.queue.pop(0)
            if crashes_on(self.collection[index]):
                self._crash(node, step)
            else:
                self.ran.append(self.collection[index])
                self.scheduler.mark_test_complete(node, index)
            self._after_event()
        raise AssertionError(f"no end after {MAX_STEPS} steps")

    def _crash(self, node: _Worker, step: int) -> None:
        self.live.remove(node)
        node.queue.clear()
        crashed = self.scheduler.remove_node(node) if node in self.scheduler.assigned_work else None
        if crashed is not None:
            self.crashed.append(crashed)
        if len(self.crashed) > self.max_restart:
            self.limit_reached = self.shuttingdown = True
            for other in self.scheduler.nodes:
                other.shutdown()
            return
        self.shuttingdown = False
        self.starting.append(step + self.startup_steps)

    def _replacement_ready(self) -> None:
        """xdist's worker_workerready and worker_collectionfinish of a replacement."""
        clone = self._start()
        self._after_event()
        if not self.shuttingdown:
            self.scheduler.add_node_collection(clone, self.collection)
            self.scheduler.schedule()
        self._after_event()

    def _after_event(self) -> None:
        """DSession.loop_once: every worker is told to shut down once the tests are finished."""
        if self.scheduler.tests_finished and not self.shuttingdown:
            self.shuttingdown = True
            for other in self.scheduler.nodes:
                other.shutdown()


def _first(ready: list[_Worker]) -> _Worker:
    return ready[0]


def _last(ready: list[_Worker]) -> _Worker:
    return ready[-1]


def _p3_pet(nodeid: str) -> bool:
    return nodeid.endswith("[p3-pet]")


@pytest.mark.parametrize("startup_steps", [0, 1, 5, 20])
@pytest.mark.parametrize("pick", [_first, _last], ids=["oldest-worker-first", "newest-worker-first"])
def test_a_worker_never_waits_for_ever_on_a_crashed_groups_last_item(
    tmp_path: Path, pick: Any, startup_steps: int
) -> None:
    """Whatever the order the workers run in and however long a replacement takes to start."""
    controller = _Controller(tmp_path, workers=2, max_restart=8, pick=pick, startup_steps=startup_steps)
    stuck = controller.run(_p3_pet)
    assert not stuck, f"{[n.gateway.id for n in stuck]} hold items they can never start"
    assert not controller.live  # every worker finished: the run ends
    assert sorted(controller.ran) == sorted(set(controller.collection) - {"test_wide.py::test_wide[p3-pet]"})


def test_an_item_that_took_two_workers_down_is_not_sent_again(tmp_path: Path) -> None:
    """The rest of its context runs, and xdist's restart limit is not spent on it."""
    controller = _Controller(tmp_path, workers=2, max_restart=8, pick=_first)
    controller.run(_p3_pet)
    assert controller.crashed == ["test_wide.py::test_wide[p3-pet]"] * scheduling.CRASH_ATTEMPTS
    assert not controller.limit_reached
    assert {"test_wide.py::test_wide[p3-colour]", "test_wide.py::test_wide[p3-city]"} <= set(controller.ran)


def test_an_item_that_crashed_once_runs_again(tmp_path: Path) -> None:
    seen: set[str] = set()

    def once(nodeid: str) -> bool:
        first = nodeid.endswith("[p3-pet]") and nodeid not in seen
        seen.add(nodeid)
        return first

    controller = _Controller(tmp_path, workers=2, max_restart=8, pick=_first)
    assert not controller.run(once)
    assert controller.crashed == ["test_wide.py::test_wide[p3-pet]"]
    assert sorted(controller.ran) == sorted(controller.collection)  # the crashed item too, on a fresh worker


def test_each_item_without_a_record_after_crashes_says_why() -> None:
    """What the controller makes error records of (plugin._crash_records)."""
    from pytest_memeval.running.crashes import missing_records

    collected = ["t[a]", "t[b]", "t[c]", "t[d]", "t[e]"]
    recorded = {"t[a]"}
    started = {"t[a]", "t[b]", "t[c]", "t[d]"}  # t[d] was skipped; t[e] never started
    crashed = {"t[b]": 1, "t[c]": 2}
    assert missing_records(collected, recorded, started, crashed, workers_lost=3) == {
        "t[b]": "its xdist worker crashed while running it",
        "t[c]": "it crashed 2 xdist workers and was not run again",
        "t[e]": "never ran: the run ended after 3 xdist workers crashed (xdist's --max-worker-restart)",
    }
    # a run stopped otherwise (interrupted, -x) leaves its items that never started unrecorded
    assert set(missing_records(collected, recorded, started, crashed, workers_lost=0)) == {"t[b]", "t[c]"}
