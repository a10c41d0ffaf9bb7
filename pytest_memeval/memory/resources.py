"""What the plugin hands built-in adapters: a private work directory and a shared embedder."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .embedders import Embedder, make_embedder
from .embedding_cache import CachedEmbedder


@dataclass
class Resources:
    """One per process: `workdir` is private to this xdist worker; the cache dir is shared."""

    workdir: Path
    embedder_name: str
    cache_dir: Path
    _embedder: Embedder | None = field(default=None, repr=False)

    def embedder(self) -> Embedder:
        """The run's embedder behind the on-disk embedding cache, created on first use."""
        if self._embedder is None:
            inner = make_embedder(self.embedder_name)
            self._embedder = CachedEmbedder(inner, self.cache_dir / "embeddings.sqlite")
        return self._embedder
