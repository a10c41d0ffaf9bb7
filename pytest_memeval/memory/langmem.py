"""`langmem`: LangChain's LangMem memory store manager over a LangGraph store.

Each session goes through LangMem's `create_memory_store_manager`: it searches the
namespace's existing memories, and its LLM (tool calls through trustcall) writes new
memories, updates old ones or removes them. Memories live in a LangGraph `InMemoryStore`
of this worker's process with a vector index on the run's embedder (all-MiniLM-L6-v2 by
default); each namespace is a LangMem user (`langgraph_user_id`). `retrieve` is the store's
semantic search; a memory's text is what LangMem's LLM wrote.

The LLM is an OpenAI-compatible chat model at the run's endpoint; it must support tool
calls (llama-cpp-python: start the server with `--chat_format chatml-function-calling`).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from ..config.adapter_settings import AdapterLLM
from ..types import Memory, Message
from .embedders import Embedder
from .llm_clients import api_key, http_client
from .resources import Resources

#: LangGraph's store has no "list all" without a limit
DUMP_LIMIT = 100_000
_LLM = AdapterLLM()
_ROLES = {"user": "user", "assistant": "assistant", "system": "system"}


class LangMemMemory:
    #: its memories are what its LLM writes through tool calls (protocols.rewrites_messages)
    rewrites_messages = True

    def __init__(
        self,
        embedder: Embedder,
        llm: AdapterLLM = _LLM,
        query_limit: int = 5,
        enable_deletes: bool = True,
    ) -> None:
        """`llm.model` (the setting `llm_model`, required) is served at `llm.base_url`
        (default `$OPENAI_BASE_URL`).

        `query_limit` is how many existing memories LangMem shows its LLM per session;
        `enable_deletes` lets it remove memories it judges wrong (LangMem's default).
        """
        if not llm.model:
            raise ValueError("langmem needs llm_model: LangMem writes every memory with an LLM")
        if query_limit < 1:
            raise ValueError(f"langmem: query_limit must be at least 1, got {query_limit}")
        from langchain_openai import ChatOpenAI
        from langgraph.store.memory import InMemoryStore
        from langmem import create_memory_store_manager
        from pydantic import SecretStr

        self.embedder = embedder
        model = ChatOpenAI(
            model=llm.model,
            base_url=llm.base_url,
            api_key=SecretStr(api_key()),
            temperature=llm.temperature,
            max_retries=llm.max_retries,
            timeout=llm.timeout,
            http_client=http_client(llm),
        )
        self._store = InMemoryStore(index={"dims": embedder.dim, "embed": self._embed})
        self._manager = create_memory_store_manager(
            model,
            store=self._store,
            query_limit=query_limit,
            enable_deletes=enable_deletes,
            namespace=("memories", "{langgraph_user_id}"),
        )
        self._lock = threading.Lock()
        self._closed = False

    @classmethod
    def from_memeval(cls, config: Mapping[str, Any], resources: Resources) -> LangMemMemory:
        return cls(embedder=resources.embedder(), **dict(config))

    @staticmethod
    def user_id(namespace: str) -> str:
        return "ns-" + hashlib.sha256(namespace.encode()).hexdigest()[:40]

    def reset(self, namespace: str) -> None:
        with self._lock:
            for item in self._items(namespace):
                self._store.delete(item.namespace, item.key)

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        messages = [_message(m) for m in session]
        messages = [m for m in messages if m["content"].strip()]
        if not messages:
            return
        with self._lock:  # LangMem reads, then writes, the namespace: one session at a time
            self._manager.invoke(
                {"messages": messages}, config={"configurable": {"langgraph_user_id": self.user_id(namespace)}}
            )

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        if k < 1 or not query.strip():
            return []
        found = self._store.search(("memories", self.user_id(namespace)), query=query, limit=k)
        ranked = sorted(found, key=lambda item: (-(item.score or 0.0), item.key))
        return [_to_memory(item, with_score=True) for item in ranked]

    def dump(self, namespace: str) -> list[Memory] | None:
        items = sorted(self._items(namespace), key=lambda item: (item.created_at, item.key))
        return [_to_memory(item, with_score=False) for item in items]

    def close(self) -> None:
        self._closed = True

    def _items(self, namespace: str) -> list[Any]:
        return list(self._store.search(("memories", self.user_id(namespace)), limit=DUMP_LIMIT))

    def _embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[float(x) for x in row] for row in self.embedder.embed(list(texts))]


def _message(message: Message) -> dict[str, str]:
    if not isinstance(message, Message):
        raise TypeError(f"langmem: a session holds Message objects, got {type(message).__name__}")
    return {"role": _ROLES.get(message.role, "user"), "content": message.content}


def _to_memory(item: Any, with_score: bool) -> Memory:
    value = item.value if isinstance(item.value, Mapping) else {}
    content = value.get("content")
    if isinstance(content, Mapping) and set(content) == {"content"}:
        text = str(content["content"])  # LangMem's default Memory schema
    else:
        text = json.dumps(content, ensure_ascii=False, sort_keys=True)
    score = float(item.score) if with_score and getattr(item, "score", None) is not None else None
    return Memory(text=text, score=score, id=str(item.key), metadata={"kind": value.get("kind")})
