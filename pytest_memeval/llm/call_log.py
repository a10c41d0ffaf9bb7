"""Which recorded calls a run used: the LLM cache keys and the embeddings each process
answered from its caches or added to them, so that a run bundle holds the calls of this
run alone, whatever else the cache files hold.

    log = CallLog(directory)          # one directory per run, shared by its processes
    log.llm(key)                      # an LLM call cache row the process read or wrote
    log.embedding(model, sha256_hex)  # an embedding it read or wrote
    used = read_call_log(directory)   # on the controller, once the workers are done

Each process appends to a file of its own (`<pid>.log`), one line per key, each line in one
`write` to a file opened for appending, so the threads of a process never tear a line. A
key is written once per `CallLog`; the file stays open for the life of the process.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

_LLM = "llm"
_EMBEDDING = "embedding"


@dataclass(frozen=True)
class UsedCalls:
    """The keys of the calls a run used."""

    llm: frozenset[str] = frozenset()
    #: (embedding model, sha256 of the text in hex)
    embeddings: frozenset[tuple[str, str]] = frozenset()


class CallLog:
    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self._path = self.directory / f"{os.getpid()}.log"
        self._seen: set[str] = set()
        self._lock = threading.Lock()
        self._descriptor: int | None = None

    def llm(self, key: str) -> None:
        self._append(f"{_LLM}\t{key}")

    def embedding(self, model: str, text_sha256: str) -> None:
        self._append(f"{_EMBEDDING}\t{model}\t{text_sha256}")

    def _append(self, line: str) -> None:
        with self._lock:
            if line in self._seen:
                return
            self._seen.add(line)
            if self._descriptor is None:
                self._descriptor = os.open(self._path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            os.write(self._descriptor, f"{line}\n".encode())


def read_call_log(directory: Path) -> UsedCalls:
    """Every key the run's processes logged in `directory` (a torn last line, from a process
    killed while writing it, is left out)."""
    llm: set[str] = set()
    embeddings: set[tuple[str, str]] = set()
    for path in sorted(Path(directory).glob("*.log")):
        for line in path.read_text(encoding="utf-8").split("\n")[:-1]:
            kind, _, rest = line.partition("\t")
            if kind == _LLM:
                llm.add(rest)
            elif kind == _EMBEDDING:
                model, _, text_sha256 = rest.rpartition("\t")
                embeddings.add((model, text_sha256))
    return UsedCalls(frozenset(llm), frozenset(embeddings))
