"""An example memory system for pytest-memeval: SQLite FTS5 full-text search ranked by BM25.

Run a benchmark against it, or its conformance checks:

    PYTHONPATH=examples/sqlite_fts pytest --memsystem=fts_memory:FTSMemory
    PYTHONPATH=examples/sqlite_fts pytest --pyargs pytest_memeval.testing --memsystem=fts_memory:FTSMemory

Each namespace gets its own FTS5 table, so BM25's term statistics (and everything else)
are computed from that namespace alone.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_memeval import Memory, Message, Resources

_WORD = re.compile(r"\w+")


class FTSMemory:
    """Stores each non-blank message as one row; retrieves the k best BM25 matches."""

    def __init__(self, path: str = ":memory:", tokenizer: str = "unicode61") -> None:
        # check_same_thread=False: the plugin may build an adapter in one thread and use it in another.
        self._db = sqlite3.connect(path, check_same_thread=False)
        self.tokenizer = tokenizer

    @classmethod
    def from_memeval(cls, config: Mapping[str, Any], resources: Resources) -> FTSMemory:
        """How the plugin builds it: settings from --memeval-adapter-config, a private work directory."""
        settings = dict(config)
        settings.setdefault("path", str(resources.workdir / "fts.sqlite"))
        return cls(**settings)

    def reset(self, namespace: str) -> None:
        with self._db:
            self._db.execute(f"DROP TABLE IF EXISTS {_table(namespace)}")

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        rows = [(message.content,) for message in session if message.content.strip()]
        if not rows:
            return
        table = _table(namespace)
        tokenize = self.tokenizer.replace("'", "''")
        with self._db:
            self._db.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {table} USING fts5(text, tokenize='{tokenize}')")
            self._db.executemany(f"INSERT INTO {table} (text) VALUES (?)", rows)

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        words = _WORD.findall(query)
        if not words or not self._exists(namespace):
            return []
        # Quoted terms joined by OR: any word may match, and FTS5 syntax in the query is inert.
        match = " OR ".join('"' + word.replace('"', '""') + '"' for word in dict.fromkeys(words))
        table = _table(namespace)
        rows = self._db.execute(
            f"SELECT rowid, text, bm25({table}) FROM {table} WHERE {table} MATCH ? "
            f"ORDER BY bm25({table}), rowid LIMIT ?",
            (match, k),
        ).fetchall()
        # bm25() is lower-is-better; negated, higher scores rank first as the protocol expects.
        return [Memory(text=text, score=-rank, id=str(rowid)) for rowid, text, rank in rows]

    def dump(self, namespace: str) -> list[Memory] | None:
        if not self._exists(namespace):
            return []
        rows = self._db.execute(f"SELECT rowid, text FROM {_table(namespace)} ORDER BY rowid").fetchall()
        return [Memory(text=text, id=str(rowid)) for rowid, text in rows]

    def close(self) -> None:
        self._db.close()  # closing twice is harmless in sqlite3

    def _exists(self, namespace: str) -> bool:
        found = self._db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (_table(namespace),))
        return found.fetchone() is not None


def _table(namespace: str) -> str:
    """A safe SQL identifier for any namespace string."""
    return "ns_" + hashlib.sha256(namespace.encode()).hexdigest()[:32]
