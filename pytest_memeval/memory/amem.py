"""`amem`: A-MEM (Xu et al., "A-MEM: Agentic Memory for LLM Agents"), the `a-mem` package.

`a-mem` 0.2.6 packages the paper's library (agiresearch/A-mem, module `agentic_memory`)
with persistence added. Every message becomes a note: A-MEM's LLM writes its keywords,
context and tags, then links it to its nearest notes and may rewrite their context and
tags ("memory evolution"). Notes are embedded with all-MiniLM-L6-v2 (A-MEM's default, the
bundled offline copy) into chroma, in this worker's private directory, one collection per
namespace. `retrieve` is A-MEM's own search; a memory's text is the note's content and
its metadata the note's context, keywords, tags, links and timestamp.

A-MEM swallows its LLM's failures (a note then gets empty keywords); this adapter does
not: a failed LLM call makes `ingest` raise, so the item is an error and not a score.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..config.adapter_settings import AdapterLLM
from ..errors import AdapterError
from ..types import Memory, Message
from .embedders import minilm_path
from .llm_clients import fit_prompt, openai_client
from .resources import Resources

_LLM = AdapterLLM()


class AMemMemory:
    def __init__(
        self,
        path: Path | None = None,
        llm: AdapterLLM = _LLM,
        llm_max_prompt_chars: int = 24_000,
        evolve: bool = True,
    ) -> None:
        """`llm.model` (the setting `llm_model`, required) is served at `llm.base_url`
        (default `$OPENAI_BASE_URL`).

        A-MEM pastes whole notes into its prompts; a prompt longer than
        `llm_max_prompt_chars` is cut at its longest stretches (the note is stored whole).
        `evolve = false` skips the evolution step (one LLM call per note instead of two).
        """
        if path is None:
            raise ValueError("amem needs a path for its chroma store")
        if not llm.model:
            raise ValueError("amem needs llm_model: A-MEM writes every note with an LLM")
        if llm_max_prompt_chars < 1000:
            raise ValueError(f"amem: llm_max_prompt_chars must be at least 1000, got {llm_max_prompt_chars}")
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm fetches a price list at import
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        os.environ["ANONYMIZED_TELEMETRY"] = "False"
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        self.evolve = evolve
        self._llm = _Controller(
            openai_client(llm),
            llm.model,
            llm.temperature,
            llm_max_prompt_chars,
        )
        self._systems: dict[str, Any] = {}
        #: per namespace, per ingested session: (notes written, LLM replies that were not JSON)
        self._sessions: dict[str, list[tuple[int, int]]] = {}
        self._chroma: Any = None
        self._lock = threading.Lock()
        self._closed = False

    @classmethod
    def from_memeval(cls, config: Mapping[str, Any], resources: Resources) -> AMemMemory:
        settings = dict(config)
        settings.setdefault("path", resources.workdir / "amem")
        return cls(**settings)

    @staticmethod
    def collection_name(namespace: str) -> str:
        return "ns-" + hashlib.sha256(namespace.encode()).hexdigest()[:40]

    def reset(self, namespace: str) -> None:
        with self._lock:
            self._systems.pop(namespace, None)
            self._sessions.pop(namespace, None)
            client = self._client()
            if any(c.name == self.collection_name(namespace) for c in client.list_collections()):
                client.delete_collection(self.collection_name(namespace))

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        texts = [_text_of(m) for m in session]
        system = self._system(namespace, create=True)
        not_json_before, notes = self._llm.replies_not_json_so_far(), 0
        for text in texts:
            if not text.strip():
                continue
            notes += 1
            # ids in insertion order, so dump lists notes as they were written; no random part:
            # A-MEM shows its LLM the ids of a note's neighbours, and a replay must see the same
            note_id = f"{system.retriever.count():08d}-{hashlib.sha256(text.encode()).hexdigest()[:12]}"
            failures = self._llm.failures_so_far()
            if self.evolve:
                system.add_note(text, id=note_id)
            else:
                _add_without_evolution(system, text, note_id)
            self._llm.raise_new_failures(failures)
        not_json = self._llm.replies_not_json_so_far() - not_json_before
        self._sessions.setdefault(namespace, []).append((notes, not_json))

    def ingest_stats(self, namespace: str) -> dict[str, object]:
        """Since the last reset: notes written per session, and how many of A-MEM's LLM replies
        were not a JSON object (A-MEM then keeps the note with empty keywords and tags, or
        skips that note's evolution)."""
        sessions = self._sessions.get(namespace, [])
        return {
            "notes_per_session": [notes for notes, _ in sessions],
            "llm_replies_not_json": sum(not_json for _, not_json in sessions),
        }

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        system = self._system(namespace, create=False)
        if system is None or k < 1 or not query.strip():
            return []
        count = system.retriever.count()
        if count == 0:
            return []
        # A-MEM's search is this query; its own result parsing turns a note that reads like
        # JSON or a number into one, so the raw metadata is read here instead
        found = system.retriever.collection.query(
            query_texts=[query], n_results=min(k, count), include=["metadatas", "distances"]
        )
        ids, notes, distances = found["ids"][0], found["metadatas"][0], found["distances"][0]
        # chroma's default space is squared L2; on unit vectors 1 - d/2 is the cosine
        return [_to_memory(i, n, 1.0 - float(d) / 2.0) for i, n, d in zip(ids, notes, distances)]

    def dump(self, namespace: str) -> list[Memory] | None:
        system = self._system(namespace, create=False)
        if system is None:
            return []
        stored = system.retriever.collection.get(include=["metadatas"])
        return [_to_memory(i, n, None) for i, n in sorted(zip(stored["ids"], stored["metadatas"]))]

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._systems.clear()

    def _client(self) -> Any:
        if self._chroma is None:
            import chromadb

            # A-MEM opens the same path with chroma's default settings, which must agree with
            # ours: telemetry is turned off through the environment they are read from
            self._chroma = chromadb.PersistentClient(path=str(self.path / "chroma"))
        return self._chroma

    def _system(self, namespace: str, create: bool) -> Any:
        with self._lock:
            if namespace in self._systems:
                return self._systems[namespace]
            name = self.collection_name(namespace)
            if not create and all(c.name != name for c in self._client().list_collections()):
                return None
            system = self._build(name)
            self._systems[namespace] = system
            return system

    def _build(self, collection: str) -> Any:
        from agentic_memory.memory_system import AgenticMemorySystem
        from agentic_memory.retrievers import ChromaRetriever

        store, model = str(self.path / "chroma"), minilm_path()
        self._client()
        system = AgenticMemorySystem(
            model_name=model, llm_backend="openai", llm_model=self._llm.model, api_key="unused", storage_path=store
        )
        system.retriever = ChromaRetriever(collection_name=collection, model_name=model, persist_directory=store)
        system.llm_controller.llm = self._llm
        return system


class _Controller:
    """A-MEM's LLM controller interface, on the run's endpoint, remembering what failed."""

    def __init__(self, client: Any, model: str, temperature: float, max_prompt_chars: int) -> None:
        self.client, self.model, self.temperature, self.max_prompt_chars = client, model, temperature, max_prompt_chars
        self._failures: list[str] = []
        self._not_json = 0
        self._lock = threading.Lock()

    def get_completion(
        self, prompt: str, response_format: dict[str, Any] | None = None, temperature: float = 0.0
    ) -> str:
        request: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": "You must respond with a JSON object."},
                {"role": "user", "content": fit_prompt(prompt, self.max_prompt_chars)},
            ],
            "temperature": self.temperature,  # the run's, not A-MEM's default of 1.0: runs repeat
        }
        if response_format is not None:
            request["response_format"] = response_format
        try:
            response = self.client.chat.completions.create(**request)
        except Exception as exc:
            with self._lock:
                self._failures.append(f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}")
            raise
        text = str(response.choices[0].message.content or "")
        if not _is_json_object(text):  # A-MEM swallows it: empty keywords and tags, or no evolution
            with self._lock:
                self._not_json += 1
        return text

    def replies_not_json_so_far(self) -> int:
        with self._lock:
            return self._not_json

    def failures_so_far(self) -> int:
        with self._lock:
            return len(self._failures)

    def raise_new_failures(self, before: int) -> None:
        with self._lock:
            new = self._failures[before:]
        if new:
            raise AdapterError(f"amem: A-MEM's LLM call failed ({len(new)} of this note's calls): {new[0]}")


def _add_without_evolution(system: Any, text: str, note_id: str) -> None:
    """A-MEM's add_note without its evolution step: the note's own analysis, then storage."""
    from agentic_memory.memory_system import MemoryNote

    analysis = system.analyze_content(text)
    note = MemoryNote(
        content=text,
        id=note_id,
        keywords=analysis.get("keywords") or [],
        context=analysis.get("context") or "General",
        tags=analysis.get("tags") or [],
    )
    system.retriever.add_document(note.content, system._memory_note_to_metadata(note), note.id)


def _text_of(message: Message) -> str:
    if not isinstance(message, Message):
        raise TypeError(f"amem: a session holds Message objects, got {type(message).__name__}")
    return message.content


def _to_memory(memory_id: str, note: Mapping[str, Any], score: float | None) -> Memory:
    """A note as a Memory: its content as said, its A-MEM attributes as metadata."""
    metadata: dict[str, Any] = {}
    for key in ("context", "keywords", "tags", "links", "timestamp"):
        value = note.get(key)
        if key in ("keywords", "tags", "links") and isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                pass
        if value is not None:
            metadata[key] = value
    return Memory(text=str(note.get("content", "")), score=score, id=memory_id, metadata=metadata)


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False
