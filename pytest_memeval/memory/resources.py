"""What the plugin hands adapters: a private work directory and the run's embedder.

Nothing here leads to gold: the work directory is made for one memory system in one
process and holds only what the adapter writes; the embedder hides where its cache lives
(the cache directory also holds generated benchmark data).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..config.settings import DEFAULT_EMBEDDING_BATCH
from ..llm.call_log import CallLog
from .embedders import Embedder, Loading, make_embedder
from .embedding_cache import CachedEmbedder

#: the embedding cache's file in the run's cache directory
EMBEDDINGS_FILE = "embeddings.sqlite"


class LazyEmbedder:
    """The run's embedder behind the on-disk embedding cache, created on first use; the
    minilm weights load on the first cache miss, so a fully cached run never loads them."""

    def __init__(
        self,
        name: str,
        cache_dir: Path,
        batch_size: int = DEFAULT_EMBEDDING_BATCH,
        loading: Loading | None = None,
        call_log: Path | None = None,
    ) -> None:
        self.name = name
        self.batch_size = batch_size
        self._cache_file = cache_dir / EMBEDDINGS_FILE
        self._embedder: CachedEmbedder | None = None
        self._loading = loading
        self._call_log = call_log

    def get(self) -> Embedder:
        if self._embedder is None:
            log = CallLog(self._call_log) if self._call_log is not None else None
            self._embedder = CachedEmbedder(
                make_embedder(self.name, self.batch_size, self._loading), self._cache_file, log
            )
        return self._embedder

    def close(self) -> None:
        if self._embedder is not None:
            self._embedder.close()
            self._embedder = None


class Resources:
    """One per memory system and process (xdist worker)."""

    def __init__(self, workdir: Path, embedder: Callable[[], Embedder], embedder_name: str) -> None:
        self.workdir = workdir
        self.embedder_name = embedder_name
        self._embedder = embedder

    def embedder(self) -> Embedder:
        """The run's embedder, shared by the memory systems of this process."""
        return self._embedder()
