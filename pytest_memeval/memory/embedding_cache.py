"""An on-disk cache of embeddings keyed by (model, text), shared by concurrent xdist workers.

SQLite in WAL mode lets several processes read while one writes; each batch of new
vectors is one transaction, so a killed run keeps every batch it finished.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..files.sqlite_wal import switch_to_wal
from .embedders import Embedder

_SCHEMA = """
CREATE TABLE IF NOT EXISTS embeddings (
    model TEXT NOT NULL,
    text_sha256 BLOB NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (model, text_sha256)
) WITHOUT ROWID
"""


class CachedEmbedder:
    """Wraps an embedder; only texts never seen with this model are embedded."""

    def __init__(self, inner: Embedder, path: Path) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, timeout=60, check_same_thread=False)
        switch_to_wal(self._db)
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(_SCHEMA)
        self._db.commit()
        # One connection is shared by the threads of a worker (prefetching); sqlite3
        # connections must not be used by two threads at once.
        self._lock = threading.Lock()
        self.misses = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            return self._embed(texts)

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [hashlib.sha256(text.encode()).digest() for text in texts]
        found = self._lookup(set(keys))
        missing = sorted({key: text for key, text in zip(keys, texts) if key not in found}.items())
        if missing:
            vectors = self.inner.embed([text for _, text in missing])
            rows = [
                (self.name, key, np.asarray(vector, dtype=np.float32).tobytes())
                for (key, _), vector in zip(missing, vectors)
            ]
            with self._db:
                self._db.executemany("INSERT OR IGNORE INTO embeddings VALUES (?, ?, ?)", rows)
            self.misses += len(missing)
            found.update({key: row[2] for key, row in zip((k for k, _ in missing), rows)})
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for row, key in enumerate(keys):
            out[row] = np.frombuffer(found[key], dtype=np.float32)
        return out

    def _lookup(self, keys: set[bytes]) -> dict[bytes, bytes]:
        found: dict[bytes, bytes] = {}
        ordered = list(keys)
        for start in range(0, len(ordered), 500):
            batch = ordered[start : start + 500]
            marks = ",".join("?" * len(batch))
            cursor = self._db.execute(
                f"SELECT text_sha256, vector FROM embeddings WHERE model = ? AND text_sha256 IN ({marks})",
                [self.name, *batch],
            )
            found.update(cursor.fetchall())
        return found

    def close(self) -> None:
        with self._lock:
            self._db.close()
