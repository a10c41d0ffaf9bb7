"""`chroma`: chunk each session, embed the chunks, return the top-k by cosine similarity.

Embedded by default (a PersistentClient in this worker's private temp directory); with
`host` set it talks to a chroma server instead, which is how workers on several machines
use one store service. One collection per namespace keeps contexts isolated.

On a server, every adapter instance (one per xdist worker) names its collections with a
token of its own and deletes them on close: workers never see each other's data, even
for a suite whose contexts share one namespace, exactly as with private embedded stores.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..types import Memory, Message
from .chunking import chunk_messages
from .embedders import Embedder
from .resources import Resources

#: extra results fetched beyond k so that ties at the cut are broken by id, not by chance
TIE_MARGIN = 16
_VALID_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{1,510}[A-Za-z0-9]$")


class ChromaMemory:
    #: each chunk names the message it was cut from (`Memory.sources`)
    keeps_sources = True

    def __init__(
        self,
        embedder: Embedder,
        path: Path | None = None,
        host: str | None = None,
        port: int = 8000,
        chunk_tokens: int = 256,
        collection_prefix: str = "memeval-",
        timeout_s: float = 300.0,
    ) -> None:
        import chromadb
        from chromadb.config import Settings

        self.check_settings(
            {"chunk_tokens": chunk_tokens, "collection_prefix": collection_prefix, "port": port, "timeout_s": timeout_s}
        )
        settings = Settings(anonymized_telemetry=False)
        if host is not None:
            self._client = chromadb.HttpClient(host=host, port=port, settings=settings)
            _bound_http_timeout(self._client, timeout_s)
        elif path is not None:
            self._client = chromadb.PersistentClient(path=str(path), settings=settings)
        else:
            raise ValueError("chroma needs a path (embedded) or a host (server)")
        self.embedder = embedder
        self.chunk_tokens = chunk_tokens
        self.prefix = collection_prefix
        if host is not None:
            self.prefix += uuid.uuid4().hex[:8] + "-"
        self._server = host is not None
        self._collections: dict[str, Any] = {}
        self._closed = False

    @classmethod
    def check_settings(cls, settings: Mapping[str, Any]) -> None:
        """Values the constructor would refuse, checked before the run (the plugin calls
        this at configure time); each problem is a ValueError with one line."""
        if settings.get("chunk_tokens", 1) < 1:
            raise ValueError(f"chunk_tokens must be at least 1, got {settings['chunk_tokens']}")
        prefix = settings.get("collection_prefix", "memeval-")
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,400}", prefix):
            raise ValueError(f"collection_prefix {prefix!r}: use letters, digits, '.', '_' or '-'")
        if not 0 < settings.get("port", 8000) < 65536:
            raise ValueError(f"port must be in 1..65535, got {settings['port']}")
        timeout = settings.get("timeout_s", 300.0)
        if not (timeout > 0 and timeout != float("inf")):
            raise ValueError(f"timeout_s must be a positive finite number, got {timeout}")

    @classmethod
    def from_memeval(cls, config: Mapping[str, Any], resources: Resources) -> ChromaMemory:
        settings = dict(config)
        if "host" not in settings:
            settings.setdefault("path", resources.workdir / "chroma")
        return cls(embedder=resources.embedder(), **settings)

    def collection_name(self, namespace: str) -> str:
        name = f"{self.prefix}{namespace}"
        if _VALID_NAME.match(name):
            return name
        return f"{self.prefix}{hashlib.sha256(namespace.encode()).hexdigest()[:32]}"

    def reset(self, namespace: str) -> None:
        from chromadb.errors import NotFoundError

        self._collections.pop(namespace, None)
        try:
            self._client.delete_collection(self.collection_name(namespace))
        except NotFoundError:
            pass

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        chunks = chunk_messages(session, self.chunk_tokens)
        if not chunks:
            return
        collection = self._collection(namespace, create=True)
        start = collection.count()
        texts = [chunk.text for chunk in chunks]
        collection.add(
            ids=[f"{start + i:08d}" for i in range(len(chunks))],
            embeddings=self.embedder.embed(texts),
            documents=texts,
            # chroma refuses empty metadata dicts and None values: unnamed chunks carry ""
            metadatas=[{_SOURCE: chunk.source or ""} for chunk in chunks],
        )

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        collection = self._collection(namespace, create=False)
        if collection is None:
            return []
        count = collection.count()
        if count == 0:
            return []
        # Chroma picks arbitrarily among chunks tied at the k-th distance (short, templated
        # chunks often tie; identical observations tie by the hundred), so fetch a margin,
        # widen it while the tie reaches past it, break ties by insertion id and cut at k:
        # the same query ranks the same in every run and process.
        embedding = self.embedder.embed([query])
        n = min(k + TIE_MARGIN, count)
        while True:
            result = collection.query(
                query_embeddings=embedding, n_results=n, include=["documents", "distances", "metadatas"]
            )
            hits = zip(result["ids"][0], result["documents"][0], result["distances"][0], result["metadatas"][0])
            ranked = sorted(hits, key=lambda hit: (round(hit[2], 6), hit[0]))
            if n >= count or len(ranked) <= k or round(ranked[-1][2], 6) > round(ranked[k - 1][2], 6):
                break
            n = min(4 * n, count)
        return [
            Memory(text=doc, score=1.0 - dist, id=id_, sources=_sources(meta)) for id_, doc, dist, meta in ranked[:k]
        ]

    def dump(self, namespace: str) -> list[Memory] | None:
        collection = self._collection(namespace, create=False)
        if collection is None:
            return []
        stored = collection.get(include=["documents", "metadatas"])
        triples = sorted(zip(stored["ids"], stored["documents"], stored["metadatas"]), key=lambda t: t[0])
        return [Memory(text=doc, id=id_, sources=_sources(meta)) for id_, doc, meta in triples]

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._server:  # leave the shared server as this worker found it
            for namespace in list(self._collections):
                self.reset(namespace)
        self._collections.clear()

    def _collection(self, namespace: str, create: bool) -> Any:
        if namespace in self._collections:
            return self._collections[namespace]
        from chromadb.errors import NotFoundError

        name = self.collection_name(namespace)
        if create:
            collection = self._client.get_or_create_collection(
                name, embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
            )
        else:
            try:
                collection = self._client.get_collection(name, embedding_function=None)
            except NotFoundError:
                return None
        self._collections[namespace] = collection
        return collection


_SOURCE = "memeval_source"


def _sources(metadata: Mapping[str, Any] | None) -> tuple[str, ...]:
    """The message id a chunk was stored with (collections written before provenance have none)."""
    source = (metadata or {}).get(_SOURCE)
    return (str(source),) if source else ()


def _bound_http_timeout(client: Any, seconds: float) -> None:
    """chromadb's HttpClient waits forever for a reply; a wedged server must fail a run instead.

    chromadb (1.x) offers no setting for it, so this reaches the client's httpx session,
    and leaves the client alone if a later chromadb moves it.
    """
    import httpx

    session = getattr(getattr(client, "_server", None), "_session", None)
    if isinstance(session, httpx.Client):
        session.timeout = httpx.Timeout(seconds)
