"""Items whose xdist worker died while running them.

A worker that dies (a segfault, `os._exit` in an adapter, the OOM killer) sends nothing
more: the item it was running never ships its record. xdist then reports a failed test
with `when == "???"` and hands the worker's unfinished items to a fresh worker; with the
plugin's scheduler (`scheduling`) the crashed item is among them and runs again.

So that the crash is never lost, the controller counts every crash as a session error,
and an item that crashed and never sent a record afterwards gets an error record saying
so. An item re-run after its crash keeps the record of the re-run; its crash stays a
session error, which fails the run under --memeval-max-errors like any error. When the
run ended because its workers died (xdist's --max-worker-restart reached, or none left),
each item the workers collected that never ran gets an error record too: those items
were selected, and are missing only because of the crashes. To build
an error record the controller needs to know what the node id stands for (the suite, the
item, the memory system, the depth, the repeat); the controller never collects, so the
first worker to collect writes that table to a directory the controller named. Remote
workers (`--tx ssh=...`) write on their own machine: there, a crash is a session error only.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pytest

from .collection import ITEM_ARG, K_ARG, REPEAT_ARG, SYSTEM_ARG

#: the workerinput key naming the directory of the table
ITEMS_DIR = "memeval_items_dir"
_TABLE = "items.json"
#: a row of the table: suite, item, memory system, k, repeat
_Row = tuple[str, str, str, int, int]
#: read as tuples (the controller reads 34,560 rows at the end of a full multisource run,
#: beside everything else it holds then)
_TABLE_DECODER = msgspec.json.Decoder(dict[str, _Row])


@dataclass(frozen=True, slots=True)
class ItemIdentity:
    """What a memeval test's node id stands for: enough to make its error record."""

    suite_ref: str
    item_id: str
    memsystem: str
    k: int
    repeat: int


def is_crash(report: Any) -> bool:
    """xdist reports the item a dead worker was running with a report of its own making."""
    text = str(getattr(report, "longrepr", ""))
    return report.failed and (report.when == "???" or ("worker" in text and "crashed while running" in text))


def make_items_dir() -> str:
    return tempfile.mkdtemp(prefix="memeval-items-")


def remove_items_dir(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)


def identity_of(item: pytest.Item, default_system: str, default_k: int) -> ItemIdentity | None:
    marker = item.get_closest_marker("memeval")
    callspec = getattr(item, "callspec", None)
    if marker is None or not marker.args or callspec is None or ITEM_ARG not in callspec.params:
        return None
    params = callspec.params
    return ItemIdentity(
        marker.args[0],
        params[ITEM_ARG],
        params.get(SYSTEM_ARG, default_system),
        params.get(K_ARG, default_k),
        params.get(REPEAT_ARG, 0),
    )


def write_items(directory: str, items: Sequence[pytest.Item], default_system: str, default_k: int) -> None:
    """On a worker, once collected: node id -> identity, unless another worker wrote it."""
    target = Path(directory) / _TABLE
    if target.exists():
        return
    table: dict[str, _Row] = {
        item.nodeid: (identity.suite_ref, identity.item_id, identity.memsystem, identity.k, identity.repeat)
        for item in items
        if (identity := identity_of(item, default_system, default_k)) is not None
    }
    partial = target.with_name(f"{_TABLE}.{os.getpid()}.part")
    try:
        partial.write_bytes(msgspec.json.encode(table))
        partial.replace(target)  # the controller never reads half a table
    except OSError:  # a remote worker: the directory is on the controller's machine
        partial.unlink(missing_ok=True)


def read_items(directory: str) -> Mapping[str, ItemIdentity]:
    """The table a worker wrote (empty when none could)."""
    try:
        table = _TABLE_DECODER.decode((Path(directory) / _TABLE).read_bytes())
    except (OSError, msgspec.MsgspecError):
        return {}
    return {nodeid: ItemIdentity(*fields) for nodeid, fields in table.items()}


def missing_records(
    collected: Sequence[str],
    recorded: Collection[str],
    started: Collection[str],
    crashed: Mapping[str, int],
    workers_lost: int,
) -> dict[str, str]:
    """Node id -> why it has no record, for each collected item without one: those that
    crashed their worker (`crashed`: how many workers each took down) and, when the run
    ended because its workers died (`workers_lost` > 0; 0 for a run stopped otherwise:
    interrupted, -x), every item that never started (an item that started and has no
    record was skipped)."""
    reasons = {}
    for nodeid in collected:
        if nodeid in recorded:
            continue
        times = crashed.get(nodeid, 0)
        if times:
            reasons[nodeid] = (
                "its xdist worker crashed while running it"
                if times == 1
                else f"it crashed {times} xdist workers and was not run again"
            )
        elif workers_lost and nodeid not in started:
            crashes = f"{workers_lost} xdist worker{'s' if workers_lost != 1 else ''} crashed"
            reasons[nodeid] = f"never ran: the run ended after {crashes} (xdist's --max-worker-restart)"
    return reasons


def crash_message(nodeid: str, worker: str, rerun: bool) -> str:
    """The session error of one crash."""
    outcome = "the item ran again on another worker" if rerun else "the item has an error record"
    return f"xdist worker {worker} crashed while running {nodeid} ({outcome})"
