"""Servers the plugin starts (a Letta server, a local model server): waiting until they
answer, and making sure they do not outlive it.

`stop()` in a finalizer covers every orderly end; a worker killed with SIGKILL runs no
finalizer, so on Linux the child also asks the kernel for SIGTERM (SIGKILL for a server
with nothing to save) when its parent dies (prctl PR_SET_PDEATHSIG). Elsewhere this is a
no-op and only the finalizers apply.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """A `preexec_fn` for subprocess.Popen: SIGTERM to the child when its parent exits."""
    _signal_on_parent_death(signal.SIGTERM)


def killed_with_parent() -> None:
    """A `preexec_fn` for subprocess.Popen: SIGKILL to the child when its parent exits.

    For a server with nothing to save whose graceful shutdown waits for the request in
    flight: llama.cpp's (uvicorn) finishes the generation it is on, minutes on two cores,
    for a client that is gone."""
    _signal_on_parent_death(signal.SIGKILL)


def _signal_on_parent_death(signum: int) -> None:
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signum)


def wait_until_answers(url: str, deadline: float, alive: Callable[[], bool], interval_s: float = 0.25) -> bool:
    """Poll `url` on loopback (never through a proxy) until it answers 200: True then; False
    when `alive()` turns false (the server exited) or time.monotonic() passes `deadline`."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    while time.monotonic() < deadline:
        if not alive():
            return False
        try:
            with opener.open(url, timeout=2) as response:
                if response.status == 200:
                    return True
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(interval_s)
    return False


def stop_process_group(process: subprocess.Popen[bytes], timeout_s: float) -> None:
    """End a child started with `start_new_session=True`, with whatever it started: SIGTERM
    to its process group, SIGKILL when it has not exited within `timeout_s`."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=timeout_s)
    except (subprocess.TimeoutExpired, ProcessLookupError):
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait(timeout=timeout_s)


def last_log_line(log_path: Path) -> str:
    """The last non-blank line of a child's log (at most 300 characters), for a one-line error."""
    text = log_path.read_text(errors="replace") if log_path.exists() else ""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else "no output"
