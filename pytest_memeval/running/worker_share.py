"""--memeval-concurrency is a budget for the whole run, shared by its xdist workers.

Under `-n N` the controller creates the run's slots (llm/run_slots.py: one per call of the
budget) and names their file in each worker's workerinput (`RUN_SLOTS`). A worker that can
open it keeps the whole budget for its thread pool and its gateway, and its gateway holds
one slot per call upstream: the workers that have work use what idle workers do not, and
the run never has more than the budget upstream.

Where the slots cannot be shared (a platform without POSIX record locks, a worker on
another machine than the controller's, which cannot see the file) the budget is split
statically: worker i (gw0, gw1, ...) of N gets `budget // N` calls in flight, one more for
each of the first `budget % N` workers, and at least one (a worker cannot run with none, so
a budget under N is exceeded: N calls). One process (`-n 0`) keeps the whole budget.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

from ..config.llm_settings import LLMSettings
from ..config.settings import Settings
from ..llm.run_slots import SHARES_SLOTS, SLOTS_FILE, create_run_slots

#: the workerinput key naming the directory of the run's shared slots
RUN_SLOTS: Final = "memeval_run_slots"


def worker_share(budget: int, workers: int, index: int) -> int:
    """The calls in flight of worker `index` (0-based) of `workers`, split statically."""
    if workers <= 1:
        return budget
    return max(1, budget // workers + (1 if index < budget % workers else 0))


def run_slots_for(settings: Settings) -> Path | None:
    """On the controller of a distributed run: the directory of the run's slots, created
    when the run calls an LLM and the platform has record locks (None otherwise). The
    controller removes it when the run ends (`remove_run_slots`)."""
    if not SHARES_SLOTS or settings.gateway is None:
        return None
    return create_run_slots(settings.gateway.concurrency)


def shared_settings(settings: Settings, workerinput: Mapping[str, Any] | None) -> Settings:
    """The run's settings as this process uses them: on an xdist worker, the whole budget
    and the run's slots, or its static share where it cannot reach them; unchanged
    elsewhere."""
    if workerinput is None or "workercount" not in workerinput:
        return settings
    slots = _reachable_slots(workerinput.get(RUN_SLOTS))
    if slots is not None and settings.gateway is not None:
        return replace(settings, gateway=replace(settings.gateway, run_slots=slots))
    workers = int(workerinput["workercount"])
    index = int(str(workerinput["workerid"]).removeprefix("gw") or 0)

    def share(llm: LLMSettings | None) -> LLMSettings | None:
        return None if llm is None else replace(llm, concurrency=worker_share(llm.concurrency, workers, index))

    return replace(settings, llm=share(settings.llm), gateway=share(settings.gateway))


def _reachable_slots(directory: str | None) -> Path | None:
    """The slots' file, when this platform shares slots and the file is on this machine."""
    if not SHARES_SLOTS or directory is None:
        return None
    path = Path(directory) / SLOTS_FILE
    return path if path.is_file() else None
