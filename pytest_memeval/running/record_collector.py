"""On the controller: gather the per-item records that workers ship, and everything that
went wrong outside an item (a memory system failing in close, a crashed worker).

Each record goes to the collector's spool on disk as it arrives (results/record_spool.py);
the collector keeps its `statistics_view` and where it lies, and takes the record's wire
form off the report, which pytest's terminal reporter keeps until the session ends."""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any

import pytest
from msgspec import NODEFAULT
from msgspec.structs import fields

from ..results.record_spool import RecordSpool, SpooledRecords, StatisticsViews
from ..results.records import Record, RunKey
from ..results.schema import decode, to_builtins
from .crashes import crash_message, is_crash

RECORD_PROPERTY = "memeval"
SNAPSHOT_CHANGED = "memeval_snapshot_changed"
#: what a worker puts in its workeroutput: failures not tied to one item
SESSION_ERRORS = "memeval_session_errors"


class RecordCollector:
    """A pytest plugin object; each item's record arrives once, with its teardown report."""

    def __init__(self) -> None:
        #: each record's statistics view (`StatisticsViews`), in the order they arrived (the whole records are
        #: in the spool)
        self.records: list[Record] = []
        #: items whose verdict differs from its syrupy snapshot (--memeval-snapshot)
        self.snapshot_changes: list[str] = []
        self.session_errors: list[str] = []
        #: node ids whose xdist worker died while running them, and the worker (see `crashes`)
        self.crashes: list[tuple[str, str]] = []
        #: xdist workers that went down with an error (a crash, in an item or between items)
        self.workers_lost = 0
        #: node ids whose record arrived
        self.recorded: set[str] = set()
        #: node ids of which any report arrived (the item started: it ran, or was skipped)
        self.started: set[str] = set()
        #: records of an earlier run this one resumes; a record of the same item received now wins
        self.earlier: tuple[Record, ...] = ()
        #: told about each record and its wire form as it arrives (the campaign's journal)
        self.listener: Callable[[Record, str], None] | None = None
        #: wire form -> the record it was made from, for a record made in this very process
        #: (`-n 0`): its report's wire form need not be parsed back (`hand_over`)
        self._handed: dict[str, Record] = {}
        self.spool = RecordSpool()
        self._views = StatisticsViews()
        #: id() of each record kept in `records` (and of each earlier one kept, `by_run`) ->
        #: where its whole form lies in the spool
        self._positions: dict[int, int] = {}
        self._kept_earlier: list[Record] | None = None
        #: node id -> the keywords its setup report brought (`_share_keywords`)
        self._keywords: dict[str, Any] = {}

    def hand_over(self, wire: str, record: Record) -> None:
        """`record`, whose `record_to_wire` form is `wire` (the strict JSON check ran when it
        was made), is about to arrive on a report of this process: take it as it is."""
        self._handed[wire] = record

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Last of the plugins (they have seen the report whole): the record is taken into
        the spool and off the report."""
        self.started.add(report.nodeid)
        if is_crash(report):
            node = getattr(report, "node", None)
            self.crashes.append((report.nodeid, str(getattr(getattr(node, "gateway", None), "id", "?"))))
        self._share_keywords(report)
        if report.when != "teardown":
            return
        for name, value in report.user_properties:
            if name == RECORD_PROPERTY:
                wire = str(value)
                handed = self._handed.pop(wire, None)
                record = record_from_wire(wire) if handed is None else handed
                self.add(record, wire)
                self.recorded.add(report.nodeid)
                if self.listener is not None:
                    self.listener(record, wire)
            elif name == SNAPSHOT_CHANGED:
                self.snapshot_changes.append(str(value))
        report.user_properties = [(name, value) for name, value in report.user_properties if name != RECORD_PROPERTY]

    def add(self, record: Record, wire: str | None = None) -> None:
        """Keep `record` (its `record_to_wire` form `wire`, made when not given): spooled,
        and its statistics view in `records`."""
        self.records.append(self._spooled(record, wire))

    def _spooled(self, record: Record, wire: str | None = None) -> Record:
        """`record` written to the spool; its statistics view, which knows where."""
        kept = self._views.of(record)
        self._positions[id(kept)] = self.spool.append(record_to_wire(record) if wire is None else wire)
        return kept

    def _share_keywords(self, report: pytest.TestReport) -> None:
        """The item's three reports share one dict of keywords, its names interned: every
        report carries the item's markers and names (18 for a multisource item), which
        under xdist arrive as new strings each time, and pytest's terminal reporter keeps
        every report until the session ends."""
        keywords = report.keywords
        shared = self._keywords.pop(report.nodeid, None) if report.when == "teardown" else None
        shared = shared if shared is not None else self._keywords.get(report.nodeid)
        if shared is not None and shared == keywords:
            report.keywords = shared
        elif isinstance(keywords, dict):
            report.keywords = {sys.intern(name) if isinstance(name, str) else name: v for name, v in keywords.items()}
            if report.when != "teardown":
                self._keywords[report.nodeid] = report.keywords

    def full_records(self, records: Sequence[Record]) -> Sequence[Record]:
        """The whole records of `records` (statistics views this collector kept, as `by_run`
        returns them), in that order, read from the spool as they are iterated."""
        return SpooledRecords(self.spool, [self._positions[id(record)] for record in records])

    def pytest_unconfigure(self) -> None:
        self.spool.remove()

    def crash_errors(self) -> list[str]:
        """One session error per crash, saying whether its item ran again."""
        return [crash_message(nodeid, worker, nodeid in self.recorded) for nodeid, worker in self.crashes]

    def unrecorded_crashes(self) -> dict[str, int]:
        """Node ids that crashed and never sent a record -> how many workers they took down."""
        return dict(Counter(nodeid for nodeid, _ in self.crashes if nodeid not in self.recorded))

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """xdist: a worker finished (or died); collect its session errors."""
        output = getattr(node, "workeroutput", None) or {}
        self.session_errors.extend(output.get(SESSION_ERRORS, ()))
        if error is not None:
            self.workers_lost += 1

    def by_run(self) -> dict[RunKey, list[Record]]:
        """Records (statistics views) grouped per run key, each group sorted by item id; the
        earlier ones kept are spooled here, once.

        Sorting makes every aggregate independent of the order in which xdist workers
        finished, so -n 2 and -n 0 give the same numbers to the last digit.
        """
        return group_by_run([*self.kept_earlier(), *self.records])

    def kept_earlier(self) -> list[Record]:
        """The statistics views of the earlier records that no record of this run replaced
        (spooled at the first call)."""
        if self._kept_earlier is None:
            fresh = {record.item_key for record in self.records}
            kept = [r for r in self.earlier if r.item_key not in fresh]
            self._kept_earlier = [self._spooled(record) for record in kept]
        return self._kept_earlier


def group_by_run(records: Iterable[Record]) -> dict[RunKey, list[Record]]:
    """Records grouped per run key (keys in order), each group sorted by item id."""
    groups: dict[RunKey, list[Record]] = defaultdict(list)
    for record in records:
        groups[record.key].append(record)
    return {key: sorted(groups[key], key=lambda r: r.id) for key in sorted(groups)}


def record_to_wire(record: Record) -> str:
    """The record as the teardown report carries it: its JSON form without the fields that
    hold their default value, as compact strict JSON (whatever fields Record gains travel
    too). Raises TypeError or ValueError for a value JSON cannot hold (NaN included)."""
    defaults = _record_defaults()
    data = {
        name: value for name, value in to_builtins(record).items() if name not in defaults or value != defaults[name]
    }
    return json.dumps(data, separators=(",", ":"), allow_nan=False)


def record_from_wire(text: str) -> Record:
    return decode(text, Record, "record")


@lru_cache(maxsize=1)
def _record_defaults() -> dict[str, Any]:
    """Each optional field of Record and its default, as `to_builtins` writes it."""
    bare = to_builtins(Record("", RunKey("", ""), "", "", "", "", "scored"))
    optional = (f.name for f in fields(Record) if f.default is not NODEFAULT or f.default_factory is not NODEFAULT)
    return {name: bare[name] for name in optional}
