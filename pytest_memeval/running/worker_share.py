"""--memeval-concurrency is a budget for the whole run, split between xdist workers.

Under `-n N` worker i (gw0, gw1, ...) of N gets `budget // N` calls in flight, one more
for each of the first `budget % N` workers, and at least one (a worker cannot run with
none, so a budget under N is exceeded: N calls). One process (`-n 0`) keeps the whole
budget. Each process's gateway then keeps at most its share upstream (llm/adaptive.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..config.settings import Settings
from ..llm.settings import LLMSettings


def worker_share(budget: int, workers: int, index: int) -> int:
    """The calls in flight of worker `index` (0-based) of `workers`."""
    if workers <= 1:
        return budget
    return max(1, budget // workers + (1 if index < budget % workers else 0))


def shared_settings(settings: Settings, workerinput: Mapping[str, Any] | None) -> Settings:
    """The run's settings as this process uses them: on an xdist worker, with its share of
    the concurrency budget; unchanged elsewhere."""
    if workerinput is None or "workercount" not in workerinput:
        return settings
    workers = int(workerinput["workercount"])
    index = int(str(workerinput["workerid"]).removeprefix("gw") or 0)

    def share(llm: LLMSettings | None) -> LLMSettings | None:
        return None if llm is None else replace(llm, concurrency=worker_share(llm.concurrency, workers, index))

    return replace(settings, llm=share(settings.llm), gateway=share(settings.gateway))
