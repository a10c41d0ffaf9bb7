"""The journal of a run: every record appended, as it reaches the controller, beside the report.

    run.json              the report, written when the run ends
    run.journal.jsonl     one JSON object per line, written as it comes (fsynced at most
                          SYNC_EVERY_S apart, and when the journal is closed):
        {"journal": "memeval-journal/1", "fingerprint": {...}, "shard": "I/N" or null, "pid": ..., "host": ...}
        {"fingerprint": {...}}      the run's fingerprint, again each time a suite joins it
        {"record": {...}}           one record (its compact wire form)

A run killed at any point (SIGKILL of the controller or a worker, SIGINT, a CI time limit)
leaves every record it received (a line written is the kernel's once `write` returns; the
fsync guards against the machine itself stopping, which loses at most the records of the
last SYNC_EVERY_S), and `--memeval-resume` continues it: the items whose
record the journal holds are not run again (an item that ended in an error is, since most
errors of an interrupted run are its interruption: a rate limit, a timeout), and the
report covers them all. A run that ends normally removes its journal once the report is
written. The journal is locked (flock) while a run holds it.

Every refusal is one line and changes nothing: an existing journal without
--memeval-resume, a journal another live run holds, one of another protocol or another
--memeval-shard, a record of an item the run does not have, a line that is not JSON
before the last. Only a torn last line (a write cut by SIGKILL) is set aside,
into `<journal>.torn`, and its item runs again.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from ..errors import ConfigError
from ..files import json_input
from ..files.user_files import open_regular, read_bytes
from ..results.fingerprint import Fingerprint, FingerprintError
from ..results.records import ItemKey, Record, SchemaError
from ..running.record_collector import record_to_wire

FORMAT = "memeval-journal/1"
RESUME = "--memeval-resume"
#: the longest records stay written but not fsynced: one fsync per record cost 3.5-4 ms on
#: a virtual disk, more than the plugin's CPU per item of an offline run
SYNC_EVERY_S: Final = 1.0


@dataclass(frozen=True)
class Resumed:
    """What a journal held: its last fingerprint and the latest record of each item."""

    fingerprint: Fingerprint
    records: tuple[Record, ...]
    #: one line when a torn last line was set aside, else ""
    torn: str = ""
    #: the --memeval-shard of the run that wrote it (None: unsharded)
    shard: str | None = None
    #: the line of each item's latest record
    lines: Mapping[ItemKey, int] = field(default_factory=dict)

    def done(self) -> frozenset[ItemKey]:
        """Items not to run again: those with a scored or invalid record."""
        return frozenset(r.item_key for r in self.records if r.status != "error")


class Journal:
    """An open, locked journal; each append writes one line, fsynced at most SYNC_EVERY_S
    later (the header and the fingerprints at once)."""

    def __init__(self, path: Path, fd: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.path = path
        self._fd: int | None = fd
        self._clock = clock
        self._synced_at = clock()

    @classmethod
    def start(cls, path: Path, fingerprint: Fingerprint, shard: str | None = None) -> Journal:
        """A new journal of a run (of its shard, `I/N`); an existing one is refused (one
        line) and left as it is."""
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            fd = _open_locked(path, os.O_RDONLY)
            os.close(fd)
            held = sum(1 for line in _lines(path) if line.startswith('{"record"'))
            raise ConfigError(
                f"{path} holds {held} records of an unfinished run: pass {RESUME} to continue it, "
                "or remove the file to start over"
            ) from None
        except OSError as exc:
            raise ConfigError(f"cannot create the journal {path}: {exc.strerror or exc}") from None
        _lock(fd, path)
        journal = cls(path, fd)
        header = {"journal": FORMAT, "fingerprint": fingerprint.to_json(), "shard": shard, **_holder()}
        journal._write_json(header, sync=True)
        return journal

    @classmethod
    def resume(cls, path: Path, check: Any) -> tuple[Journal, Resumed]:
        """Open the journal at `path` for appending after reading it. `check(resumed)`
        raises a ConfigError when its fingerprint is not this run's; nothing is changed
        before it passed."""
        fd = _open_locked(path, os.O_RDWR | os.O_APPEND)
        try:
            resumed, good_bytes = _read(path)
            check(resumed)
            if resumed.torn:
                _set_aside(path, good_bytes)
                os.ftruncate(fd, good_bytes)
            os.lseek(fd, 0, os.SEEK_END)
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd), resumed

    def append_record(self, record: Record, wire: str | None = None) -> None:
        """One record's line; `wire`: its `record_to_wire` form, when made already."""
        self._write(f'{{"record":{record_to_wire(record) if wire is None else wire}}}\n', sync=False)

    def append_fingerprint(self, fingerprint: Fingerprint) -> None:
        self._write_json({"fingerprint": fingerprint.to_json()}, sync=True)

    def _write_json(self, entry: dict[str, Any], *, sync: bool) -> None:
        self._write(json.dumps(entry, separators=(",", ":"), sort_keys=True) + "\n", sync=sync)

    def _write(self, line: str, *, sync: bool) -> None:
        if self._fd is None:
            raise RuntimeError(f"journal {self.path} is closed")
        view = memoryview(line.encode())
        while view:
            view = view[os.write(self._fd, view) :]
        if sync or self._clock() - self._synced_at >= SYNC_EVERY_S:
            self._sync()

    def _sync(self) -> None:
        if self._fd is not None:
            os.fsync(self._fd)
            self._synced_at = self._clock()

    def close(self) -> None:
        """Sync and release the lock (the file stays: a later run resumes it)."""
        if self._fd is not None:
            self._sync()
            os.close(self._fd)
            self._fd = None

    def remove(self) -> None:
        """The run ended and its report holds every record: the journal has served."""
        self.close()
        self.path.unlink(missing_ok=True)


def _open_locked(path: Path, flags: int) -> int:
    try:
        fd = open_regular(path, flags)
    except OSError as exc:
        raise ConfigError(f"cannot open the journal {path}: {exc.strerror or exc}") from None
    try:
        _lock(fd, path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _lock(fd: int, path: Path) -> None:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _header_holder(path)
        raise ConfigError(f"{path} is held by another live run{holder}: wait for it, or name another report") from None


def _holder() -> dict[str, Any]:
    return {"pid": os.getpid(), "host": socket.gethostname()}


def _header_holder(path: Path) -> str:
    try:
        header = json_input.loads(next(_lines(path)))
        return f" (pid {int(header['pid'])} on {header['host']})"
    except (StopIteration, ValueError, KeyError, TypeError, OSError):
        return ""


def _lines(path: Path) -> Iterator[str]:
    with open(path, encoding="utf-8", errors="replace") as handle:
        yield from handle


def _read(path: Path) -> tuple[Resumed, int]:
    """The journal's content and the length of its complete lines. Raises a ConfigError
    (one line, naming the line) for anything but a torn last line."""
    data = read_bytes(path)
    lines = data.split(b"\n")
    tail = lines.pop()  # after the last newline: b"" when the last write was whole
    torn = ""
    if tail:
        torn = f"{path}: its last line was cut short ({len(tail)} bytes, set aside in {path.name}.torn); its item runs again"
    fingerprint: Fingerprint | None = None
    records: dict[ItemKey, Record] = {}
    record_lines: dict[ItemKey, int] = {}
    shard = None
    for number, line in enumerate(lines, start=1):
        where = f"{path}: line {number}"
        try:
            entry = json_input.loads(line)
        except json_input.UnreadableJSON as exc:  # nested too deeply, or a NaN
            raise ConfigError(
                f"{where}, column {exc.colno}: {exc.msg}; the journal is damaged (remove it to start over)"
            ) from None
        except ValueError:
            raise ConfigError(f"{where} is not JSON; the journal is damaged (remove it to start over)") from None
        if not isinstance(entry, dict):
            raise ConfigError(f"{where} is not a journal entry")
        if number == 1 and entry.get("journal") != FORMAT:
            raise ConfigError(f"{path} is not a {FORMAT} journal (first line: {line[:60]!r})")
        if number == 1:
            shard = entry.get("shard")
            if shard is not None and not isinstance(shard, str):
                raise ConfigError(f"{where}: shard {shard!r} is not I/N")
        try:
            if "fingerprint" in entry:
                fingerprint = Fingerprint.from_json(entry["fingerprint"])
            elif "record" in entry:
                record = Record.from_json(entry["record"])
                records[record.item_key] = record
                record_lines[record.item_key] = number
            else:
                raise ConfigError(f"{where} is neither a record nor a fingerprint")
        except (SchemaError, FingerprintError) as exc:
            raise ConfigError(f"{where}: {exc}") from None
    if fingerprint is None:
        raise ConfigError(f"{path} has no header line; remove it to start over")
    return Resumed(fingerprint, tuple(records.values()), torn, shard, record_lines), len(data) - len(tail)


def _set_aside(path: Path, good_bytes: int) -> None:
    """Keep the torn bytes beside the journal before they are cut from it."""
    with open(path, "rb") as handle:
        handle.seek(good_bytes)
        torn = handle.read()
    aside = path.with_name(f"{path.name}.torn")
    try:
        fd = open_regular(aside, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    except OSError as exc:
        raise ConfigError(f"cannot set the torn last line aside in {aside}: {exc.strerror or exc}") from None
    with open(fd, "ab") as out:
        out.write(torn + b"\n")
        out.flush()
        os.fsync(out.fileno())
