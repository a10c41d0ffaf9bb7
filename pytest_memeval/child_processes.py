"""Servers the plugin starts (a Letta server, a local model server): waiting until they
answer, and making sure they do not outlive it.

`stop()` in a finalizer covers every orderly end; a worker killed with SIGKILL runs no
finalizer, so on Linux the child also asks the kernel for SIGTERM when its parent dies
(prctl PR_SET_PDEATHSIG). Elsewhere this is a no-op and only the finalizers apply.
"""

from __future__ import annotations

import ctypes
import signal
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable

_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """A `preexec_fn` for subprocess.Popen: SIGTERM to the child when its parent exits."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


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
