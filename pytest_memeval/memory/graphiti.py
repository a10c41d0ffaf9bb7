"""`graphiti`: Zep's open-source engine, graphiti-core, on its embedded Kuzu graph database.

Graphiti (Rasmussen et al. 2025, "Zep: a temporal knowledge graph architecture for agent
memory") turns each episode into entities and facts (edges between entities, with validity
times), resolving both against what the graph already holds. Here each session is one
episode (`episode = "session"`, the default: a session is one conversation, and graphiti
reads an episode's messages together with the episodes before it) or each message is one
(`episode = "message"`: graphiti's LLM work multiplied by the session's length). An
episode's reference time is its first message's ISO timestamp, else the time of ingest.

Everything is local: the Kuzu database lives in this worker's private directory, each
namespace is a graphiti group of its own, the LLM is graphiti's OpenAI-compatible generic
client on the run's endpoint, embeddings are the run's embedder (MiniLM by default, offline)
and the reranker graphiti requires ranks by cosine similarity of that embedder, with no
LLM call. `retrieve` is graphiti's hybrid edge search (BM25 and cosine similarity, fused by
reciprocal rank) in the namespace's group; a memory's text is a fact as graphiti's LLM wrote
it, its score the fused rank score. `dump` lists every fact of the group; `reset` deletes
the group. Graphiti's telemetry is turned off.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import threading
import warnings
from collections.abc import Coroutine, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from ..config.adapter_settings import AdapterLLM
from ..errors import AdapterError
from ..types import Memory, Message
from .embedders import Embedder
from .llm_clients import async_openai_client
from .resources import Resources

T = TypeVar("T")
_EPISODES = ("session", "message")
#: its LLM settings by default (answers up to 2,048 tokens: graphiti extracts whole lists of entities and facts)
_LLM = AdapterLLM(max_tokens=2048)
#: how long one call may wait for graphiti (its LLM calls carry their own timeouts)
_CALL_LIMIT_S = 24 * 3600.0


class GraphitiMemory:
    #: its memories are the facts its LLM extracts into a graph (protocols.rewrites_messages)
    rewrites_messages = True

    def __init__(
        self,
        embedder: Embedder,
        path: Path | None = None,
        llm: AdapterLLM = _LLM,
        episode: str = "session",
    ) -> None:
        """`llm.model` (the setting `llm_model`, required) is served at `llm.base_url`
        (default `$OPENAI_BASE_URL`)."""
        if path is None:
            raise ValueError("graphiti needs a path for its Kuzu database")
        if not llm.model:
            raise ValueError("graphiti needs llm_model: graphiti extracts entities and facts with an LLM")
        if episode not in _EPISODES:
            raise ValueError(f"graphiti: episode must be one of {', '.join(_EPISODES)}, got {episode!r}")
        os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"
        from graphiti_core import Graphiti
        from graphiti_core.driver.kuzu_driver import KuzuDriver
        from graphiti_core.llm_client.config import LLMConfig

        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        self.episode = episode
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="graphiti-loop", daemon=True)
        self._thread.start()
        self._closed = False
        with warnings.catch_warnings():
            # Kuzu's upstream is unmaintained and graphiti deprecates the backend; it is the
            # only graph database graphiti can embed in a process
            warnings.simplefilter("ignore", DeprecationWarning)
            self._driver = KuzuDriver(db=str(self.path / "graph.kuzu"))
        # graphiti-core 0.31.1: Graphiti.add_episode compares group ids with
        # `driver._database`, which KuzuDriver never sets (AttributeError). Kuzu has one
        # database per file and clone() returns the driver itself, so any value will do.
        self._driver._database = ""
        self._failures: list[str] = []
        llm_client = _llm_client(
            LLMConfig(model=llm.model, small_model=llm.model, temperature=llm.temperature),
            async_openai_client(llm),
            llm.max_tokens,
            self._failures,
        )
        vectors = _Embeddings(embedder)
        self._graphiti = Graphiti(
            graph_driver=self._driver,
            llm_client=llm_client,
            embedder=_embedder_client(vectors),
            cross_encoder=_reranker(vectors),
        )
        self._write_lock = threading.Lock()  # graphiti wants a group's episodes added one at a time
        self._create_fulltext_indexes()

    @classmethod
    def from_memeval(cls, config: Mapping[str, Any], resources: Resources) -> GraphitiMemory:
        settings = dict(config)
        settings.setdefault("path", resources.workdir / "graphiti")
        return cls(embedder=resources.embedder(), **settings)

    @staticmethod
    def group_id(namespace: str) -> str:
        """Graphiti's group ids take ASCII letters, digits, '-' and '_' only."""
        return "ns-" + hashlib.sha256(namespace.encode()).hexdigest()[:40]

    def reset(self, namespace: str) -> None:
        from graphiti_core.utils.maintenance.graph_data_operations import clear_data

        with self._write_lock:
            self._run(clear_data(self._driver, group_ids=[self.group_id(namespace)]))

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        messages = [_checked(m) for m in session]
        messages = [m for m in messages if m.content.strip()]
        if not messages:
            return
        episodes = [messages] if self.episode == "session" else [[m] for m in messages]
        with self._write_lock:
            for number, episode in enumerate(episodes):
                failures = len(self._failures)
                try:
                    self._run(
                        self._graphiti.add_episode(
                            name=f"episode {number}",
                            episode_body="\n".join(f"{m.role}: {m.content}" for m in episode),
                            source_description="conversation",
                            reference_time=_reference_time(episode),
                            group_id=self.group_id(namespace),
                        )
                    )
                except Exception as exc:  # e.g. the LLM's JSON, cut at llm_max_tokens, after graphiti's retries
                    raise AdapterError(f"graphiti: add_episode failed: {_one_line(exc)}") from exc
                # graphiti logs and skips some failed LLM calls (an edge's dates); an
                # episode read with a failed call is an error here, not a thinner graph
                if len(self._failures) > failures:
                    new = self._failures[failures:]
                    raise AdapterError(f"graphiti: its LLM call failed ({len(new)} of this episode's calls): {new[0]}")

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        from graphiti_core.search.search_config_recipes import EDGE_HYBRID_SEARCH_RRF

        if k < 1 or not query.strip():
            return []
        config = EDGE_HYBRID_SEARCH_RRF.model_copy(update={"limit": k})
        found = self._run(self._graphiti.search_(query, config=config, group_ids=[self.group_id(namespace)]))
        scored = list(zip(found.edges, found.edge_reranker_scores))
        return [_to_memory(edge, float(score)) for edge, score in scored[:k]]

    def dump(self, namespace: str) -> list[Memory] | None:
        from graphiti_core.edges import EntityEdge
        from graphiti_core.errors import GroupsEdgesNotFoundError

        try:
            edges = self._run(EntityEdge.get_by_group_ids(self._driver, [self.group_id(namespace)]))
        except GroupsEdgesNotFoundError:
            return []
        return [_to_memory(edge, None) for edge in sorted(edges, key=lambda e: (e.created_at, e.uuid))]

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self._run(self._graphiti.close())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=30)
            if not self._thread.is_alive():
                self._loop.close()
            # KuzuDriver.close() leaves the database to the garbage collector; a second
            # Database on the same files in this process crashes (SIGSEGV) while it is open
            self._driver.client.close()
            self._driver.db.close()

    def _create_fulltext_indexes(self) -> None:
        """Graphiti's BM25 search needs Kuzu's full-text indexes, which KuzuDriver's own
        `build_indices_and_constraints` (a no-op in 0.31.1) does not create."""
        from graphiti_core.driver.driver import GraphProvider
        from graphiti_core.graph_queries import get_fulltext_indices

        found, _, _ = self._run(self._driver.execute_query("CALL SHOW_INDEXES() RETURN *"))
        existing = {row["index_name"] for row in found if isinstance(row, dict)}
        for query in get_fulltext_indices(GraphProvider.KUZU):
            if not any(f"'{name}'" in query for name in existing):
                self._run(self._driver.execute_query(query))

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run one of graphiti's coroutines on this adapter's own event loop, from any thread."""
        if self._closed and not self._loop.is_running():
            coroutine.close()
            raise RuntimeError("graphiti: the adapter is closed")
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=_CALL_LIMIT_S)


def _llm_client(config: Any, client: Any, max_tokens: int, failures: list[str]) -> Any:
    """Graphiti's OpenAI-compatible client, noting each call that fails after its retries."""
    from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient

    class RecordingClient(OpenAIGenericClient):
        async def generate_response(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
            try:
                return await super().generate_response(*args, **kwargs)
            except Exception as exc:
                failures.append(_one_line(exc))
                raise

    return RecordingClient(config=config, client=client, max_tokens=max_tokens)


class _Embeddings:
    """The run's embedder, as graphiti's embedder and reranker (built below) use it."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self.embedder.embed(list(texts)), dtype=np.float32)


def _embedder_client(vectors: _Embeddings) -> Any:
    from graphiti_core.embedder.client import EmbedderClient

    class RunEmbedder(EmbedderClient):
        async def create(self, input_data: str | list[str] | Iterable[int] | Iterable[Iterable[int]]) -> list[float]:
            text = input_data if isinstance(input_data, str) else next(iter(input_data))
            if not isinstance(text, str):
                raise TypeError("graphiti: the run's embedder takes text, not token ids")
            return [float(x) for x in vectors.vectors([text])[0]]

        async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
            if not input_data_list:
                return []
            return [[float(x) for x in row] for row in vectors.vectors(input_data_list)]

    return RunEmbedder()


def _reranker(vectors: _Embeddings) -> Any:
    from graphiti_core.cross_encoder.client import CrossEncoderClient

    class CosineReranker(CrossEncoderClient):
        """Graphiti's cross-encoder slot without an LLM: cosine similarity of the run's embedder."""

        async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
            if not passages:
                return []
            rows = vectors.vectors([query, *passages])
            norms = np.linalg.norm(rows, axis=1)
            norms[norms == 0] = 1.0
            rows = rows / norms[:, None]
            scores = rows[1:] @ rows[0]
            return sorted(zip(passages, (float(s) for s in scores)), key=lambda pair: -pair[1])

    return CosineReranker()


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0][:200]}" if text else type(exc).__name__


def _checked(message: Message) -> Message:
    if not isinstance(message, Message):
        raise TypeError(f"graphiti: a session holds Message objects, got {type(message).__name__}")
    return message


def _reference_time(messages: Sequence[Message]) -> datetime:
    """The first message's ISO timestamp (UTC when it names no zone), else now."""
    if messages[0].timestamp:
        try:
            stamp = datetime.fromisoformat(messages[0].timestamp)
        except ValueError:
            pass
        else:
            return stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=UTC)
    return datetime.now(UTC)


def _to_memory(edge: Any, score: float | None) -> Memory:
    """A fact (an entity edge) as a Memory: its text, and when and from which episodes it holds."""
    metadata: dict[str, Any] = {"relation": edge.name, "episodes": list(edge.episodes or [])}
    for key in ("valid_at", "invalid_at", "expired_at"):
        value = getattr(edge, key, None)
        if value is not None:
            metadata[key] = value.isoformat()
    return Memory(text=edge.fact, score=score, id=edge.uuid, metadata=metadata)
