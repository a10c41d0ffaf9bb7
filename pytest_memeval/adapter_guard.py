"""Every call into a memory system goes through one guard: a time limit, one-line errors.

Adapters may raise anything (SystemExit included), hang, or return the wrong thing. The
guard runs each call of one memory system on that system's own thread, always the same
one (so an adapter holding a thread-bound resource, such as a sqlite3 connection made in
its constructor, keeps working), waits at most the adapter timeout, and turns every
failure into an `AdapterError` whose message is one line. A call that times out leaves
its thread hung, so the system is retired: every later call fails at once saying why.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TypeVar

from .errors import AdapterError

T = TypeVar("T")

#: default seconds one adapter call may take (--memeval-adapter-timeout)
DEFAULT_ADAPTER_TIMEOUT = 600.0


def describe(exc: BaseException) -> str:
    """'ValueError: the first line of its message'."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


class AdapterGuard:
    """The calls of one memory system in one process."""

    def __init__(self, system_name: str, timeout_s: float = DEFAULT_ADAPTER_TIMEOUT) -> None:
        self.system_name = system_name
        self.timeout_s = timeout_s
        self._executor: ThreadPoolExecutor | None = None
        #: why the system can no longer be called (construction failed, a call hung)
        self.retired: str | None = None

    def raise_if_retired(self) -> None:
        """Fail at once, before anything is spent on a call the system can no longer take."""
        if self.retired is not None:
            raise AdapterError(self.retired)

    def call(self, method: str, function: Callable[[], T]) -> T:
        self.raise_if_retired()
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"memsystem-{self.system_name}")
        future: Future[T | _Raised] = self._executor.submit(_capture, function)
        try:
            outcome = future.result(timeout=self.timeout_s)
        except FutureTimeout:
            self.retired = (
                f"memsystem {self.system_name!r} is retired: {method} did not return within "
                f"{self.timeout_s:g} s (--memeval-adapter-timeout)"
            )
            self._executor.shutdown(wait=False, cancel_futures=True)
            raise AdapterError(
                f"memsystem {self.system_name!r} timed out in {method} after {self.timeout_s:g} s "
                "(--memeval-adapter-timeout)"
            ) from None
        if isinstance(outcome, _Raised):
            raise AdapterError(
                f"memsystem {self.system_name!r} failed in {method}: {describe(outcome.exc)}"
            ) from outcome.exc
        return outcome

    def construct(self, build: Callable[[], T]) -> T:
        """Build the adapter on its thread; a failure retires the guard with that one line."""
        try:
            return self.call("construction", build)
        except AdapterError as exc:
            self.retired = str(exc)
            raise

    def shutdown(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=self.retired is None)
            self._executor = None


class _Raised:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


def _capture(function: Callable[[], T]) -> T | _Raised:
    """Run on the adapter's thread; anything raised (SystemExit too) comes back as a value."""
    try:
        return function()
    except BaseException as exc:
        return _Raised(exc)
