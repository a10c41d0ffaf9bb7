"""`letta`: Letta agents through the official client (`pip install "pytest-memeval[letta]"`).

One agent per namespace. Two ways to use it, chosen with `mode`:

- `archival` (default, the Beyond Recall main study): every message of a session becomes one
  archival passage (a message longer than `passage_tokens` is split), tagged with the
  message's id (`memeval-source:<id>`), and retrieve is Letta's archival search, top k, each
  passage naming its message in `Memory.sources` (`keeps_sources`). No LLM call is made on
  this path.
- `agent` (the stateful-agent case study): every session is sent to the agent as one user
  message; the agent edits its memory blocks with its own tools, through the run's LLM.
  Retrieve returns the blocks named in `blocks` whatever k is, as the paper served them; a
  block is what the agent wrote from every session, so it names no source messages.

Without `base_url` the adapter starts a Letta server of its own on 127.0.0.1 (SQLite in
this worker's directory; see letta_server.py for installing it) and stops it on close.
With `base_url` it uses that server (a shared one, or Letta's hosted service with
`api_key` and model handles); each adapter instance names its agents with a token of its
own and deletes them, with their passages, on close.

Embeddings: unless `embedding_base_url` or `embedding_handle` is given, the run's own
embedder (MiniLM by default) is served on 127.0.0.1 for the Letta server to call.

The run's LLM endpoint arrives as `llm_model`/`llm_base_url` (the agent's model);
`llm_timeout` becomes the launched server's LLM timeout; `llm_max_retries` is accepted
with them but retries of the agent's LLM calls are Letta's own.
"""

from __future__ import annotations

import hashlib
import os
import re
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..errors import ConfigError
from ..types import Memory, Message
from .chunking import chunk_messages, split_at_spaces
from .embedders import Embedder
from .embedding_endpoint import EmbeddingEndpoint
from .letta_server import LettaServer
from .resources import Resources

MODES = ("archival", "agent")
#: where a Letta agent is told it is a memory, in `agent` mode
PERSONA = "I am a memory agent. I keep what I learn about the user in my human memory block."
#: an LLM endpoint that is never called: archival insert and search need no LLM
_NO_LLM = "http://127.0.0.1:9/v1"
_PAGE = 100
#: Letta's archival search is a GET: a query is cut to this many characters to fit in a URL
#: (an embedder reads far less: MiniLM stops at 256 word pieces)
QUERY_CHARS = 4000
_LABEL = re.compile(r"^[A-Za-z0-9_-]+$")
#: the prefix of a passage's tag that names the message it holds (archival mode)
SOURCE_TAG = "memeval-source:"
_LOOPBACK = ("127.0.0.1", "localhost", "::1")
#: start-up failures of this process, by command: a server that did not start is not retried per item
_FAILED_STARTS: dict[str, str] = {}


class LettaMemory:
    def __init__(
        self,
        path: Path | None = None,
        embedder: Embedder | None = None,
        mode: str = "archival",
        base_url: str | None = None,
        api_key: str | None = None,
        server_command: str = "letta",
        startup_timeout_s: float = 180.0,
        timeout_s: float = 120.0,
        llm_model: str | None = None,
        llm_base_url: str | None = None,
        llm_timeout: float = 60.0,
        llm_max_retries: int = 2,
        llm_handle: str | None = None,
        context_window: int = 8192,
        embedding_base_url: str | None = None,
        embedding_model: str | None = None,
        embedding_dim: int | None = None,
        embedding_handle: str | None = None,
        blocks: str = "human",
        passage_tokens: int = 1000,
        agent_prefix: str = "memeval-",
    ) -> None:
        if mode not in MODES:
            raise ConfigError(f"letta: mode must be one of {', '.join(MODES)}, got {mode!r}")
        if mode == "agent" and llm_model is None and llm_handle is None:
            raise ConfigError("letta: mode = 'agent' needs an LLM (--memeval-base-url and a model, or llm_handle)")
        if passage_tokens < 1:
            raise ConfigError(f"letta: passage_tokens must be at least 1, got {passage_tokens}")
        labels = [label.strip() for label in blocks.split(",") if label.strip()]
        if not labels or not all(_LABEL.match(label) for label in labels):
            raise ConfigError(f"letta: blocks must be comma-separated block labels, got {blocks!r}")
        if not re.fullmatch(r"[A-Za-z0-9._-]{0,100}", agent_prefix):
            raise ConfigError(f"letta: agent_prefix {agent_prefix!r}: use letters, digits, '.', '_' or '-'")
        self.mode = mode
        #: the stateful agent returns its blocks whatever k is (the conformance kit reads this)
        self.honours_k = mode == "archival"
        #: an agent's memory blocks are what it wrote (protocols.rewrites_messages)
        self.rewrites_messages = mode == "agent"
        #: an archival passage names the message it holds (its tag); a block names none
        self.keeps_sources = mode == "archival"
        self.labels = labels
        self.passage_tokens = passage_tokens
        self.prefix = f"{agent_prefix}{uuid.uuid4().hex[:8]}-"
        self._agents: dict[str, str] = {}
        self._server: LettaServer | None = None
        self._endpoint: EmbeddingEndpoint | None = None
        self._closed = False
        try:
            if base_url is None:
                # Letta calls the LLM itself (agent mode), with a server-wide timeout Letta bounds to 10-1800 s
                timeout_env = {"LETTA_LLM_REQUEST_TIMEOUT_SECONDS": str(min(1800.0, max(10.0, llm_timeout)))}
                self._server = _start_server(server_command, path, startup_timeout_s, timeout_env)
                base_url = self._server.base_url
            self._llm = _llm_settings(llm_handle, llm_model, llm_base_url, context_window)
            self._embedding = self._embedding_settings(
                embedder, embedding_base_url, embedding_model, embedding_dim, embedding_handle
            )
            from letta_client import Letta

            token = api_key or os.environ.get("LETTA_API_KEY")
            self._client = Letta(base_url=base_url, api_key=token, timeout=timeout_s, max_retries=2)
        except BaseException:
            self.close()
            raise

    @classmethod
    def llm_outside_gateway(cls, settings: Mapping[str, Any]) -> str | None:
        """Why the agent's LLM calls cannot go through the run's gateway with these settings
        (None: they can, through `llm_base_url`)."""
        if settings.get("llm_handle"):
            return (
                f"letta: llm_handle {settings['llm_handle']!r} is a model of the Letta server's own providers; "
                "its calls bypass the run's LLM gateway (not recorded, replayed or counted)"
            )
        base_url = settings.get("base_url")
        if base_url and settings.get("mode") == "agent" and urlsplit(str(base_url)).hostname not in _LOOPBACK:
            return (
                f"letta: the Letta server at {urlsplit(str(base_url)).hostname} cannot reach the run's loopback LLM "
                "gateway; give it llm_handle (its calls are then not recorded, replayed or counted)"
            )
        return None

    @classmethod
    def from_memeval(cls, config: Mapping[str, Any], resources: Resources) -> LettaMemory:
        settings = dict(config)
        settings.setdefault("path", resources.workdir / "letta")
        if settings.get("embedding_base_url") is None and settings.get("embedding_handle") is None:
            settings["embedder"] = resources.embedder()
        return cls(**settings)

    def agent_name(self, namespace: str) -> str:
        return self.prefix + hashlib.sha256(namespace.encode()).hexdigest()[:32]

    def reset(self, namespace: str) -> None:
        agent_id = self._agents.pop(namespace, None)
        if agent_id is not None:
            self._delete_agent(agent_id)

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        if self.mode == "archival":
            passages = [
                (piece, [SOURCE_TAG + chunk.source] if chunk.source else [])
                for chunk in chunk_messages(session, self.passage_tokens)
                for piece in split_at_spaces(chunk.text, self.passage_tokens)
            ]
            if passages:
                from letta_client import omit

                agent_id = self._agent(namespace)
                for text, tags in passages:  # a message without an id: no tags (omitted, as before)
                    self._client.agents.passages.create(agent_id, text=text, tags=tags or omit)
            return
        text = "\n".join(f"{m.role}: {m.content.strip()}" for m in session if m.content.strip())
        if text:
            self._client.agents.messages.create(self._agent(namespace), messages=[{"role": "user", "content": text}])

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        agent_id = self._agents.get(namespace)
        if agent_id is None:
            return []
        if self.mode == "agent":
            return self._blocks(agent_id)
        if k < 1 or not query.strip():
            return []
        found = self._client.agents.passages.search(agent_id, query=query[:QUERY_CHARS], top_k=k)
        return [
            Memory(
                text=hit.content,
                id=getattr(hit, "id", None),
                metadata={"timestamp": hit.timestamp},
                sources=tuple(t.removeprefix(SOURCE_TAG) for t in hit.tags or () if t.startswith(SOURCE_TAG)),
            )
            for hit in found.results[:k]
        ]

    def dump(self, namespace: str) -> list[Memory] | None:
        agent_id = self._agents.get(namespace)
        if agent_id is None:
            return []
        if self.mode == "agent":
            return self._blocks(agent_id)
        return [Memory(text=passage.text, id=passage.id) for passage in self._passages(agent_id)]

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            if getattr(self, "_client", None) is not None:
                for agent_id in list(self._agents.values()):  # leave a shared server as we found it
                    self._delete_agent(agent_id)
                self._agents.clear()
                self._client.close()
        finally:
            if self._endpoint is not None:
                self._endpoint.close()
            if self._server is not None:
                self._server.stop()

    # -- helpers -----------------------------------------------------------------------------
    def _agent(self, namespace: str) -> str:
        if namespace not in self._agents:
            agent = self._client.agents.create(
                name=self.agent_name(namespace),
                memory_blocks=[{"label": "human", "value": ""}, {"label": "persona", "value": PERSONA}]
                if self.mode == "agent"
                else [],
                include_base_tools=self.mode == "agent",
                **self._llm,
                **self._embedding,
            )
            self._agents[namespace] = agent.id
        return self._agents[namespace]

    def _delete_agent(self, agent_id: str) -> None:
        # Deleting an agent leaves its archival passages behind (Letta keeps archives apart
        # from agents), so they go first.
        for passage in self._passages(agent_id):
            self._client.agents.passages.delete(passage.id, agent_id=agent_id)
        self._client.agents.delete(agent_id)

    def _passages(self, agent_id: str) -> list[Any]:
        listed: list[Any] = []
        after: str | None = None
        while True:
            page = self._client.agents.passages.list(agent_id, limit=_PAGE, ascending=True, after=after)
            listed.extend(page)
            if len(page) < _PAGE:
                return listed
            after = page[-1].id

    def _blocks(self, agent_id: str) -> list[Memory]:
        agent = self._client.agents.retrieve(agent_id)
        blocks = {block.label: block.value for block in agent.memory.blocks}
        return [Memory(text=blocks[label], id=label) for label in self.labels if blocks.get(label, "").strip()]

    def _embedding_settings(
        self,
        embedder: Embedder | None,
        base_url: str | None,
        model: str | None,
        dim: int | None,
        handle: str | None,
    ) -> dict[str, Any]:
        if handle is not None:
            return {"embedding": handle}
        if base_url is None:
            if embedder is None:
                raise ConfigError(
                    "letta: no embedder: set embedding_base_url (with embedding_model, embedding_dim) or embedding_handle"
                )
            self._endpoint = EmbeddingEndpoint(embedder)
            base_url, model, dim = self._endpoint.base_url, embedder.name, embedder.dim
        if model is None or dim is None:
            raise ConfigError("letta: embedding_base_url needs embedding_model and embedding_dim")
        config = {
            "embedding_endpoint_type": "openai",
            "embedding_endpoint": base_url,
            "embedding_model": model,
            "embedding_dim": dim,
            "embedding_chunk_size": self.passage_tokens,
        }
        return {"embedding_config": config}


def _start_server(command: str, path: Path | None, startup_timeout_s: float, env: dict[str, str]) -> LettaServer:
    if command in _FAILED_STARTS:
        raise ConfigError(_FAILED_STARTS[command])
    if path is None:
        raise ConfigError("letta: set base_url, or give a path where the adapter's own Letta server keeps its data")
    try:
        return LettaServer(command, Path(path) / f"server-{uuid.uuid4().hex[:8]}", startup_timeout_s, env).start()
    except ConfigError as exc:
        _FAILED_STARTS[command] = str(exc)
        raise


def _llm_settings(handle: str | None, model: str | None, base_url: str | None, context_window: int) -> dict[str, Any]:
    if handle is not None:
        return {"model": handle}
    config = {
        "model": model or "unused",
        "model_endpoint_type": "openai",
        "model_endpoint": (base_url or "https://api.openai.com/v1") if model else _NO_LLM,
        "context_window": context_window,
    }
    return {"llm_config": config}
