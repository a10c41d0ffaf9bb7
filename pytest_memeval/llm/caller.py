"""A model call through the cache: readwrite records, replay never touches the network.

The network client is built on the first cache miss, so a replayed run needs neither an
API key nor a reachable server.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..config.llm_settings import LLMSettings
from ..errors import ResponseError
from .cache import CallCache
from .calls import ChatRequest, Completion

if TYPE_CHECKING:  # imported on first use: a replayed run does not even need openai installed
    from .client import ChatClient


class ReplayMissError(ResponseError):
    """Replay mode met a request that the cache has no answer for."""


@dataclass
class CallStats:
    calls: int = 0
    cache_hits: int = 0
    network_calls: int = 0
    failures: int = 0


class ModelCaller:
    """`call(request)` per the settings' cache mode; thread-safe."""

    def __init__(
        self, settings: LLMSettings, *, client: ChatClient | None = None, cache: CallCache | None = None
    ) -> None:
        self.settings = settings
        self._client = client
        if cache is None and settings.cache_mode != "off":
            cache = CallCache.for_settings(settings)
        self.cache = cache
        self._stats = CallStats()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"ModelCaller(model={self.settings.model!r}, cache_mode={self.settings.cache_mode!r})"

    @property
    def client(self) -> ChatClient:
        with self._lock:
            if self._client is None:
                from .client import ChatClient

                self._client = ChatClient(self.settings)
            return self._client

    def connect(self) -> None:
        """Build the network client now (it imports openai: about a second of CPU), unless
        this mode never calls the network."""
        if self.settings.cache_mode != "replay":
            self.client  # noqa: B018  (the property builds it)

    def call(self, request: ChatRequest, *, label: str | None = None) -> Completion:
        """The completion for `request`; `label` names the item in error messages only."""
        mode = self.settings.cache_mode
        key = request.key()
        self._count(calls=1)
        hit = self.cache.get(key) if self.cache is not None else None
        # a failed answer stored by an older version is asked anew (replay returns what was recorded)
        if hit is not None and (hit.answered or mode == "replay"):
            self._count(cache_hits=1)
            return hit
        if mode == "replay":
            self._count(failures=1)
            target = label or "an unlabelled call"
            raise ReplayMissError(
                f"replay cache miss for {target}: no recorded answer of model {request.model!r} "
                f"with template {request.template or '-'} (key {key[:12]}) in {self.settings.cache_path}; "
                "record it with cache mode readwrite"
            )
        client = self.client
        self._count(network_calls=1)
        try:
            completion = client.complete(request, label=label)
        except ResponseError:
            self._count(failures=1)
            raise
        # a failure (no content, a content filter) is not an answer: the next run asks again
        if self.cache is not None and completion.answered:
            self.cache.put(request, completion, key, replace=hit is not None)
        return completion

    def stats(self) -> dict[str, Any]:
        with self._lock:
            out = dict(vars(self._stats))
        if self._client is not None:
            out.update(attempts=self._client.attempts, retries=self._client.retries)
        return out

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()
        if self._client is not None:
            self._client.close()

    def _count(self, **deltas: int) -> None:
        with self._lock:
            for name, delta in deltas.items():
                setattr(self._stats, name, getattr(self._stats, name) + delta)
