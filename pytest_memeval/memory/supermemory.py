"""`supermemory`: Supermemory's hosted API through its official client (`pip install "pytest-memeval[supermemory]"`).

Not verified against the hosted service: the project's tests run it against a loopback
server built from the client's own request and response types (tests/supermemory_server.py).

Each namespace is a Supermemory namespace named with a token of this adapter instance,
so workers and runs never meet; every message of a session is one document (as the
Beyond Recall study wrote one fact per document), its `Message.id` in the document's
metadata (`memeval_sources`). Search asks for each result's source document, and a memory
names the message of that document in `Memory.sources` (`keeps_sources`): a memory the
service extracted from a document names the one message it was made from. The service processes documents
asynchronously: ingest waits, bounded by `processing_timeout_s`, until each is done (a
failed document raises). Retrieve is the service's search (`search_mode`: "hybrid",
"memories" or "chunks"), top k, with its similarity as the score. Reset and close delete
the namespaces; after a reset the namespace is written under a new name, so a deletion
the service queues cannot leak old memories into the next context.

Settings: `api_key` (or SUPERMEMORY_API_KEY), `base_url` (default: the hosted API).
"""

from __future__ import annotations

import hashlib
import os
import re
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import ConfigError
from ..types import Memory, Message
from .chunking import chunk_messages

SEARCH_MODES = ("hybrid", "memories", "chunks")
#: documents still being processed have one of these states
_PENDING = {"unknown", "queued", "extracting", "chunking", "embedding", "indexing"}
_PAGE = 100
#: a message is one document; the service splits long documents itself
_DOCUMENT_TOKENS = 1_000_000
#: the document metadata key holding the ids of the messages a document holds
SOURCES_KEY = "memeval_sources"


class SupermemoryMemory:
    #: each memory names the message of its source document (`Memory.sources`)
    keeps_sources = True

    @classmethod
    def llm_outside_gateway(cls, settings: Mapping[str, Any]) -> str:
        """The service runs its own LLM: nothing of it can be pointed at the run's gateway."""
        return "supermemory: the service runs its own LLM, out of the run's LLM gateway's reach (not recorded, replayed or counted)"

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        search_mode: str = "hybrid",
        threshold: float = 0.0,
        timeout_s: float = 60.0,
        max_retries: int = 2,
        processing_timeout_s: float = 600.0,
        poll_interval_s: float = 1.0,
        namespace_prefix: str = "memeval-",
    ) -> None:
        key = api_key or os.environ.get("SUPERMEMORY_API_KEY")
        if not key:
            raise ConfigError("supermemory: no API key: set api_key in --memeval-adapter-config or SUPERMEMORY_API_KEY")
        if search_mode not in SEARCH_MODES:
            raise ConfigError(f"supermemory: search_mode must be one of {', '.join(SEARCH_MODES)}, got {search_mode!r}")
        if not 0.0 <= threshold <= 1.0:
            raise ConfigError(f"supermemory: threshold must be within [0, 1], got {threshold}")
        if not re.fullmatch(r"[A-Za-z0-9_-]{0,60}", namespace_prefix):
            raise ConfigError(f"supermemory: namespace_prefix {namespace_prefix!r}: use letters, digits, '_' or '-'")
        from supermemory import Supermemory

        self._client = Supermemory(api_key=key, base_url=base_url, timeout=timeout_s, max_retries=max_retries)
        self.search_mode = search_mode
        self.threshold = threshold
        self.processing_timeout_s = processing_timeout_s
        self.poll_interval_s = poll_interval_s
        self.prefix = f"{namespace_prefix}{uuid.uuid4().hex[:8]}-"
        self._generation: dict[str, int] = {}
        self._written: set[str] = set()
        self._closed = False

    def remote_namespace(self, namespace: str) -> str:
        """The service's name for `namespace` (opaque, and new after every reset)."""
        digest = hashlib.sha256(namespace.encode()).hexdigest()[:32]
        return f"{self.prefix}{digest}-{self._generation.get(namespace, 0)}"

    def reset(self, namespace: str) -> None:
        remote = self.remote_namespace(namespace)
        if remote in self._written:
            self._delete(remote)
            self._generation[namespace] = self._generation.get(namespace, 0) + 1

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        documents = chunk_messages(session, _DOCUMENT_TOKENS)
        if not documents:
            return
        remote = self.remote_namespace(namespace)
        self._written.add(remote)
        ids = [
            self._client.add(remote, content=chunk.text, **_sources_metadata(chunk.source)).id for chunk in documents
        ]
        self._wait_until_processed(remote, ids)

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        remote = self.remote_namespace(namespace)
        if remote not in self._written or k < 1 or not query.strip():
            return []
        found = self._client.search(
            remote,
            query=query,
            limit=k,
            search_mode=self.search_mode,
            threshold=self.threshold,
            include={"documents": True},
        )
        return [
            Memory(
                text=hit.memory if hit.memory is not None else (hit.chunk or ""),
                score=hit.similarity,
                id=hit.id,
                sources=_sources(hit),
            )
            for hit in found.results[:k]
        ]

    def dump(self, namespace: str) -> list[Memory] | None:
        remote = self.remote_namespace(namespace)
        if remote not in self._written:
            return []
        dumped: list[Memory] = []
        if self.search_mode != "chunks":
            dumped += [Memory(text=m.memory, id=m.id) for m in self._pages(remote, "memories")]
        if self.search_mode != "memories":
            dumped += [Memory(text=c.content, id=c.id) for c in self._pages(remote, "chunks")]
        return dumped

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for remote in sorted(self._written):  # leave the account as we found it
            self._delete(remote)
        self._written.clear()

    # -- helpers -----------------------------------------------------------------------------
    def _delete(self, remote: str) -> None:
        from supermemory.errors import NotFoundError

        try:
            self._client.namespaces.delete(remote)
        except NotFoundError:
            pass
        self._written.discard(remote)

    def _wait_until_processed(self, remote: str, ids: list[str]) -> None:
        deadline = time.monotonic() + self.processing_timeout_s
        pending = list(ids)
        while pending:
            status = self._client.documents.get(remote, pending[0]).system.status
            if status == "failed":
                raise RuntimeError(f"supermemory: document {pending[0]} failed processing")
            if status not in _PENDING:
                pending.pop(0)
                continue
            if time.monotonic() >= deadline:
                raise TimeoutError(
                    f"supermemory: {len(pending)} documents still processing after {self.processing_timeout_s:.0f} s"
                )
            time.sleep(self.poll_interval_s)

    def _pages(self, remote: str, kind: str) -> list[Any]:
        items: list[Any] = []
        page = 1
        while True:
            listed = self._client.list(remote, kind, page=page, limit=_PAGE)
            items += listed.memories if kind == "memories" else listed.chunks
            total_pages = listed.pagination.total_pages
            if total_pages is None or page >= total_pages:
                return items
            page += 1


def _sources_metadata(message_id: str | None) -> dict[str, Any]:
    """The keywords of `add` that write a document's message id into its metadata (none
    for a message without an id)."""
    return {"metadata": {SOURCES_KEY: [message_id]}} if message_id else {}


def _sources(hit: Any) -> tuple[str, ...]:
    """The message ids a search result names: those in the metadata of its source document
    (asked for with include documents), else in its own metadata; none when neither has any."""
    document = hit.included.document if hit.included is not None else None
    value = (document.metadata if document is not None else hit.metadata).get(SOURCES_KEY)
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()
