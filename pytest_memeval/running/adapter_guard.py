"""Every call into a memory system goes through one guard: a time limit, one-line errors.

Adapters may raise anything (SystemExit included), hang, or return the wrong thing. The
guard runs each call of one memory system on that system's own thread, always the same
one (so an adapter holding a thread-bound resource, such as a sqlite3 connection made in
its constructor, keeps working), waits at most the adapter timeout, and turns every
failure into an `AdapterError` whose message is one line. A call that times out leaves
its thread hung, so the system is retired: every later call fails at once saying why.

The thread is a daemon: a call that never returns must not keep the process from exiting
once the reports are written (`lingering` names such calls for the exit message).

A system that declares `returns_at_once` (an in-process store that cannot block: `context`,
`none`) is called on the caller's thread once it is built, without the hand-off to its
thread and back (tens of microseconds of CPU per call); its calls keep the time limit: one
that overruns it fails with the same message and retires the system, when it returns.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, TypeVar

from ..config.settings import DEFAULT_ADAPTER_TIMEOUT
from ..errors import AdapterError
from ..printable import printable
from ..protocols import returns_at_once

T = TypeVar("T")


def describe(exc: BaseException) -> str:
    """'ValueError: the first line of its message' (the first with printable text)."""
    lines = [line.strip() for line in printable(str(exc), multiline=True).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


class AdapterGuard:
    """The calls of one memory system in one process."""

    def __init__(self, system_name: str, timeout_s: float = DEFAULT_ADAPTER_TIMEOUT) -> None:
        self.system_name = system_name
        self.timeout_s = timeout_s
        self._thread: _AdapterThread | None = None
        #: why the system can no longer be called (construction failed, a call hung)
        self.retired: str | None = None
        #: the system built declares `returns_at_once`: its calls run on the caller's thread
        self.inline = False

    def raise_if_retired(self) -> None:
        """Fail at once, before anything is spent on a call the system can no longer take."""
        if self.retired is not None:
            raise AdapterError(self.retired)

    def call(self, method: str, function: Callable[[], T]) -> T:
        self.raise_if_retired()
        if self.inline:
            return self._call_inline(method, function)
        if self._thread is None:
            self._thread = _AdapterThread(f"memsystem-{self.system_name}")
        future: Future[Any] = self._thread.submit(method, lambda: _capture(function))
        try:
            outcome = future.result(timeout=self.timeout_s)
        except FutureTimeout:
            self._thread.stop(wait=False)
            raise self._timed_out(method) from None
        if isinstance(outcome, _Raised):
            raise self._failed(method, outcome.exc) from outcome.exc
        result: T = outcome
        return result

    def _call_inline(self, method: str, function: Callable[[], T]) -> T:
        """A call of a system that returns at once, on this thread: the same errors and time
        limit as on its own thread (a Ctrl-C while it runs stays the user's interrupt)."""
        started = time.monotonic()
        try:
            result = function()
        except (Exception, SystemExit) as exc:
            raise self._failed(method, exc) from exc
        if time.monotonic() - started > self.timeout_s:
            raise self._timed_out(method)
        return result

    def _failed(self, method: str, exc: BaseException) -> AdapterError:
        return AdapterError(f"memsystem {self.system_name!r} failed in {method}: {describe(exc)}")

    def _timed_out(self, method: str) -> AdapterError:
        """The error of a call past the time limit; the system is retired."""
        self.retired = (
            f"memsystem {self.system_name!r} is retired: {method} did not return within "
            f"{self.timeout_s:g} s (--memeval-adapter-timeout)"
        )
        return AdapterError(
            f"memsystem {self.system_name!r} timed out in {method} after {self.timeout_s:g} s "
            "(--memeval-adapter-timeout)"
        )

    def construct(self, build: Callable[[], T]) -> T:
        """Build the adapter on its thread; a failure retires the guard with that one line.
        A system that declares `returns_at_once` is called inline from then on."""
        try:
            built = self.call("construction", build)
        except AdapterError as exc:
            self.retired = str(exc)
            raise
        self.inline = returns_at_once(built)
        return built

    def shutdown(self) -> None:
        if self._thread is not None:
            self._thread.stop(wait=self.retired is None)
            if self.lingering() is None:
                self._thread = None

    def lingering(self) -> str | None:
        """The call still running on this system's thread (one that timed out), if any."""
        return self._thread.running if self._thread is not None and self._thread.is_alive() else None


class _AdapterThread:
    """One daemon thread running calls in order (a ThreadPoolExecutor's threads are joined
    when the interpreter exits, so one hung call would keep the process alive for ever)."""

    def __init__(self, name: str) -> None:
        self._calls: queue.SimpleQueue[tuple[str, Future[Any], Callable[[], Any]] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        #: the method being called now (None while idle)
        self.running: str | None = None
        self._thread.start()

    def submit(self, method: str, function: Callable[[], Any]) -> Future[Any]:
        future: Future[Any] = Future()
        self._calls.put((method, future, function))
        return future

    def stop(self, wait: bool) -> None:
        self._calls.put(None)
        if wait:
            self._thread.join()

    def is_alive(self) -> bool:
        return self._thread.is_alive()

    def _serve(self) -> None:
        while (call := self._calls.get()) is not None:
            method, future, function = call
            if future.set_running_or_notify_cancel():
                self.running = method
                future.set_result(function())  # `_capture` never raises
                self.running = None


class _Raised:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


def _capture(function: Callable[[], T]) -> T | _Raised:
    """Run on the adapter's thread; anything raised (SystemExit too) comes back as a value."""
    try:
        return function()
    except BaseException as exc:
        return _Raised(exc)
