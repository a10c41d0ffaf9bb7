"""What a process is doing on long work: filling contexts and embedding texts.

Each pytest process (the controller without xdist, or an xdist worker) has one
`ProgressTracker`. Two narrow hooks feed it: `ContextFiller.ensure` reports a context
being filled session by session, and `tracked_embedder` wraps the run's embedder to
count the texts it embeds (and how many missed the embedding cache). A worker also
writes the tracker's state, at most twice a second, to a file in a directory the
controller named (`PROGRESS_DIR` in its workerinput); the controller's
`rendering.progress_line` reads those files (or, without xdist, the tracker itself) and
prints a progress line between pytest's own output.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..memory.embedders import CountsMisses, Embedder

#: the workerinput key naming the directory of the workers' progress files
PROGRESS_DIR = "memeval_progress_dir"
#: seconds between two writes of a worker's progress file
WRITE_EVERY_S = 0.5


@dataclass
class Progress:
    """A snapshot of one process's long work (plain values: it travels as JSON)."""

    worker: str = "main"
    items_done: int = 0
    contexts_filled: int = 0
    #: the context being filled now ("" when none), and its sessions done / in all
    filling: str = ""
    sessions_done: int = 0
    sessions_total: int = 0
    #: texts embedded (cache hits included), those that missed the cache, seconds spent
    texts: int = 0
    texts_new: int = 0
    embed_seconds: float = 0.0
    #: the process's resident memory in MB at its last fill step (0: unknown), so that a long
    #: fill shows whether memory stays flat
    resident_mb: float = 0.0
    #: characters of the current fill's messages stored so far (the ETA's measure of work)
    fill_chars: int = 0
    #: what the process is loading now ("" when nothing: the embedder's weights, a suite's
    #: reader), and since when (seconds since the epoch: workers' clocks agree on it)
    loading: str = ""
    loading_since: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> Progress | None:
        if not isinstance(data, dict):
            return None
        try:
            return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})
        except TypeError:
            return None


class ProgressTracker:
    """Thread-safe counters of one process; `path` set: written there as they change."""

    def __init__(self, worker: str = "main", path: Path | None = None) -> None:
        self._state = Progress(worker)
        self._lock = threading.Lock()
        self._path = path
        self._written = 0.0
        #: called after every change, on the thread that made it (the in-process display);
        #: True when the change should be shown at once (a load begins)
        self.listener: Callable[[bool], None] | None = None

    def snapshot(self) -> Progress:
        with self._lock:
            return Progress(**asdict(self._state))

    def fill_started(self, label: str, sessions: int) -> None:
        self._update(filling=label, sessions_done=0, sessions_total=sessions, fill_chars=0, resident_mb=resident_mb())

    def session_ingested(self, chars: int = 0) -> None:
        """One session of the current fill stored; `chars`: its messages' characters."""
        with self._lock:
            self._state.sessions_done += 1
            self._state.fill_chars += chars
            self._state.resident_mb = resident_mb()
        self._write()

    def fill_finished(self) -> None:
        with self._lock:
            self._state.contexts_filled += 1
            self._state.filling = ""
            self._state.fill_chars = 0
        self._write(force=True)

    @contextmanager
    def loading(self, what: str) -> Iterator[None]:
        """Around a load that may take long before any progress (an embedder's weights): the
        progress line says what is loading, and since when."""
        self._update(announce=True, loading=what, loading_since=time.time())
        try:
            yield
        finally:
            self._update(loading="", loading_since=0.0)

    def item_done(self) -> None:
        with self._lock:
            self._state.items_done += 1
        self._write()

    def embedded(self, texts: int, new: int, seconds: float) -> None:
        with self._lock:
            self._state.texts += texts
            self._state.texts_new += new
            self._state.embed_seconds += seconds
        self._write()

    def _update(self, announce: bool = False, **values: Any) -> None:
        with self._lock:
            for name, value in values.items():
                setattr(self._state, name, value)
        self._write(force=True, announce=announce)

    def _write(self, force: bool = False, announce: bool = False) -> None:
        """Replace the progress file (atomically: the reader never sees half of it)."""
        if self.listener is not None:
            self.listener(announce)
        if self._path is None:
            return
        now = time.monotonic()
        if not force and now - self._written < WRITE_EVERY_S:
            return
        self._written = now
        partial = self._path.with_suffix(".part")
        try:
            partial.write_text(json.dumps(self.snapshot().to_json()), encoding="utf-8")
            partial.replace(self._path)
        except OSError:
            self._path = None  # the directory is gone (the controller finished): stop writing


def resident_mb() -> float:
    """This process's resident memory in MB (Linux: now; other Unixes: its peak; else 0)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError, AttributeError):
        pass
    try:
        import resource
    except ImportError:  # Windows
        return 0.0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


def read_progress(directory: str) -> list[Progress]:
    """Every worker's last written progress, in worker order."""
    found = []
    for path in sorted(Path(directory).glob("*.json")):
        try:
            progress = Progress.from_json(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue
        if progress is not None:
            found.append(progress)
    return found


class TrackedEmbedder:
    """An embedder that reports how many texts it embedded, how many of them were new (to
    an embedder that counts its cache misses), and how fast, to a tracker."""

    def __init__(self, inner: Embedder, tracker: ProgressTracker) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self._tracker = tracker

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        before = self._misses()
        started = time.perf_counter()
        vectors = self.inner.embed(texts)
        after = self._misses()
        new = len(texts) if before is None or after is None else after - before
        self._tracker.embedded(len(texts), new, time.perf_counter() - started)
        return vectors

    def _misses(self) -> int | None:
        return self.inner.misses if isinstance(self.inner, CountsMisses) else None


def tracked_embedder(get: Callable[[], Embedder], tracker: ProgressTracker) -> Callable[[], Embedder]:
    """A getter of the run's embedder that hands out one tracked wrapper per embedder."""
    wrapped: dict[int, TrackedEmbedder] = {}

    def tracked() -> Embedder:
        inner = get()
        if id(inner) not in wrapped:
            wrapped[id(inner)] = TrackedEmbedder(inner, tracker)
        return wrapped[id(inner)]

    return tracked
