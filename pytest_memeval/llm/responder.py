"""An LLM response model with a bounded prefetch pool.

A context's items are known before its first test runs, so the caller can `prefetch`
them: each request is built and submitted to a thread pool of `concurrency` workers.
`answer(view, memories)` then returns the prefetched result for the same request (same
content address), waiting for it if needed, and calls synchronously otherwise. Tests
still consume answers one at a time, in order; only the waiting overlaps.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

from ..config.llm_settings import LLMSettings
from ..types import Answer, ItemView, Memory, PrefetchRequest
from .caller import ModelCaller
from .calls import ChatRequest, Completion
from .structured import answer_schema
from .tally import count
from .templates import PromptTemplate


class ResponsePrompt(Protocol):
    """A suite's prompt: messages from the public view and memories, an Answer from the reply.

    A prompt may also have `schema(view) -> dict | None` (`structured.DeclaresSchema`), the
    JSON schema of the answer (sent as a structured-output constraint); without it no
    schema is sent."""

    template: PromptTemplate

    def messages(self, view: ItemView, memories: Sequence[Memory]) -> list[dict[str, str]]: ...

    def parse(self, completion: Completion, view: ItemView) -> Answer: ...


@dataclass
class _Pending:
    label: str
    future: Future[Completion] | None  # None in replay mode: only the label is kept
    waiting: int = 1


class LLMResponder:
    """A `ResponseModel` backed by an OpenAI-compatible endpoint (see `LLMSettings`)."""

    def __init__(
        self,
        prompt: ResponsePrompt,
        settings: LLMSettings,
        *,
        caller: ModelCaller | None = None,
        name: str | None = None,
    ) -> None:
        self.prompt = prompt
        self.settings = settings
        self.name = name or settings.model
        self._owns_caller = caller is None
        self.caller = caller or ModelCaller(settings)
        self._pending: dict[str, _Pending] = {}
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        #: set when a prefetched call first reached the caller (`prefetch`)
        self._first_call = threading.Event()
        self._logprobs_supported: bool | None = None

    def __repr__(self) -> str:
        return f"LLMResponder({self.name!r}, template={self.prompt.template.id!r}, cache_mode={self.settings.cache_mode!r})"

    @property
    def logprobs_supported(self) -> bool | None:
        """None until a completion with logprobs requested came back; False if any lacked them."""
        return self._logprobs_supported

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._pending)

    def request(self, view: ItemView, memories: Sequence[Memory]) -> ChatRequest:
        messages = self.prompt.messages(view, memories)
        return ChatRequest.build(self.settings, messages, self.prompt.template.id, answer_schema(self.prompt, view))

    def prefetch(self, requests: Iterable[PrefetchRequest]) -> int:
        """Start the calls for these items in the background; returns how many were submitted.

        The first time, the network client is built here, before any call is submitted, and
        this returns once a pool thread has taken the first call: what the caller does next
        (filling the next contexts ahead) then runs while the endpoint already works, not
        before the first call leaves (the client's import, in the pool thread, competed with
        it for the GIL)."""
        submitted = 0
        replay = self.settings.cache_mode == "replay"  # a cache read is too cheap to overlap
        first = not replay and not self._first_call.is_set()
        if first:
            self.caller.connect()
        for label, view, memories in requests:
            request = self.request(view, memories)
            key = request.key()
            with self._lock:
                entry = self._pending.get(key)
                if entry is not None:
                    entry.waiting += 1
                    continue
                future = None if replay else self._executor().submit(self._call, request, label)
                self._pending[key] = _Pending(label, future)
                submitted += future is not None
        if first and submitted:
            self._first_call.wait(self.settings.timeout_s)
        return submitted

    def _call(self, request: ChatRequest, label: str) -> Completion:
        self._first_call.set()
        return self.caller.call(request, label=label)

    def completion(self, view: ItemView, memories: Sequence[Memory], *, label: str | None = None) -> Completion:
        """The raw completion (with token log-probabilities when the endpoint gave them)."""
        request = self.request(view, memories)
        key = request.key()
        with self._lock:
            entry = self._pending.get(key)
            if entry is not None:
                entry.waiting -= 1
                if entry.waiting == 0:
                    del self._pending[key]
        if entry is not None and entry.future is not None:
            completion = entry.future.result()
        else:
            completion = self.caller.call(request, label=label or (entry.label if entry else None))
        count("answer", self.settings.model, completion)
        if self.settings.logprobs:
            available = completion.logprobs is not None
            with self._lock:
                self._logprobs_supported = (
                    available if self._logprobs_supported is None else self._logprobs_supported and available
                )
        return completion

    def answer_item(self, item_id: str, view: ItemView, memories: Sequence[Memory]) -> Answer:
        """`answer`, naming the item in errors and in the call log (`protocols.NamesItems`)."""
        return self.answer(view, memories, label=item_id)

    def answer(self, view: ItemView, memories: Sequence[Memory], *, label: str | None = None) -> Answer:
        completion = self.completion(view, memories, label=label)
        answer = self.prompt.parse(completion, view)
        detail: dict[str, Any] = dict(answer.detail)
        detail.update(
            template=self.prompt.template.id, finish_reason=completion.finish_reason, cached=completion.cached
        )
        detail["structured"] = completion.structured
        if self.settings.logprobs:
            detail["logprobs"] = "available" if completion.logprobs is not None else "unavailable"
        return Answer(answer.label, answer.abstained, answer.valid, answer.raw, detail)

    def stats(self) -> dict[str, Any]:
        return dict(self.caller.stats(), logprobs_supported=self._logprobs_supported, pending=self.pending)

    def close(self) -> None:
        """Cancel what was never asked for, wait for calls in flight, release the cache."""
        with self._lock:
            pool, self._pool = self._pool, None
            self._pending.clear()
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        if self._owns_caller:
            self.caller.close()

    def _executor(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.settings.concurrency, thread_name_prefix="memeval-llm")
        return self._pool
