"""The run's budget of LLM calls in flight, shared by its processes while it runs.

Under xdist, the controller creates one file of `budget` bytes (`create_run_slots`) and
hands its path to the workers on its machine; each worker's gateway opens it once
(`RunSlots(path)`) and holds one slot for each call it has upstream. Slot i is a POSIX
record lock on byte i of the file (`fcntl.lockf`, exclusive, never blocking), so at most
`budget` calls are upstream across all the run's processes, whichever worker has the work,
and a worker that dies gives its slots back: the kernel drops a process's locks with it.

A call that finds every slot held waits in short bounded sleeps (one thread of a process
polls at a time; a slot released in the same process wakes it at once), always within the
time it is given; then `acquire` answers None and the gateway answers 429 as for its own
limit (adaptive.py).

POSIX record locks belong to the process, not to the handle: one `RunSlots` per process and
file (the gateway's), which keeps its own account of the slots it holds; closing any other
descriptor of the file in that process would drop its locks. Where record locks do not
exist (Windows: `SHARES_SLOTS` is False) the budget is split statically instead
(running/worker_share.py).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

#: whether this platform shares a budget at run time (POSIX record locks)
SHARES_SLOTS: Final = sys.platform != "win32"
#: the file of the slots inside the run's directory
SLOTS_FILE: Final = "slots"
#: how long a waiting call sleeps before it looks for a slot another process released
POLL_S: Final = 0.01

if sys.platform != "win32":
    import fcntl


def create_run_slots(budget: int) -> Path:
    """A run-private directory holding the file of `budget` slots; remove it with
    `remove_run_slots` when the run ends."""
    if budget < 1:
        raise ValueError(f"a run's budget of calls in flight is at least 1, not {budget}")
    directory = Path(tempfile.mkdtemp(prefix="memeval-slots-"))
    (directory / SLOTS_FILE).write_bytes(b"\0" * budget)
    return directory


def remove_run_slots(directory: Path | str) -> None:
    shutil.rmtree(directory, ignore_errors=True)


class RunSlots:
    """This process's handle on the run's slots; thread-safe."""

    def __init__(self, path: Path, *, poll_s: float = POLL_S, clock: Callable[[], float] = time.monotonic) -> None:
        if not SHARES_SLOTS:
            raise RuntimeError("shared slots need POSIX record locks (fcntl), which this platform lacks")
        self._fd: int | None = os.open(path, os.O_RDWR)
        #: the run's budget: the slots of every process together
        self.count = os.fstat(self._fd).st_size
        if self.count < 1:
            os.close(self._fd)
            raise ValueError(f"{path} holds no slots")
        self._poll_s = poll_s
        self._clock = clock
        self._held: set[int] = set()
        self._next = os.getpid() % self.count  # processes start their search at different slots
        self._changed = threading.Condition()
        self._turn = threading.Lock()

    @property
    def held(self) -> int:
        """The slots this process holds."""
        with self._changed:
            return len(self._held)

    def acquire(self, timeout_s: float) -> int | None:
        """A slot's number, or None when no slot came free within `timeout_s`."""
        deadline = self._clock() + timeout_s
        if not self._turn.acquire(timeout=max(timeout_s, 0.0)):
            return None
        try:
            with self._changed:
                while True:
                    slot = self._take()
                    if slot is not None:
                        return slot
                    remaining = deadline - self._clock()
                    if remaining <= 0:
                        return None
                    self._changed.wait(min(self._poll_s, remaining))
        finally:
            self._turn.release()

    def release(self, slot: int) -> None:
        with self._changed:
            if slot not in self._held or self._fd is None:
                return
            fcntl.lockf(self._fd, fcntl.LOCK_UN, 1, slot, os.SEEK_SET)
            self._held.discard(slot)
            self._changed.notify()

    def close(self) -> None:
        """Give back every slot held (closing the file drops this process's locks)."""
        with self._changed:
            fd, self._fd = self._fd, None
            self._held.clear()
            if fd is not None:
                os.close(fd)
            self._changed.notify_all()

    def _take(self) -> int | None:
        """A slot no process holds, now locked by this one (under `_changed`)."""
        if self._fd is None:
            return None
        for offset in range(self.count):
            slot = (self._next + offset) % self.count
            if slot in self._held:
                continue  # locking it again would succeed: the lock is this process's
            try:
                fcntl.lockf(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, slot, os.SEEK_SET)
            except OSError:  # held by another process (EACCES or EAGAIN)
                continue
            self._held.add(slot)
            self._next = (slot + 1) % self.count
            return slot
        return None
