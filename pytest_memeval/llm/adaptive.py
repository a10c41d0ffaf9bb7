"""How many LLM calls a process has in flight: at most a limit that adapts to 429s (AIMD).

The gateway (gateway.py) takes a slot before it forwards a call upstream and gives it back
with the endpoint's status. The limit starts at the process's budget (its share of
--memeval-concurrency). An HTTP 429 halves it (multiplicative decrease), once per round:
the 429s of calls that were sent before the last decrease say nothing new about the lower
limit. Each `limit` calls answered in a row without a 429 raise it by one (additive
increase), never above the budget. A call that waits for a slot waits at most its own
deadline; then it is answered 429 by the gateway (never sent), and the client's retries
take it from there.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

THROTTLED = 429


@dataclass(frozen=True)
class Slot:
    """A taken slot: when it was taken, and how long the call waited for it."""

    taken_at: float
    waited_s: float


class AdaptiveLimit:
    """Thread-safe; `ceiling` >= 1 is the budget the limit never exceeds."""

    def __init__(self, ceiling: int, *, clock: Callable[[], float] = time.monotonic) -> None:
        if ceiling < 1:
            raise ValueError(f"an in-flight limit needs a ceiling of at least 1, not {ceiling}")
        self.ceiling = ceiling
        self._clock = clock
        self._limit = ceiling
        self._held = 0
        self._successes = 0
        self._lowered_at = float("-inf")
        self._changed = threading.Condition()
        #: how often the limit was lowered, and the lowest it went (for the run's stats)
        self.decreases = 0
        self.lowest = ceiling

    @property
    def limit(self) -> int:
        with self._changed:
            return self._limit

    @property
    def held(self) -> int:
        with self._changed:
            return self._held

    def acquire(self, timeout_s: float) -> Slot | None:
        """A slot, or None when none came free within `timeout_s`."""
        started = self._clock()
        deadline = started + timeout_s
        with self._changed:
            while self._held >= self._limit:
                remaining = deadline - self._clock()
                if remaining <= 0:
                    return None
                self._changed.wait(remaining)
            self._held += 1
            now = self._clock()
            return Slot(now, now - started)

    def release(self, slot: Slot, status: int) -> None:
        """Give the slot back with the status the endpoint answered (0: no answer)."""
        with self._changed:
            self._held -= 1
            if status == THROTTLED:
                if slot.taken_at > self._lowered_at:  # one decrease per round of calls
                    self._limit = max(1, self._limit // 2)
                    self._lowered_at = self._clock()
                    self._successes = 0
                    self.decreases += 1
                    self.lowest = min(self.lowest, self._limit)
            elif 200 <= status < 300 and self._limit < self.ceiling:
                self._successes += 1
                if self._successes >= self._limit:
                    self._limit += 1
                    self._successes = 0
            self._changed.notify_all()
