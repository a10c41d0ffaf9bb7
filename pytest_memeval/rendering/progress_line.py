"""On the controller: a progress line while contexts are filled and texts embedded.

Filling a context (ingest, embedding) can take minutes during which pytest prints
nothing. A thread of the controller reads each process's progress (xdist workers write
theirs to files, see `pytest_memeval.running.progress_tracking`; without xdist it reads this process's
tracker) and, at most every `--memeval-progress` seconds while some context is being
filled or texts were embedded, writes a line through pytest's terminal reporter:

    memeval progress 2m10s: 412/1296 items, 31/88 contexts, ETA 4m45s; embedding 85 texts/s
      gw0: 210 items, filling multisource gen20260321-stated_124 (session 3 of 5), 412 MB resident, 41 texts/s
      gw1: 0 items, loading the embedder sentence-transformers/all-MiniLM-L6-v2 (1m02s), filling knowme ...

The ETA measures the run in what its contexts store (the groups of items filled into a
memory system together, which the scheduler keeps on one worker), since filling them is
most of the work: each context group weighs the characters of its messages
(`running.context_sizes`), and the share done is each group's share of its items done,
plus the characters the fills in progress have stored, over all. Counted in items or in
contexts alone, the first contexts' many quick items or small fills promised an end long
before the large fills of later ones (a first run went 46 min, 8 min, 29 min). A load
that comes before any progress (the embedder's weights) is on the line, with its time.

A line is cut to the terminal's width on a terminal only: a log that is not a terminal
(CI) gets every line whole.

Under xdist the controller runs no test: pytest writes to the terminal from its main
thread while reporting (log start, report, log finish); this plugin wraps those hooks and
holds one lock around them and around its own lines, so a progress line never lands
inside pytest's output, and it starts on a line of its own. Without xdist the tests run
in this process under pytest's output capture: the tracker calls `maybe_print` on the
thread that made progress, which prints from the main thread only (between two sessions
of a fill), with capture suspended the way pytest's live logging does it.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Collection, Generator, Mapping, Sequence
from typing import Any

import pytest

from ..printable import shorten
from ..running.progress_tracking import Progress, read_progress
from .terminal import terminal_width

#: how often the thread looks at the workers' progress, at most
POLL_S = 1.0


class ProgressDisplay:
    """A pytest plugin object, registered on the controller when progress lines are on."""

    def __init__(
        self,
        config: pytest.Config,
        interval_s: float,
        read: Callable[[], Sequence[Progress]],
        threaded: bool = True,
        groups: Callable[[], Mapping[str, str]] = dict,
        sizes: Callable[[Collection[str]], Mapping[str, int]] = lambda groups: {},
    ) -> None:
        self.config = config
        self.threaded = threaded
        self.terminal: Any = None
        self.interval_s = interval_s
        self.read = read
        self.total = 0
        self.done = 0
        #: parameter id of a memeval item -> its context group (see scheduling.groups_by_params)
        self.groups = groups
        self._table: Mapping[str, str] = {}
        self.group_size: Counter[str] = Counter()
        self.group_done: Counter[str] = Counter()
        #: context group -> the characters it stores (see running.context_sizes)
        self.sizes = sizes
        self.group_weight: dict[str, float] = {}
        #: whether the weights are characters (the fills in progress then count theirs)
        self.weighed = False
        self.lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started = 0.0
        self._last: dict[str, Progress] = {}
        self._last_time = 0.0

    @classmethod
    def from_directory(
        cls,
        config: pytest.Config,
        interval_s: float,
        directory: str,
        groups: Callable[[], Mapping[str, str]] = dict,
        sizes: Callable[[Collection[str]], Mapping[str, int]] = lambda groups: {},
    ) -> ProgressDisplay:
        return cls(config, interval_s, lambda: read_progress(directory), groups=groups, sizes=sizes)

    def collected(self, nodeids: Sequence[str]) -> None:
        """The items the run will report, each counted in its context group (a test outside
        every suite's index is a group of its own)."""
        if self.total:
            return
        self.total = len(nodeids)
        self._table = self.groups()
        self.group_size = Counter(self.group_of(nodeid) for nodeid in nodeids)
        sizes = self.sizes(set(self.group_size))
        known = [sizes[g] for g in self.group_size if g in sizes]
        self.weighed = bool(known)
        other = sum(known) / len(known) if known else 1.0  # a test outside every suite's index
        self.group_weight = {g: float(sizes.get(g, other)) for g in self.group_size}

    def group_of(self, nodeid: str) -> str:
        params = nodeid[nodeid.find("[") + 1 : -1] if nodeid.endswith("]") else ""
        return self._table.get(params, nodeid)

    def share_done(self, current: Mapping[str, Progress]) -> float:
        """The share of the run's work done: each context group's weight times the share of
        its items done, plus what the fills in progress stored (characters; or, when the
        groups have no sizes, their share of sessions times a mean group), over all groups."""
        if not self.group_size:
            return self.done / self.total if self.total else 0.0
        weight = self.group_weight
        done = sum(weight[g] * min(self.group_done[g], n) / n for g, n in self.group_size.items())
        total = sum(weight.values())
        for p in current.values():
            if not p.filling:
                continue
            if self.weighed:
                done += p.fill_chars
            elif p.sessions_total:
                done += p.sessions_done / p.sessions_total * total / len(weight)
        return min(1.0, done / total) if total else 0.0

    # --- pytest hooks (controller) -------------------------------------------------

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.collected([item.nodeid for item in session.items])

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: Sequence[str]) -> None:
        self.collected(ids)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, Any, Any]:
        self.start()
        try:
            return (yield)
        finally:
            self.stop()

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> Generator[None, Any, Any]:
        with self.lock:
            return (yield)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> Generator[None, Any, Any]:
        with self.lock:
            if report.when == "teardown":
                self.done += 1
                self.group_done[self.group_of(report.nodeid)] += 1
            return (yield)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_logfinish(self, nodeid: str, location: Any) -> Generator[None, Any, Any]:
        with self.lock:
            return (yield)

    # --- the thread ----------------------------------------------------------------

    def start(self) -> None:
        self.terminal = self.config.pluginmanager.get_plugin("terminalreporter")
        if self.terminal is None:  # -p no:terminal: nowhere to write
            return
        self._started = self._last_time = time.monotonic()
        if self.threaded:
            self._thread = threading.Thread(target=self._run, name="memeval-progress", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(min(POLL_S, self.interval_s)):
            if time.monotonic() - self._last_time >= self.interval_s:
                self.tick()

    def maybe_print(self, announce: bool = False) -> None:
        """In-process runs: called by the tracker on every change; `announce`: at once (a
        load begins, which holds this thread until it ends)."""
        if self.terminal is None or threading.current_thread() is not threading.main_thread():
            return
        if not announce and time.monotonic() - self._last_time < self.interval_s:
            return
        capture = self.config.pluginmanager.get_plugin("capturemanager")
        if capture is None:
            self.tick()
            return
        with capture.global_and_fixture_disabled():
            self.tick()

    def tick(self) -> None:
        """Print a line when some process is filling a context or embedded texts since the last one."""
        now = time.monotonic()
        current = {p.worker: p for p in self.read()}
        busy = [
            p
            for p in current.values()
            if p.filling
            or p.loading
            or p.texts > self._previous(p).texts
            or p.contexts_filled > self._previous(p).contexts_filled
        ]
        if busy:
            lines = self.lines(current, busy, now)
            if self.terminal.isatty():  # a log that is not a terminal keeps every line whole
                lines = [shorten(line, terminal_width(self.terminal) - 1) for line in lines]
            with self.lock:
                self.terminal.ensure_newline()  # after a file name and its dots
                writer = self.config.get_terminal_writer()
                if writer.width_of_current_line:  # xdist's dots have no file name: end their line
                    writer.line()
                for line in lines:
                    self.terminal.write_line(line)
        self._last, self._last_time = current, now

    def _previous(self, progress: Progress) -> Progress:
        return self._last.get(progress.worker) or Progress(progress.worker)

    def lines(self, current: dict[str, Progress], busy: Sequence[Progress], now: float) -> list[str]:
        elapsed = now - self._started
        seconds = max(now - self._last_time, 1e-6)
        texts = sum(p.texts - self._previous(p).texts for p in current.values())
        head = f"memeval progress {_duration(elapsed)}: {self.done}/{self.total} items"
        if self.group_size:
            finished = sum(1 for g, n in self.group_size.items() if self.group_done[g] >= n)
            head += f", {finished}/{len(self.group_size)} contexts"
        share = self.share_done(current)
        if 0 < share < 1:
            head += f", ETA {_duration(elapsed * (1 - share) / share)}"
        if texts:
            new = sum(p.texts_new for p in current.values())
            head += f"; embedding {texts / seconds:,.0f} texts/s ({new:,} new so far)"
        lines = [head]
        for progress in sorted(busy, key=lambda p: p.worker):
            part = f"  {progress.worker}: {progress.items_done} items"
            if progress.loading:
                since = _duration(max(0.0, time.time() - progress.loading_since)) if progress.loading_since else ""
                part += f", loading {progress.loading}" + (f" ({since})" if since else "")
            if progress.filling:
                part += f", filling {progress.filling} (session {progress.sessions_done} of {progress.sessions_total})"
                if progress.resident_mb:
                    part += f", {progress.resident_mb:,.0f} MB resident"
            else:
                part += f", {progress.contexts_filled} contexts filled"
            rate = (progress.texts - self._previous(progress).texts) / seconds
            if rate:
                part += f", {rate:,.0f} texts/s"
            lines.append(part)
        return lines


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
