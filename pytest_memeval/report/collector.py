"""On the controller: gather the per-item records that workers ship as plain JSON."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import pytest

RECORD_PROPERTY = "memeval"
SNAPSHOT_CHANGED = "memeval_snapshot_changed"


@dataclass(frozen=True)
class RunKey:
    suite: str
    memsystem: str
    responder: str
    suite_ref: str
    k: int


class RecordCollector:
    """A pytest plugin object; records arrive once per item, with its teardown report."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        #: items whose verdict differs from its syrupy snapshot (--memeval-snapshot)
        self.snapshot_changes: list[str] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "teardown":
            return
        for name, value in report.user_properties:
            if name == RECORD_PROPERTY:
                self.records.append(json.loads(value))
            elif name == SNAPSHOT_CHANGED:
                self.snapshot_changes.append(value)

    def by_run(self) -> dict[RunKey, list[dict[str, Any]]]:
        """Records grouped per (suite, system, responder), each group sorted by item id.

        Sorting makes every aggregate independent of the order in which xdist workers
        finished, so -n 2 and -n 0 give the same numbers to the last digit.
        """
        groups: dict[RunKey, list[dict[str, Any]]] = defaultdict(list)
        for record in self.records:
            groups[RunKey(record["suite"], record["memsystem"], record["responder"], record["suite_ref"], record["k"])].append(record)
        return {key: sorted(groups[key], key=lambda r: r["id"]) for key in sorted(groups, key=_order)}


def _order(key: RunKey) -> tuple[str, str, str, int]:
    return (key.suite, key.memsystem, key.responder, key.k)
