"""Keeping Python's cyclic garbage collector off what a run holds for its whole length.

Every full collection traverses every live container. When the test loop starts, the live
objects are mostly what stays alive until the end anyway: the imported modules, pytest's
items (thousands of them, each with its markers and parameters) and the suites' indexes.
On multisource small the full collections during the loop and at its end took about a
sixth of the run's CPU, most of it re-traversing those (docs/performance.md).

So a memeval run moves them to the permanent generation (`gc.freeze`) before the loop, and
back (`gc.unfreeze`) in the last of pytest's cleanups, after pytest's own final collections
(which look for unraisable exceptions among the garbage): those then traverse only what the
run made, not everything again. Nothing is freed later than in a plain run, except cyclic
garbage among the objects frozen (what was alive when the loop started and died in a cycle
during it), which is left to the next collection after the cleanup, or to the exit.

At interpreter exit the same holds for the interpreter's own final collections, which walk
the whole heap again (about 0.25 s of a multisource small run's 3 s of CPU; bare pytest's
heap is a third of it). So a process that ran a memeval loop collects once more when its
exit handlers run, which finalizes the cyclic garbage there is (as the interpreter would),
and then freezes what is left (`freeze_at_exit`). What becomes garbage after that, while
the interpreter tears down its modules, is what is still alive at exit, whose finalizers
Python never promised to run; its memory goes back with the process.
"""

from __future__ import annotations

import atexit
import gc
from functools import cache

import pytest

FROZEN_KEY = pytest.StashKey[bool]()


def freeze(config: pytest.Config) -> None:
    """Freeze what is alive now; `thaw` undoes it (once, whatever happens in between).
    The process also freezes its heap at exit (`freeze_at_exit`)."""
    if not config.stash.get(FROZEN_KEY, False):
        gc.freeze()
        config.stash[FROZEN_KEY] = True
    _register_exit_freeze()


def thaw(config: pytest.Config) -> None:
    if config.stash.get(FROZEN_KEY, False):
        gc.unfreeze()
        config.stash[FROZEN_KEY] = False


def freeze_at_exit() -> None:
    """Collect once, then freeze what is left (an exit handler, see the module's docstring)."""
    gc.collect()
    gc.freeze()


@cache
def _register_exit_freeze() -> None:
    """Once per process (pytest may run in-process many times, as under pytester)."""
    atexit.register(freeze_at_exit)
