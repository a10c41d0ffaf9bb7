"""MiniLM embedding throughput: the plugin's embedder beside raw sentence-transformers.

    python benchmarks/bench_embedding.py [--texts 1000] [--batch 16,32,64,128] [--repeat 3]

The texts are multisource memories (the render units of smoke personas, as `context` and
chroma store them). For each batch size (--memeval-embedding-batch): raw
`SentenceTransformer.encode` on the bundled all-MiniLM-L6-v2, the plugin's `MiniLMEmbedder`,
and the plugin's embedder behind a cold on-disk cache (`CachedEmbedder`, as a first run
uses it: hashing, lookup, insert). Then a warm-cache pass, which must not load the model.
Texts per second, median of --repeat; the model is loaded before any timing. Also the
largest difference between the plugin's vectors and the raw ones at the same batch size,
and between batch sizes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from pytest_memeval.suites.multisource.suite import MultisourceSuite

from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.memory.embedders import MiniLMEmbedder, minilm_path
from pytest_memeval.memory.embedding_cache import CachedEmbedder


def texts_of(count: int) -> list[str]:
    cache = Path(os.environ.get("MEMEVAL_CACHE_DIR", Path.home() / ".cache" / "pytest-memeval"))
    suite = MultisourceSuite(SuiteOptions("smoke", None, None, 10, None, cache))
    texts: list[str] = []
    for context in dict.fromkeys(entry.context_id for entry in suite.index()):
        texts.extend(m.content for session in suite.context(context).sessions for m in session)
        if len(texts) >= count:
            break
    return texts[:count]


def rate(embed: Callable[[Sequence[str]], np.ndarray], texts: list[str], repeat: int) -> tuple[float, np.ndarray]:
    times, vectors = [], np.zeros(0)
    for _ in range(repeat):
        started = time.perf_counter()
        vectors = embed(texts)
        times.append(time.perf_counter() - started)
    return len(texts) / statistics.median(times), vectors


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--texts", type=int, default=1000)
    parser.add_argument("--batch", default="16,32,64,128")
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    import torch
    from sentence_transformers import SentenceTransformer

    texts = texts_of(options.texts)
    print(
        f"{len(texts)} multisource memories, mean {np.mean([len(t) for t in texts]):.0f} characters; "
        f"torch {torch.__version__}, {torch.get_num_threads()} threads, {os.cpu_count()} cores"
    )
    raw = SentenceTransformer(minilm_path(), device="cpu")
    ours = MiniLMEmbedder()
    ours.embed(texts[:2])  # load the weights outside the timings
    by_batch: dict[int, np.ndarray] = {}
    print(f"{'batch':>5} {'raw ST texts/s':>15} {'plugin texts/s':>15} {'cold cache texts/s':>19} {'max |diff|':>11}")
    for batch in (int(b) for b in options.batch.split(",")):

        def encode(texts: Sequence[str], batch: int = batch) -> np.ndarray:
            return raw.encode(
                list(texts), batch_size=batch, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
            )

        raw_rate, raw_vectors = rate(encode, texts, options.repeat)
        ours.batch_size = batch
        our_rate, our_vectors = rate(ours.embed, texts, options.repeat)
        cold_rates = []
        for _ in range(options.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                cached = CachedEmbedder(ours, Path(tmp) / "embeddings.sqlite")
                cold_rates.append(rate(cached.embed, texts, 1)[0])
                cached.close()
        by_batch[batch] = our_vectors
        print(
            f"{batch:>5} {raw_rate:>15.0f} {our_rate:>15.0f} {statistics.median(cold_rates):>19.0f} "
            f"{float(np.abs(our_vectors - raw_vectors).max()):>11.2e}"
        )
    with tempfile.TemporaryDirectory() as tmp:
        CachedEmbedder(ours, Path(tmp) / "e.sqlite").embed(texts)
        fresh = MiniLMEmbedder()
        warm = CachedEmbedder(fresh, Path(tmp) / "e.sqlite")
        warm_rate, _ = rate(warm.embed, texts, options.repeat)
        print(f"warm cache: {warm_rate:.0f} texts/s, model loaded: {fresh.loaded}")
    batches = sorted(by_batch)
    spread = max(float(np.abs(by_batch[b] - by_batch[batches[0]]).max()) for b in batches)
    print(f"largest difference between batch sizes: {spread:.2e}")


if __name__ == "__main__":
    main()
