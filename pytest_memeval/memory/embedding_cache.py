"""An on-disk cache of embeddings keyed by (model, text), shared by concurrent xdist workers.

SQLite in WAL mode lets several processes read while one writes; each batch of new
vectors is one transaction, so a killed run keeps every batch it finished. With a call log
(llm/call_log.py), every (model, text) embedded or read is logged: a run bundle holds those
vectors alone (`embedding_rows`), and its replay puts them in a cache of its own
(`store_embedding_rows`), so a verified rerun never embeds anything.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from ..files.sqlite_wal import switch_to_wal
from ..llm.call_log import CallLog
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

    def __init__(self, inner: Embedder, path: Path, log: CallLog | None = None) -> None:
        self.inner = inner
        self._log = log
        self.name = inner.name
        self.dim = inner.dim
        self.path = path
        self._db = _open(path)
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
        if self._log is not None:
            for key in keys:
                self._log.embedding(self.name, key.hex())
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


#: one cached embedding: the model, the sha256 of the text (hex) and the float32 vector's bytes
EmbeddingRow = tuple[str, str, bytes]


def embedding_rows(path: Path, wanted: Iterable[tuple[str, str]]) -> list[EmbeddingRow]:
    """The cached vectors of (model, text sha256 in hex) pairs that `path` holds, sorted."""
    db = _open(path)
    found: list[EmbeddingRow] = []
    try:
        for model, text_sha256 in sorted(set(wanted)):
            row = db.execute(
                "SELECT vector FROM embeddings WHERE model = ? AND text_sha256 = ?", (model, bytes.fromhex(text_sha256))
            ).fetchone()
            if row is not None:
                found.append((model, text_sha256, bytes(row[0])))
    finally:
        db.close()
    return found


def store_embedding_rows(path: Path, rows: Iterable[EmbeddingRow]) -> None:
    """Put vectors into the embedding cache at `path` (created when missing)."""
    db = _open(path)
    try:
        with db:
            db.executemany(
                "INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?)",
                [(model, bytes.fromhex(text_sha256), vector) for model, text_sha256, vector in rows],
            )
    finally:
        db.close()


def _open(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, timeout=60, check_same_thread=False)
    switch_to_wal(db)
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute(_SCHEMA)
    db.commit()
    return db
