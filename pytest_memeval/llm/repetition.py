"""Which repeat of an item is running (--memeval-repeat N), for the model calls it makes.

Repeats of an item must not share a cached answer, or a repeated run would replay one
answer N times. The runner enters `repeat_scope(r)` around an item's retrieval, answer
and judgement (not around filling the context, which repeats share); a model request
built inside it carries `current_repeat()` in its cache key. Repeat 0 adds nothing to
the key, so a run without repeats, and the first repeat of a repeated run, use the
cache entries recorded before repeats existed.

A context variable, not a thread-local: code that hands a call to a thread pool copies
the context (`contextvars.copy_context().run`) so the repeat travels with the call.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_REPEAT: ContextVar[int] = ContextVar("memeval_repeat", default=0)


def current_repeat() -> int:
    return _REPEAT.get()


@contextmanager
def repeat_scope(repeat: int) -> Iterator[None]:
    token = _REPEAT.set(repeat)
    try:
        yield
    finally:
        _REPEAT.reset(token)
