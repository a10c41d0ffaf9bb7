"""Servers the plugin starts (a Letta server, a local model server) must not outlive it.

`stop()` in a finalizer covers every orderly end; a worker killed with SIGKILL runs no
finalizer, so on Linux the child also asks the kernel for SIGTERM when its parent dies
(prctl PR_SET_PDEATHSIG). Elsewhere this is a no-op and only the finalizers apply.
"""

from __future__ import annotations

import ctypes
import signal
import sys

_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """A `preexec_fn` for subprocess.Popen: SIGTERM to the child when its parent exits."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
