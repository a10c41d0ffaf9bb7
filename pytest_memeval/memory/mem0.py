"""`mem0`: the mem0 2.x open-source `Memory`, local by default.

Each namespace is a mem0 user. Everything lives in one chroma collection (embedded in
this worker's private directory, or on a chroma server: then one collection per worker,
deleted on close, so workers never share data), embeddings come from the bundled
all-MiniLM-L6-v2 through mem0's `huggingface` embedder, and mem0's history is SQLite in
the same directory.

Without an LLM (`llm_model` unset) sessions are stored message by message (`infer=False`);
with one, mem0 extracts facts through an OpenAI-compatible endpoint (`infer=True`).
`ingest_stats(namespace)` says what each ingested session did to the store (mem0's ADD,
UPDATE and DELETE events), so a record shows how many memories extraction produced.

Provenance (`keeps_sources`): mem0 keeps the metadata of an `add` call on every memory it
makes there and returns it on search. Without an LLM each message is added by a call of its
own, so a memory names its one message; with extraction a session is one call, and every fact
mem0 extracted from it names all the session's messages (`Memory.sources` at the session's
grain: mem0 does not say which message a fact came from).

Small local models: mem0 2.x's extraction system prompt is about 8,900 tokens, more than
SmolLM2's window, and mem0 2.x has no setting to replace it (custom_instructions only adds
to the user message). `extraction_prompt = "compact"` swaps that one system message for
COMPACT_EXTRACTION_PROMPT (ours, about 200 tokens, asking for the same output
{"memory": [{"id", "text"}]}); any other string is used as the system message verbatim.
`extraction_schema = true` adds that output's JSON schema to mem0's json_object request
in llama-cpp-python's form ({"type": "json_object", "schema": ...}), so decoding is
constrained to what mem0 parses. `llm_max_tokens` bounds each extraction's answer.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import uuid
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..types import Memory, Message
from .chroma import _bound_http_timeout
from .embedders import minilm_path
from .resources import Resources

_COLLECTION_NAME = re.compile(r"^[A-Za-z0-9._-]{3,512}$")
# mem0 rejects user ids with whitespace; longer or odd namespaces are hashed instead.
_SAFE_USER_ID = re.compile(r"^[A-Za-z0-9._:@-]{1,128}$")
CHROMA_TIMEOUT_S = 300.0
#: mem0's get_all has no paging; a namespace holding more than this cannot be dumped whole
DUMP_LIMIT = 100_000
#: the metadata key of the ids of the messages an add call stored (a JSON list: the vector
#: stores take scalars only)
SOURCES_KEY = "memeval_sources"
COMPACT_EXTRACTION_PROMPT = """You extract memories from a conversation for a memory store.
Read the New Messages (the Existing Memories are already stored). Write each new, specific
fact, preference, plan, event or detail about the user or the people they mention as one
self-contained sentence: name the person, keep numbers, dates, times, places and conditions
exactly as stated. One memory per distinct fact; skip greetings, small talk and anything
already in Existing Memories.
Answer with a JSON object and nothing else: {"memory": [{"id": "0", "text": "<memory>"},
{"id": "1", "text": "<memory>"}]}, numbering ids from "0"; {"memory": []} when there is
nothing new."""
EXTRACTION_SCHEMA = {
    "type": "object",
    "properties": {
        "memory": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "text": {"type": "string"}},
                "required": ["id", "text"],
            },
        }
    },
    "required": ["memory"],
}


class Mem0Memory:
    #: each memory names the messages of the add call that made it (`Memory.sources`)
    keeps_sources = True

    def __init__(
        self,
        path: Path | None = None,
        infer: bool | None = None,
        llm_base_url: str | None = None,
        llm_model: str | None = None,
        llm_timeout: float = 60.0,
        llm_max_retries: int = 2,
        top_k: int | None = None,
        threshold: float = 0.0,
        collection_prefix: str = "memeval-",
        vector_store: str = "chroma",
        vector_store_config: dict[str, Any] | None = None,
        chroma_host: str | None = None,
        chroma_port: int = 8000,
        embedder_model: str | None = None,
        llm_max_tokens: int = 2000,
        extraction_prompt: str | None = None,
        extraction_schema: bool = False,
    ) -> None:
        """`path` holds the local stores; `infer` defaults to whether an LLM is configured.

        `top_k` caps results below the plugin's k; `threshold` is mem0's minimum semantic
        score (mem0 defaults to 0.1; 0.0 keeps the k nearest, like the chroma adapter).
        `vector_store_config` is passed to mem0 as is for a provider other than chroma
        (e.g. qdrant: {path = "...", embedding_model_dims = 384}).
        """
        if path is None:
            raise ValueError("mem0 needs a path for its local history (and embedded chroma)")
        self.infer = llm_model is not None if infer is None else infer
        #: with infer, its memories are the facts its LLM extracts (protocols.rewrites_messages)
        self.rewrites_messages = self.infer
        if self.infer and llm_model is None:
            raise ValueError("mem0: infer = true needs llm_model (and llm_base_url for a non-OpenAI endpoint)")
        if llm_base_url is not None and llm_model is None:
            raise ValueError("mem0: llm_base_url is set but llm_model is not")
        if llm_max_tokens < 1:
            raise ValueError(f"mem0: llm_max_tokens must be at least 1, got {llm_max_tokens}")
        if extraction_prompt is not None and not extraction_prompt.strip():
            raise ValueError("mem0: extraction_prompt is empty (leave it unset for mem0's own)")
        if top_k is not None and top_k < 1:
            raise ValueError(f"mem0: top_k must be at least 1, got {top_k}")
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"mem0: threshold must be within [0, 1], got {threshold}")
        self._on_server = vector_store == "chroma" and chroma_host is not None
        collection = f"{collection_prefix}mem0"
        if self._on_server:  # as the chroma adapter does: each worker its own collection
            collection += "-" + uuid.uuid4().hex[:8]
        if not _COLLECTION_NAME.match(collection):
            raise ValueError(f"mem0: collection name {collection!r} needs 3-512 characters of [a-zA-Z0-9._-]")
        self.top_k = top_k
        self.threshold = threshold
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        _quiet_mem0(self.path)

        from mem0 import Memory as Mem0

        store = _vector_store(vector_store, vector_store_config, collection, self.path, chroma_host, chroma_port)
        config: dict[str, Any] = {
            "vector_store": store,
            "embedder": {
                "provider": "huggingface",
                "config": {"model": embedder_model or minilm_path(), "model_kwargs": {"device": "cpu"}},
            },
            # mem0 builds its LLM client even when infer=False; a placeholder key keeps it offline.
            "llm": {
                "provider": "openai",
                "config": {"model": llm_model or "unused", "api_key": "unused", "max_tokens": llm_max_tokens},
            },
            "history_db_path": str(self.path / "history.sqlite"),
        }
        with warnings.catch_warnings():  # sentence-transformers deprecations inside mem0, not ours to fix
            warnings.simplefilter("ignore", FutureWarning)
            self._memory = Mem0.from_config(config)
        if self.infer:
            self._memory.llm.client = _openai_client(llm_base_url, llm_timeout, llm_max_retries)
            if extraction_prompt is not None or extraction_schema:
                prompt = COMPACT_EXTRACTION_PROMPT if extraction_prompt == "compact" else extraction_prompt
                _steer_extraction(self._memory.llm, prompt, extraction_schema)
        self._closed = False
        #: per namespace, per ingested session: mem0's event counts ({"ADD": 3, "UPDATE": 1})
        self._sessions: dict[str, list[dict[str, int]]] = {}

    @classmethod
    def from_memeval(cls, config: Mapping[str, Any], resources: Resources) -> Mem0Memory:
        settings = dict(config)
        settings.setdefault("path", resources.workdir / "mem0")
        return cls(**settings)

    def reset(self, namespace: str) -> None:
        user_id = self.user_id(namespace)
        self._memory.delete_all(user_id=user_id)
        self._forget_messages(user_id)
        self._sessions.pop(namespace, None)

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        said = [m for m in session if m.content.strip()]
        # with extraction the session is one call (mem0 reads it whole); without, each
        # message is one, so that its memory's metadata names that message alone
        calls = [said] if self.infer else [[m] for m in said]
        events: dict[str, int] = {}
        for messages in filter(None, calls):
            ids = [m.id for m in messages if m.id]
            result = self._memory.add(
                # mem0 drops system turns when infer=False; a benchmark's context is all data.
                [
                    {"role": m.role if m.role in ("user", "assistant") else "user", "content": m.content}
                    for m in messages
                ],
                user_id=self.user_id(namespace),
                infer=self.infer,
                metadata={SOURCES_KEY: json.dumps(ids)} if ids else None,
            )
            for entry in result.get("results", []) if isinstance(result, dict) else []:
                event = str(entry.get("event", "ADD")) if isinstance(entry, dict) else "ADD"
                events[event] = events.get(event, 0) + 1
        self._sessions.setdefault(namespace, []).append(events)

    def ingest_stats(self, namespace: str) -> dict[str, object]:
        """Since the last reset: memories added per session (what extraction produced, or the
        messages stored when infer=False) and the totals of each mem0 event."""
        sessions = self._sessions.get(namespace, [])
        totals: dict[str, int] = {}
        for events in sessions:
            for event, n in events.items():
                totals[event] = totals.get(event, 0) + n
        return {"infer": self.infer, "added_per_session": [s.get("ADD", 0) for s in sessions], "events": totals}

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        limit = min(k, self.top_k) if self.top_k is not None else k
        if limit < 1 or not query.strip():  # mem0 rejects empty queries; nothing is relevant to them
            return []
        found = self._memory.search(
            query, top_k=limit, filters={"user_id": self.user_id(namespace)}, threshold=self.threshold
        )
        return [_to_memory(hit, with_score=True) for hit in found["results"]]

    def dump(self, namespace: str) -> list[Memory] | None:
        listed = self._memory.get_all(filters={"user_id": self.user_id(namespace)}, top_k=DUMP_LIMIT)
        hits = sorted(listed["results"], key=lambda hit: (hit.get("created_at") or "", hit["id"]))
        return [_to_memory(hit, with_score=False) for hit in hits]

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._on_server:  # leave the shared server as this worker found it
            self._memory.vector_store.delete_col()
        self._memory.close()

    @staticmethod
    def user_id(namespace: str) -> str:
        if _SAFE_USER_ID.match(namespace):
            return namespace
        return "ns-" + hashlib.sha256(namespace.encode()).hexdigest()[:32]

    def _forget_messages(self, user_id: str) -> None:
        """Drop mem0's saved turns of this user, which infer=True shows the LLM as recent context.

        mem0's delete_all leaves them behind, so without this a reset namespace would
        still leak its old session into the next extraction prompt.
        """
        from mem0.memory.main import _build_session_scope

        db = self._memory.db
        scope = _build_session_scope({"user_id": user_id})
        with db._lock, db.connection:
            db.connection.execute("DELETE FROM messages WHERE session_scope = ?", (scope,))


def _quiet_mem0(path: Path) -> None:
    # Read by mem0 at import time: no telemetry from an evaluation run, and mem0's own
    # config file goes next to the run's data rather than into ~/.mem0.
    os.environ["MEM0_TELEMETRY"] = "false"
    os.environ.setdefault("MEM0_DIR", str(path / "home"))
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


def _vector_store(
    provider: str,
    provider_config: dict[str, Any] | None,
    collection: str,
    path: Path,
    host: str | None,
    port: int,
) -> dict[str, Any]:
    if provider != "chroma":
        if host is not None:
            raise ValueError(f"mem0: chroma_host is set but vector_store is {provider!r}")
        return {"provider": provider, "config": {"collection_name": collection, **(provider_config or {})}}
    if provider_config:
        raise ValueError("mem0: for chroma use chroma_host/chroma_port, not vector_store_config")
    import chromadb
    from chromadb.config import Settings

    settings = Settings(anonymized_telemetry=False)
    if host is not None:
        client = chromadb.HttpClient(host=host, port=port, settings=settings)
        _bound_http_timeout(client, CHROMA_TIMEOUT_S)
    else:
        client = chromadb.PersistentClient(path=str(path / "chroma"), settings=settings)
    return {"provider": "chroma", "config": {"collection_name": collection, "client": client}}


def _steer_extraction(llm: Any, system_prompt: str | None, with_schema: bool) -> None:
    """Replace mem0's extraction system message and/or constrain its answer, on this instance only."""
    from mem0.configs.prompts import ADDITIVE_EXTRACTION_PROMPT

    original = llm.generate_response

    def generate_response(messages: list[dict[str, Any]], response_format: Any = None, **kwargs: Any) -> Any:
        first = messages[0] if messages else {}
        if first.get("role") == "system" and str(first.get("content", "")).startswith(ADDITIVE_EXTRACTION_PROMPT):
            if system_prompt is not None:
                suffix = str(first["content"])[len(ADDITIVE_EXTRACTION_PROMPT) :]  # e.g. mem0's agent suffix
                messages = [{"role": "system", "content": system_prompt + suffix}, *messages[1:]]
            if with_schema and response_format == {"type": "json_object"}:
                response_format = {"type": "json_object", "schema": EXTRACTION_SCHEMA}
        return original(messages, response_format=response_format, **kwargs)

    llm.generate_response = generate_response


def _openai_client(base_url: str | None, timeout: float, max_retries: int) -> Any:
    """mem0's own client has a 10-minute timeout and honours OPENROUTER_API_KEY; ours is bounded."""
    from openai import OpenAI

    # A local OpenAI-compatible server ignores the key, but the client insists on one.
    api_key = os.environ.get("OPENAI_API_KEY") or "not-set"
    return OpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=max_retries)


def _to_memory(hit: Mapping[str, Any], with_score: bool) -> Memory:
    metadata = {"role": hit["role"]} if hit.get("role") else {}
    score = hit.get("score") if with_score else None
    return Memory(text=hit["memory"], score=score, id=hit["id"], metadata=metadata, sources=_sources(hit))


def _sources(hit: Mapping[str, Any]) -> tuple[str, ...]:
    """The message ids in a hit's metadata (none for a memory stored without them)."""
    try:
        ids = json.loads((hit.get("metadata") or {}).get(SOURCES_KEY) or "[]")
    except (TypeError, ValueError):
        return ()
    return tuple(i for i in ids if isinstance(i, str)) if isinstance(ids, list) else ()
