"""Embedders, the embedding cache, chunking and the context budget of the built-in adapters."""

from __future__ import annotations

import multiprocessing
import threading
from pathlib import Path

import numpy as np
import pytest

from pytest_memeval.memory.chunking import chunk_session
from pytest_memeval.memory.context import ContextMemory
from pytest_memeval.memory.embedders import HashingEmbedder, MiniLMEmbedder
from pytest_memeval.memory.embedding_cache import CachedEmbedder
from pytest_memeval.memory.tokens import count_tokens
from pytest_memeval.types import Message


class CountingEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.embedded: list[str] = []

    def embed(self, texts):  # type: ignore[no-untyped-def]
        self.embedded.extend(texts)
        return super().embed(texts)


def test_hashing_embedder_is_deterministic_normalised_and_lexical() -> None:
    embedder = HashingEmbedder()
    vectors = embedder.embed(["Slept 7 hours.", "slept 7 HOURS", "Paid for a food delivery.", ""])
    assert vectors.shape == (4, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors[:3], axis=1), 1.0) and not vectors[3].any()
    assert np.allclose(vectors[0], vectors[1])  # case and punctuation do not matter
    assert vectors[0] @ vectors[2] < 0.5
    assert np.array_equal(embedder.embed(["Slept 7 hours."]), HashingEmbedder().embed(["Slept 7 hours."]))


@pytest.mark.slow
def test_minilm_embeds_offline_and_semantically() -> None:
    embedder = MiniLMEmbedder()
    query, near, far = embedder.embed(
        ["How long did she sleep?", "She slept for seven hours.", "The invoice was paid."]
    )
    assert query.shape == (384,) and abs(float(np.linalg.norm(query)) - 1) < 1e-5
    assert query @ near > query @ far + 0.2


def test_a_rerun_embeds_nothing_new(tmp_path: Path) -> None:
    first = CachedEmbedder(CountingEmbedder(), tmp_path / "cache.sqlite")
    vectors = first.embed(["a", "b", "a"])
    assert sorted(first.inner.embedded) == ["a", "b"]  # duplicates within a batch embedded once
    first.close()
    second = CachedEmbedder(CountingEmbedder(), tmp_path / "cache.sqlite")
    assert np.array_equal(second.embed(["b", "a", "a"]), vectors[[1, 0, 0]])
    second.embed(["c"])
    assert second.inner.embedded == ["c"] and second.misses == 1


def _open_and_embed(path: str) -> None:
    cache = CachedEmbedder(HashingEmbedder(), Path(path))
    cache.embed([f"text {i}" for i in range(20)])
    cache.close()


@pytest.mark.slow
def test_workers_opening_a_new_cache_at_once_all_succeed(tmp_path: Path) -> None:
    """Both switch the new file to WAL; the loser used to fail with 'database is locked'."""
    context = multiprocessing.get_context("spawn")
    for attempt in range(5):
        path = tmp_path / f"cache{attempt}.sqlite"
        workers = [context.Process(target=_open_and_embed, args=(str(path),)) for _ in range(3)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=120)
        assert [worker.exitcode for worker in workers] == [0, 0, 0]


@pytest.mark.slow
def test_threads_share_one_cache(tmp_path: Path) -> None:
    cache = CachedEmbedder(HashingEmbedder(), tmp_path / "cache.sqlite")
    errors: list[BaseException] = []

    def work(offset: int) -> None:
        try:
            for i in range(30):
                cache.embed([f"thread text {offset + i}", "shared text"])
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n * 100,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert cache.misses == 4 * 30 + 1


def test_chunking_keeps_messages_whole_and_cuts_long_ones_at_lines() -> None:
    long = "\n".join(f"line {i} with five words" for i in range(40))
    chunks = chunk_session([Message("user", "short one"), Message("user", "  "), Message("user", long)], max_tokens=50)
    assert chunks[0] == "short one" and len(chunks) > 2
    assert all(count_tokens(chunk) <= 50 for chunk in chunks)
    assert "\n".join(chunks[1:]) == long


def test_the_built_in_stores_name_each_memorys_source_message(tmp_path: Path) -> None:
    session = [
        Message("user", "Caroline adopted a dog.", id="D1:1"),
        Message("user", "unnamed"),
        Message("user", "x" * 40),
    ]
    long = Message("user", "\n".join(f"line {i} about the garden" for i in range(60)), id="D1:4")
    context = ContextMemory()
    context.ingest("ns", [*session, long])
    assert [m.sources for m in context.retrieve("ns", "dog", 3)][:2] == [("D1:1",), ()]
    pytest.importorskip("chromadb")
    from pytest_memeval.memory.chroma import ChromaMemory

    chroma = ChromaMemory(HashingEmbedder(), path=tmp_path / "chroma", chunk_tokens=64)
    chroma.ingest("ns", [*session, long])
    assert chroma.retrieve("ns", "Caroline adopted a dog", 1)[0].sources == ("D1:1",)
    dumped = chroma.dump("ns") or []
    assert [m.sources for m in dumped[:3]] == [("D1:1",), (), ()]
    assert len(dumped) > 4 and {m.sources for m in dumped[3:]} == {("D1:4",)}  # every piece of a cut message
    chroma.close()


def test_context_returns_the_newest_messages_within_its_budget() -> None:
    memory = ContextMemory(token_budget=6)
    memory.ingest("ns", [Message("user", "one two three"), Message("user", "four five"), Message("user", "six seven")])
    assert [m.text for m in memory.retrieve("ns", "anything", k=1)] == ["four five", "six seven"]
    assert len(memory.dump("ns") or []) == 3 and memory.retrieve("other", "q", 5) == []
    with pytest.raises(ValueError):
        ContextMemory(token_budget=0)


def test_an_adapter_that_can_extract_gets_the_runs_llm_endpoint() -> None:
    from pytest_memeval.config.llm_settings import LLMSettings
    from pytest_memeval.config.options import Settings
    from pytest_memeval.running.state import RunState

    settings = Settings(
        memsystems=("mem0", "chroma", "langmem"),
        suites=("multisource",),
        size="smoke",
        split=None,
        seeds=None,
        ks=(10,),
        responder="openai:m",
        report=None,
        data_dir=None,
        embedder="hashing",
        cache_dir=Path("/tmp"),
        bootstrap=10,
        memsystem_config={"mem0": {"llm_timeout": 5.0}},
        llm=LLMSettings(model="m", base_url="http://127.0.0.1:9/v1"),
    )
    state = RunState.from_settings(settings)
    assert state.adapter_settings("mem0") == {
        "llm_timeout": 5.0,
        "llm_model": "m",
        "llm_base_url": "http://127.0.0.1:9/v1",
        "llm_max_retries": 5,
    }
    assert state.adapter_settings("chroma") == {}
    # langmem takes them as one AdapterLLM value, which stands for the same settings
    assert state.adapter_settings("langmem") == {
        "llm_model": "m",
        "llm_base_url": "http://127.0.0.1:9/v1",
        "llm_timeout": 60.0,
        "llm_max_retries": 5,
    }
