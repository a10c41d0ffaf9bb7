"""The controller's records on disk: each record's wire form appended to a file as it arrives,
read back one at a time when the reports are written.

A run of 34,560 items shipped 150 MB of records; held as typed values they took 240 MB of
the controller's memory, and pytest kept every wire form again on its reports. Now the
controller keeps each record's `statistics_view` (what the summaries, comparisons, gates
and counts read) and where its whole form lies in the spool; the JSON report, the HTML
page and everything else that reads the records' texts stream them from the spool, in
the report's order (`SpooledRecords`).

The spool is a file of its own in a private temporary directory, removed with the
collector: the run's journal (campaigns/journal.py) may be absent (--memeval-report=none),
closed half-way (a disk that refused a write) or hold records a resumed run replaced.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar, cast, overload

from msgspec.structs import replace

from .records import Record
from .schema import decode

T = TypeVar("T")

#: the texts a record keeps for a reader, which no statistic reads: not kept in memory
READING_FIELDS = ("memories", "question", "judge_reason", "raw")


class StatisticsViews:
    """Each record's statistics view: the record without its texts for reading
    (READING_FIELDS), what the controller keeps in memory per item for the summaries,
    comparisons, gates and counts; equal values of the views are one object (the run key,
    the names of contexts, clusters, tasks and strata, the strata themselves, a small
    detail), as a report's 34,560 records repeat a few thousand of them."""

    def __init__(self) -> None:
        self._known: dict[Any, Any] = {}

    def of(self, record: Record) -> Record:
        return replace(
            record,
            memories=(),
            question="",
            judge_reason="",
            raw="",
            key=self._one(record.key),
            suite_ref=self._one(record.suite_ref),
            context=self._one(record.context),
            cluster=self._one(record.cluster),
            task=self._one(record.task),
            stage=self._one(record.stage),
            answer=self._one(record.answer),
            gold=self._one(record.gold),
            strata=self._one_mapping(record.strata),
            detail=self._one_mapping(record.detail),
            answer_detail=self._one_mapping(record.answer_detail),
        )

    def _one(self, value: T) -> T:
        """The first value met so far of `value`'s type and equal to it (`value` itself if
        none, or if it cannot be hashed): 1, 1.0 and True stay apart."""
        try:
            return cast(T, self._known.setdefault((type(value), value), value))
        except TypeError:
            return value

    def _one_mapping(self, value: Mapping[str, Any]) -> Mapping[str, Any]:
        """`_one` of a mapping of JSON values, compared by content and types."""
        try:
            return cast(Mapping[str, Any], self._known.setdefault(_frozen(value), value))
        except TypeError:  # a value that cannot be hashed (not JSON)
            return value


def _frozen(value: Any) -> Any:
    """A hashable stand-in for a JSON value, equal only for the same content and types.
    Raises TypeError for a value that cannot be hashed."""
    if isinstance(value, Mapping):
        return (Mapping, tuple((name, _frozen(item)) for name, item in value.items()))
    if isinstance(value, (list, tuple)):
        return (type(value), tuple(_frozen(item) for item in value))
    hash(value)
    return (type(value), value)


class RecordSpool:
    """An append-only file of records in their wire form, one per line; each append says
    where its record lies (an index into the spool). The file is made at the first append."""

    def __init__(self) -> None:
        self._directory: Path | None = None
        self._file: Path | None = None
        self._fd: int | None = None
        self._size = 0
        #: byte offset and length of each record appended
        self._offsets = array("q")
        self._lengths = array("q")

    def append(self, wire: str) -> int:
        """Write one record's wire form (`record_to_wire`); its index in the spool."""
        if self._fd is None:
            self._directory = Path(tempfile.mkdtemp(prefix="memeval-records-"))
            self._file = self._directory / "records.jsonl"
            self._fd = os.open(self._file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        data = (wire + "\n").encode()
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]
        self._offsets.append(self._size)
        self._lengths.append(len(data) - 1)
        self._size += len(data)
        return len(self._offsets) - 1

    def __len__(self) -> int:
        return len(self._offsets)

    def read(self, positions: Iterable[int]) -> Iterator[Record]:
        """The records at `positions`, in that order, one at a time."""
        if self._file is None:
            return
        with open(self._file, "rb") as handle:
            for position in positions:
                handle.seek(self._offsets[position])
                yield decode(handle.read(self._lengths[position]), Record, "record")

    def remove(self) -> None:
        """Close and delete the file (idempotent); a spool removed reads nothing."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._directory is not None:
            shutil.rmtree(self._directory, ignore_errors=True)
            self._directory = self._file = None


class SpooledRecords(Sequence[Record]):
    """Records of a spool in a given order, read from disk each time they are iterated."""

    def __init__(self, spool: RecordSpool, positions: Sequence[int]) -> None:
        self._spool = spool
        self._positions = array("q", positions)

    def __len__(self) -> int:
        return len(self._positions)

    @overload
    def __getitem__(self, index: int) -> Record: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Record]: ...

    def __getitem__(self, index: int | slice) -> Record | Sequence[Record]:
        if isinstance(index, slice):
            return SpooledRecords(self._spool, self._positions[index])
        return next(self._spool.read([self._positions[index]]))

    def __iter__(self) -> Iterator[Record]:
        return self._spool.read(self._positions)

    def __repr__(self) -> str:
        return f"SpooledRecords({len(self)} records)"
