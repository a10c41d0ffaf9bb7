"""`chroma`: chunk each session, embed the chunks, return the top-k by cosine similarity.

Embedded by default (a PersistentClient in this worker's private temp directory); with
`host` set it talks to a chroma server instead, which is how several machines share one
store. One collection per namespace keeps contexts isolated.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..types import Memory, Message
from .chunking import chunk_session
from .embedders import Embedder

_VALID_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{1,510}[A-Za-z0-9]$")


class ChromaMemory:
    def __init__(
        self,
        embedder: Embedder,
        path: Path | None = None,
        host: str | None = None,
        port: int = 8000,
        chunk_tokens: int = 256,
        collection_prefix: str = "memeval-",
    ) -> None:
        import chromadb
        from chromadb.config import Settings

        if chunk_tokens < 1:
            raise ValueError(f"chunk_tokens must be at least 1, got {chunk_tokens}")
        settings = Settings(anonymized_telemetry=False)
        if host is not None:
            self._client = chromadb.HttpClient(host=host, port=port, settings=settings)
        elif path is not None:
            self._client = chromadb.PersistentClient(path=str(path), settings=settings)
        else:
            raise ValueError("chroma needs a path (embedded) or a host (server)")
        self.embedder = embedder
        self.chunk_tokens = chunk_tokens
        self.prefix = collection_prefix
        self._collections: dict[str, Any] = {}
        self._closed = False

    @classmethod
    def from_memeval(cls, config: Mapping[str, Any], resources: Any) -> "ChromaMemory":
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
        chunks = chunk_session(session, self.chunk_tokens)
        if not chunks:
            return
        collection = self._collection(namespace, create=True)
        start = collection.count()
        collection.add(
            ids=[f"{start + i:08d}" for i in range(len(chunks))],
            embeddings=self.embedder.embed(chunks),
            documents=chunks,
        )

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        collection = self._collection(namespace, create=False)
        if collection is None:
            return []
        count = collection.count()
        if count == 0:
            return []
        result = collection.query(
            query_embeddings=self.embedder.embed([query]),
            n_results=min(k, count),
            include=["documents", "distances"],
        )
        hits = zip(result["ids"][0], result["documents"][0], result["distances"][0])
        # Ties broken by insertion id so that equal scores rank the same in every process.
        ranked = sorted(hits, key=lambda hit: (round(hit[2], 6), hit[0]))
        return [Memory(text=doc, score=1.0 - dist, id=id_) for id_, doc, dist in ranked]

    def dump(self, namespace: str) -> list[Memory] | None:
        collection = self._collection(namespace, create=False)
        if collection is None:
            return []
        stored = collection.get(include=["documents"])
        pairs = sorted(zip(stored["ids"], stored["documents"]))
        return [Memory(text=doc, id=id_) for id_, doc in pairs]

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
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
