"""A wall-clock deadline for one blocking network call.

httpx's timeouts bound each read of the socket, not the whole response: a server that
sends one byte a second (headers or body) keeps a call open for as long as it likes. So
every LLM call (and every probe of the endpoint) runs in a daemon thread that the caller
waits for until the deadline, and no longer. A call past its deadline is abandoned: the
caller goes on at once (its failure is a timeout like any other, retried within the
call's retry budget); the abandoned thread ends when the server stops sending, its socket
read times out, or the client is closed at the end of the run, and being a daemon it
never holds the process open.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class DeadlineExceeded(TimeoutError):
    """The call did not return within its wall-clock deadline."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"no complete response within {seconds:.2f}s (wall clock)")
        self.seconds = seconds


def call_within(seconds: float, function: Callable[[], T], name: str = "memeval-llm-call") -> T:
    """`function()`'s result or exception, or DeadlineExceeded after `seconds`."""
    outcome: list[tuple[bool, object]] = []
    done = threading.Event()

    def run() -> None:
        try:
            outcome.append((True, function()))
        except BaseException as exc:  # handed to the caller, who decides
            outcome.append((False, exc))
        finally:
            done.set()

    threading.Thread(target=run, name=name, daemon=True).start()
    if not done.wait(max(0.0, seconds)):
        raise DeadlineExceeded(seconds)
    returned, value = outcome[0]
    if returned:
        return value  # type: ignore[return-value]
    assert isinstance(value, BaseException)
    raise value
