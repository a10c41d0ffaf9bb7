"""The keys of the calls a run used, logged by every process's caches: a bundle holds those
rows alone, not the whole cache file."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from pytest_memeval.llm import CallCache, ChatRequest, Completion, LLMSettings
from pytest_memeval.llm.call_log import CallLog, read_call_log
from pytest_memeval.memory.embedders import HashingEmbedder
from pytest_memeval.memory.embedding_cache import CachedEmbedder, embedding_rows, store_embedding_rows


def request(text: str) -> ChatRequest:
    return ChatRequest.build(LLMSettings(model="m"), [{"role": "user", "content": text}], "t@1")


def test_only_the_keys_a_run_read_or_wrote_are_logged(tmp_path: Path) -> None:
    path = tmp_path / "llm.sqlite"
    earlier = CallCache(path)  # another run's entries, in the same file
    earlier.put(request("old"), Completion("old answer"))
    earlier.put(request("hit"), Completion("hit answer"))
    earlier.close()
    logs = tmp_path / "log"
    logs.mkdir()
    cache = CallCache.for_settings(LLMSettings(model="m", cache_mode="readwrite", cache_path=path, call_log=logs))
    assert cache.get(request("hit").key()) is not None
    assert cache.get(request("absent").key()) is None
    cache.put(request("new"), Completion("new answer"))
    cache.put_exchange("exchange-key", "m", "memsystem 'mem0' chat/completions", "{}", "{}")
    used = read_call_log(logs).llm
    assert used == {request("hit").key(), request("new").key(), "exchange-key"}
    rows = cache.rows(used)
    assert [row[0] for row in rows] == sorted(used) and len(cache) == 4
    copy = CallCache(tmp_path / "copy.sqlite")
    copy.put_rows(rows)
    assert copy.get(request("hit").key()) == cache.get(request("hit").key())
    assert copy.get(request("old").key()) is None


def test_embeddings_used_are_logged_and_their_vectors_copied(tmp_path: Path) -> None:
    logs = tmp_path / "log"
    logs.mkdir()
    embedder = CachedEmbedder(HashingEmbedder(), tmp_path / "emb.sqlite", CallLog(logs))
    vectors = embedder.embed(["alpha", "beta", "alpha"])
    embedder.close()
    used = read_call_log(logs).embeddings
    assert used == {(embedder.name, hashlib.sha256(t.encode()).hexdigest()) for t in ("alpha", "beta")}
    rows = embedding_rows(tmp_path / "emb.sqlite", used)
    store_embedding_rows(tmp_path / "replay.sqlite", rows)

    class Refuses(HashingEmbedder):
        def embed(self, texts):  # type: ignore[no-untyped-def]
            raise AssertionError(f"embedded {texts}: the copied vectors should answer")

    replayed = CachedEmbedder(Refuses(), tmp_path / "replay.sqlite")
    assert np.array_equal(replayed.embed(["alpha", "beta", "alpha"]), vectors)
    replayed.close()


def test_a_torn_last_line_is_left_out(tmp_path: Path) -> None:
    (tmp_path / "1.log").write_text("llm\tfirst\nllm\tsec")
    assert read_call_log(tmp_path).llm == {"first"}
