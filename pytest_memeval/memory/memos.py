"""`memos`: MemOS (the `MemoryOS` package, 2.0.33 or later), its textual memory on embedded Qdrant.

MemoryOS cannot be installed beside the plugin (it pins openai 1.x, transformers 4.x and
fastapi 0.115), and its API server needs a graph database (Neo4j, PolarDB or Postgres)
even for textual memory. So the adapter runs MemOS's own code, unchanged, in a process of
its own under the Python of MemOS's environment (`make memos-venv`, or the `python`
setting), and talks to it in JSON lines over stdin/stdout (memos_shim.py; memos_process.py
bounds every wait and stops the process on close).

One MemOS MemCube per namespace, its user and cube id the namespace's hashed name; its
textual memory is `GeneralTextMemory` on embedded Qdrant in this worker's directory.

- `extract` (default: whether an LLM is configured): each session goes to MemOS's extractor
  LLM (`GeneralTextMemory.extract`, MemOS's SIMPLE_STRUCT_MEM_READER_PROMPT), which answers
  with a JSON "memory list"; its values are the memories. An answer MemOS cannot read fails
  the session in one line that quotes it (a small model that cannot write MemOS's JSON makes
  every item an error, never a score of an empty memory). Timestamps are written before a
  message's text as MemOS's own prompt shows them ("user: [2023-05-07]: ...").
- without an LLM, every message is stored as one memory, as MemOS's `MOS.add` stores
  messages in a `general_text` cube.

Provenance (`keeps_sources`): each memory keeps the ids of its messages in MemOS's metadata
`info`: its own message's without extraction; with it, every message of the session it was
extracted from (MemOS's extractor reads the session whole and does not say which message a
memory came from), so `Memory.sources` is then at the session's grain.

Retrieval is MemOS's `GeneralTextMemory.search` (no scores are returned), with the run's
embedder served to MemOS on 127.0.0.1 (embedding_endpoint.py). The run's LLM endpoint
arrives as `llm_model`/`llm_base_url`/`llm_timeout`/`llm_max_retries`, like every other
LLM-driven adapter's; the key is $OPENAI_API_KEY, passed in the child's environment only.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..types import Memory, Message
from .embedders import Embedder
from .embedding_endpoint import EmbeddingEndpoint
from .memos_process import MemosProcess
from .resources import Resources

DEFAULT_PYTHON = ".memos-venv/bin/python"
INSTALL = (
    "make memos-venv in a pytest-memeval checkout, or python -m venv .memos-venv && "
    ".memos-venv/bin/pip install 'MemoryOS>=2.0.33' 'qdrant-client>=1.16,<2'"
)
#: an LLM endpoint that is never called: MemOS builds its extractor's client even when nothing is extracted
_NO_LLM = "http://127.0.0.1:9/v1"
#: what a call may take beyond its LLM calls: embedding, Qdrant, the shim
_OVERHEAD_S = 120.0


class MemosMemory:
    #: each memory names the messages it was made from (`Memory.sources`)
    keeps_sources = True

    def __init__(
        self,
        path: Path | None = None,
        embedder: Embedder | None = None,
        python: str = DEFAULT_PYTHON,
        extract: bool | None = None,
        llm_model: str | None = None,
        llm_base_url: str | None = None,
        llm_timeout: float = 60.0,
        llm_max_retries: int = 2,
        llm_max_tokens: int = 2000,
        llm_temperature: float = 0.0,
        timeout_s: float | None = None,
        startup_timeout_s: float = 180.0,
    ) -> None:
        """`python` is the interpreter of MemOS's environment. `timeout_s` bounds each call
        (default: the extractor's LLM time, `llm_timeout` times its attempts, plus 120 s)."""
        if path is None:
            raise ConfigError("memos: needs a path for its MemCubes")
        if embedder is None:
            raise ConfigError("memos: needs the run's embedder")
        self.extract = llm_model is not None if extract is None else extract
        #: its memories are the facts its extractor writes (protocols.rewrites_messages)
        self.rewrites_messages = self.extract
        if self.extract and llm_model is None:
            raise ConfigError("memos: extract = true needs an LLM (--memeval-base-url and a model, or llm_model)")
        if llm_max_tokens < 1:
            raise ConfigError(f"memos: llm_max_tokens must be at least 1, got {llm_max_tokens}")
        if llm_max_retries < 0 or llm_timeout <= 0 or startup_timeout_s <= 0:
            raise ConfigError("memos: llm_timeout and startup_timeout_s must be positive, llm_max_retries at least 0")
        if timeout_s is not None and timeout_s <= 0:
            raise ConfigError(f"memos: timeout_s must be positive, got {timeout_s}")
        if not (os.path.isfile(python) and os.access(python, os.X_OK)):
            raise ConfigError(f"memos: no MemOS environment: {python!r} is not a Python executable; {INSTALL}")
        python = os.path.abspath(python)  # MemOS runs in its store's directory; not resolved: a venv's python is a link
        llm_s = llm_timeout * (llm_max_retries + 1) if self.extract else 0.0
        self.timeout_s = timeout_s if timeout_s is not None else llm_s + _OVERHEAD_S
        self.path = Path(path)
        self._sessions: dict[str, list[int]] = {}
        self._closed = False
        self._endpoint = EmbeddingEndpoint(embedder)
        config = {
            "path": str(self.path / "store"),
            "extract": self.extract,
            "llm": {
                "model": llm_model or "unused",
                "base_url": (llm_base_url or "https://api.openai.com/v1") if self.extract else _NO_LLM,
                "timeout": llm_timeout,
                "max_retries": llm_max_retries,
                "max_tokens": llm_max_tokens,
                "temperature": llm_temperature,
            },
            "embedder": {"base_url": self._endpoint.base_url, "model": embedder.name, "dim": embedder.dim},
        }
        # MemOS's embedder gives each embeddings request 5 s unless told otherwise: the first
        # request of a run loads MiniLM, which takes longer on a loaded machine
        env = {"MOS_EMBEDDER_TIMEOUT": str(int(self.timeout_s))}
        self._process = MemosProcess(python, config, self.path / "memos.log", startup_timeout_s, env)
        self._start_failure: str | None = None
        try:
            self._running()
        except BaseException:
            self.close()
            raise

    @classmethod
    def from_memeval(cls, config: Mapping[str, Any], resources: Resources) -> MemosMemory:
        settings = dict(config)
        settings.setdefault("path", resources.workdir / "memos")
        settings["embedder"] = resources.embedder()
        return cls(**settings)

    @property
    def memos_version(self) -> str | None:
        """MemoryOS's version, as its process reports it."""
        return self._process.version

    @staticmethod
    def cube_id(namespace: str) -> str:
        """The MemOS user and cube of a namespace (any string: hashed to a safe name)."""
        return "ns-" + hashlib.sha256(namespace.encode()).hexdigest()[:32]

    def reset(self, namespace: str) -> None:
        self._call({"op": "reset", "namespace": self.cube_id(namespace)})
        self._sessions.pop(namespace, None)

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        messages = [
            {"role": m.role, "content": m.content, "timestamp": m.timestamp, "id": m.id}
            for m in session
            if m.content.strip()
        ]
        added = 0
        if messages:
            result = self._call({"op": "ingest", "namespace": self.cube_id(namespace), "messages": messages})
            added = int(result["added"])
        self._sessions.setdefault(namespace, []).append(added)

    def ingest_stats(self, namespace: str) -> dict[str, object]:
        """Since the last reset: the memories each ingested session added (what MemOS's
        extractor wrote, or the messages stored without extraction)."""
        return {"extract": self.extract, "added_per_session": list(self._sessions.get(namespace, []))}

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        if k < 1 or not query.strip():
            return []
        found = self._call({"op": "retrieve", "namespace": self.cube_id(namespace), "query": query, "k": k})
        return [_to_memory(hit) for hit in found[:k]]

    def dump(self, namespace: str) -> list[Memory] | None:
        return [_to_memory(hit) for hit in self._call({"op": "dump", "namespace": self.cube_id(namespace)})]

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self._process.stop()
        finally:
            self._endpoint.close()

    # -- helpers ------------------------------------------------------------------------------
    def _running(self) -> MemosProcess:
        """The MemOS process, started again after a call that stopped it; a start that failed
        once fails every later call with the same line."""
        if self._start_failure is not None:
            raise ConfigError(self._start_failure)
        if not self._process.running:
            try:
                self._process.start()
            except ConfigError as exc:
                self._start_failure = str(exc)
                raise
        return self._process

    def _call(self, request: dict[str, Any]) -> Any:
        if self._closed:
            raise ConfigError("memos: the adapter is closed")
        return self._running().call(request, self.timeout_s)


def _to_memory(hit: Mapping[str, Any]) -> Memory:
    sources = tuple(str(source) for source in hit.get("sources") or ())
    return Memory(text=str(hit["text"]), id=str(hit["id"]), metadata=dict(hit.get("metadata") or {}), sources=sources)
