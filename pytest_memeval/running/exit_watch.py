"""Ending the process when threads an adapter left behind would keep it alive for ever.

A call that hangs past --memeval-adapter-timeout retires its memory system; it runs on the
guard's daemon thread, which never holds the process. But an adapter may start threads of
its own, and Python joins every non-daemon thread before the interpreter exits: one that
never ends keeps pytest alive after its summary, reports and exit status are all decided.

At the end of the session the plugin notes the non-daemon threads started since it was
configured that are still running. If there are any, a daemon watchdog waits until the
interpreter has begun to exit (the main thread has stopped), gives the threads
`GRACE_S` seconds to finish, then names those still running on stderr and ends the process
with the session's exit status (`os._exit`: all that is left to do is join those threads).
When they finish in time, or the interpreter does not exit (pytest run in-process), the
watchdog does nothing.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Collection

from ..printable import printable

#: seconds the threads get to finish once the interpreter is exiting
GRACE_S = 3.0
_POLL_S = 0.05


def thread_idents() -> frozenset[int]:
    """The threads running now (taken when the plugin is configured)."""
    return frozenset(t.ident for t in threading.enumerate() if t.ident is not None)


def started_since(before: Collection[int]) -> list[threading.Thread]:
    """Non-daemon threads started after `before` was taken and still running."""
    current = threading.current_thread()
    return [
        t for t in threading.enumerate() if not t.daemon and t.is_alive() and t is not current and t.ident not in before
    ]


def describe_threads(threads: Collection[threading.Thread]) -> str:
    return printable(", ".join(repr(t.name) for t in threads))


def watch_exit(before: Collection[int], exit_status: int, grace_s: float = GRACE_S) -> bool:
    """Arm the watchdog when threads started since `before` are still running; True if armed."""
    if not started_since(before):
        return False
    watchdog = threading.Thread(
        target=_exit_past_threads, args=(before, int(exit_status), grace_s), name="memeval-exit-watch", daemon=True
    )
    watchdog.start()
    return True


def _exit_past_threads(before: Collection[int], exit_status: int, grace_s: float) -> None:
    main = threading.main_thread()
    while main.is_alive():
        if not started_since(before):
            return
        time.sleep(_POLL_S)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        if not started_since(before):
            return
        time.sleep(_POLL_S)
    left = started_since(before)
    if not left:
        return
    try:
        sys.stdout.flush()
        sys.stderr.write(
            f"memeval: exiting with status {exit_status} without waiting for {len(left)} thread"
            f"{'s' if len(left) != 1 else ''} the memory systems left running: {describe_threads(left)}\n"
        )
        sys.stderr.flush()
    finally:
        os._exit(exit_status)
