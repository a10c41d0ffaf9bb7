"""Switching a shared SQLite cache file to WAL journaling, safely under xdist.

Two workers opening a new cache file at once both try to switch it to WAL, and the loser
gets "database is locked" at once: SQLite's busy timeout does not cover this pragma, so it
is retried here until `budget_s` has passed. Used by the embedding cache and the LLM cache.
"""

from __future__ import annotations

import sqlite3
import time


def switch_to_wal(db: sqlite3.Connection, budget_s: float = 60.0) -> None:
    deadline = time.monotonic() + budget_s
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)
