"""A content-addressed cache of model calls in one SQLite file, shared by xdist workers.

One row per request key (see `ChatRequest.key`), holding the request as JSON (for review
in a diff of a committed cache; it never contains the API key, which is not part of a
request) and the completion as JSON. The gateway's exchanges (a memory system's own
calls, see exchanges.py) are rows of the same table: the request body as the system sent
it, under its own key, and the endpoint's whole response. WAL mode lets workers read while one writes; every
entry is its own transaction, so a run killed with SIGKILL keeps every entry it finished
and leaves a valid file. synchronous=NORMAL is enough for that: in WAL mode a committed
transaction is in the OS's hands once `put` returns; only a power cut could lose the last
few entries, never corrupt the file. The WAL is checkpointed into the main file after every
entry and again on close, so `fixtures/<name>.sqlite` alone can be committed (ignore the
-wal and -shm files), even after a run that was killed.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..config.llm_settings import LLMSettings
from ..errors import ConfigError
from ..files.sqlite_wal import switch_to_wal
from .call_log import CallLog
from .calls import KEY_FORMAT, ChatRequest, Completion

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS calls (
        key TEXT PRIMARY KEY,
        model TEXT NOT NULL,
        template TEXT NOT NULL,
        request TEXT NOT NULL,
        completion TEXT NOT NULL
    ) WITHOUT ROWID""",
    "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
)
_BUSY_TIMEOUT_S = 60.0


#: one row of the cache: key, model, template (or a gateway exchange's label), request, completion
CallRow = tuple[str, str, str, str, str]


class CallCache:
    """Thread-safe within a process (one connection behind a lock), process-safe through SQLite.
    With a `log`, every key read from the cache or written to it is logged (a run bundle
    holds those rows alone)."""

    def __init__(self, path: Path, *, readonly: bool = False, log: CallLog | None = None) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self._log = log
        if readonly and not self.path.is_file():
            raise ConfigError(f"LLM cache {self.path} does not exist (replay needs a recorded cache)")
        if not readonly:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._closed = False
        try:
            self._db = sqlite3.connect(
                self.path, timeout=_BUSY_TIMEOUT_S, check_same_thread=False, isolation_level=None
            )
        except sqlite3.Error as exc:
            raise ConfigError(f"LLM cache {self.path} cannot be opened: {exc}") from None
        try:
            if readonly:
                self._db.execute("PRAGMA query_only=ON")
                self._check_format()
            else:
                switch_to_wal(self._db, _BUSY_TIMEOUT_S)
                self._db.execute("PRAGMA synchronous=NORMAL")
                # merge the WAL into the main file after every entry: a killed run leaves a main
                # file that holds every finished entry, so committing the .sqlite alone is enough
                self._db.execute("PRAGMA wal_autocheckpoint=1")
                with self._transaction():
                    for statement in _SCHEMA:
                        self._db.execute(statement)
                    self._db.execute("INSERT OR IGNORE INTO meta VALUES ('key_format', ?)", (str(KEY_FORMAT),))
                self._check_format()
        except sqlite3.DatabaseError as exc:
            message = f"LLM cache {self.path} is not a usable SQLite cache: {exc}"
        else:
            return
        self._db.close()
        raise ConfigError(message)

    @classmethod
    def for_settings(cls, settings: LLMSettings) -> CallCache:
        """The cache file of `settings` (whose cache mode is not off), read-only in replay,
        logging the keys it uses when the settings name a call log."""
        assert settings.cache_path is not None  # LLMSettings checks it
        log = CallLog(settings.call_log) if settings.call_log is not None else None
        return cls(settings.cache_path, readonly=settings.cache_mode == "replay", log=log)

    def __repr__(self) -> str:
        return f"CallCache({str(self.path)!r}, readonly={self.readonly})"

    def get(self, key: str) -> Completion | None:
        with self._lock:
            row = self._db.execute("SELECT completion FROM calls WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        self._used(key)
        return Completion.from_json(json.loads(row[0]), cached=True)

    def put(
        self, request: ChatRequest, completion: Completion, key: str | None = None, *, replace: bool = False
    ) -> None:
        """Store one completion; the first writer of a key wins (a concurrent twin is ignored),
        unless `replace` (a failed answer stored by an older version is being answered anew)."""
        if self.readonly:
            raise RuntimeError("this LLM cache was opened read-only (replay)")
        row = (
            key or request.key(),
            request.model,
            request.template,
            json.dumps(request.canonical(), sort_keys=True, ensure_ascii=False),
            json.dumps(completion.to_json(), sort_keys=True, ensure_ascii=False),
        )
        with self._lock, self._transaction():
            self._db.execute(f"INSERT OR {'REPLACE' if replace else 'IGNORE'} INTO calls VALUES (?, ?, ?, ?, ?)", row)
        self._used(row[0])

    def get_exchange(self, key: str) -> tuple[str, str] | None:
        """(request, response) of a recorded gateway exchange, both as the JSON text stored."""
        with self._lock:
            row = self._db.execute("SELECT request, completion FROM calls WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        self._used(key)
        return str(row[0]), str(row[1])

    def put_exchange(self, key: str, model: str, label: str, request: str, response: str) -> None:
        """Store one gateway exchange (JSON texts); the first writer of a key wins."""
        if self.readonly:
            raise RuntimeError("this LLM cache was opened read-only (replay)")
        with self._lock, self._transaction():
            self._db.execute(
                "INSERT OR IGNORE INTO calls VALUES (?, ?, ?, ?, ?)", (key, model, label, request, response)
            )
        self._used(key)

    def rows(self, keys: Iterable[str]) -> list[CallRow]:
        """The rows of `keys` that the cache holds, by key."""
        wanted = sorted(set(keys))
        found: list[CallRow] = []
        with self._lock:
            for start in range(0, len(wanted), 500):
                batch = wanted[start : start + 500]
                found += self._db.execute(
                    f"SELECT key, model, template, request, completion FROM calls WHERE key IN ({','.join('?' * len(batch))})",
                    batch,
                ).fetchall()
        return sorted(found)

    def put_rows(self, rows: Iterable[CallRow]) -> None:
        """Store rows as another cache holds them (a run bundle's recording), in one transaction."""
        if self.readonly:
            raise RuntimeError("this LLM cache was opened read-only (replay)")
        with self._lock, self._transaction():
            self._db.executemany("INSERT OR REPLACE INTO calls VALUES (?, ?, ?, ?, ?)", list(rows))

    def _used(self, key: str) -> None:
        if self._log is not None:
            self._log.llm(key)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return self._db.execute("SELECT 1 FROM calls WHERE key = ?", (key,)).fetchone() is not None

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM calls").fetchone()[0])

    def keys(self) -> Iterator[str]:
        with self._lock:
            rows = self._db.execute("SELECT key FROM calls ORDER BY key").fetchall()
        return iter(row[0] for row in rows)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if not self.readonly:
                try:
                    self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                except sqlite3.OperationalError:
                    pass  # another process is busy with it; the last one to close checkpoints
            self._db.close()

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)

    def _check_format(self) -> None:
        try:
            row = self._db.execute("SELECT value FROM meta WHERE name = 'key_format'").fetchone()
        except sqlite3.OperationalError:
            row = None
        if row is None or row[0] != str(KEY_FORMAT):
            found = "none" if row is None else row[0]
            raise sqlite3.DatabaseError(f"key format {found}, expected {KEY_FORMAT}")


SQLITE_HEADER = b"SQLite format 3\x00"


def check_cache_file(option: str, path: Path, mode: str) -> str | None:
    """Open an existing LLM cache file now (on the controller, before any worker) and check
    that it is one: an SQLite database whose `calls` and `meta` tables this version reads,
    with our key format, that SQLite's quick_check finds intact. A file that fails is a
    ConfigError (one line) when it holds recorded answers or the run only replays; a
    damaged file with nothing readable in it is moved aside (kept as
    <name>.corrupt-<time>) and rebuilt, and the warning is returned. A missing or empty
    file is fine: the run creates it."""
    if not path.exists() or path.stat().st_size == 0:
        return None
    try:
        with open(path, "rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise ConfigError(f"{option}: cannot read {path}: {exc.strerror or exc}") from None
    if header != SQLITE_HEADER:
        raise ConfigError(f"{option}: {path} is not an SQLite database")
    problem, entries, unreadable = _inspect(path)
    if problem is None:
        return None
    if mode == "replay" or not unreadable:
        held = f" holding {entries} recorded answers" if entries else ""
        raise ConfigError(f"{option}: {path}{held} {problem}")
    aside = path.with_name(f"{path.name}.corrupt-{int(time.time())}")
    path.replace(aside)
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return (
        f"memeval: the LLM cache {path} {problem} and held no readable answers; moved to {aside.name}, starting afresh"
    )


def _inspect(path: Path) -> tuple[str | None, int, bool]:
    """(what is wrong, or None; how many entries can be read; whether nothing can be read)."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        return f"cannot be opened ({exc})", 0, False
    try:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        entries = int(db.execute("SELECT count(*) FROM calls").fetchone()[0]) if "calls" in tables else 0
        if tables and not {"calls", "meta"} <= tables:
            return f"is an SQLite database but not an LLM cache (tables: {', '.join(sorted(tables))})", entries, False
        if "meta" in tables:
            row = db.execute("SELECT value FROM meta WHERE name = 'key_format'").fetchone()
            if row is None or row[0] != str(KEY_FORMAT):
                found = "none" if row is None else row[0]
                return (
                    f"was recorded with key format {found}; this version reads {KEY_FORMAT} "
                    "(record a new cache file, or use the version that recorded it)",
                    entries,
                    False,
                )
        check = db.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            return f"is damaged (SQLite quick_check: {check})", entries, entries == 0
        return None, entries, False
    except sqlite3.DatabaseError as exc:
        return f"is damaged ({exc})", 0, True
    finally:
        db.close()


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT: takes the write lock up front, so busy_timeout applies."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        self._db.execute("ROLLBACK" if exc_type is not None else "COMMIT")
