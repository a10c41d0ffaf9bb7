"""Prefetch speed-up against a loopback server adding a fixed latency per call, and replay overhead.

    .venv/bin/python benchmarks/bench_llm_prefetch.py [--contexts 20] [--items 20] [--latency 0.2]

1. One worker, `contexts x items` items: one call at a time, then with each context's items
   prefetched into the pool while the 'tests' consume answers in order. Target: >= 6x.
2. A replayed run (answers from the SQLite cache) against a no-op offline answer, per item.
   Target: < 1 ms per item.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from llm_server import LLMServer

from pytest_memeval.llm import LLMResponder, LLMSettings, MultisourcePrompt
from pytest_memeval.types import Answer, ItemView, Memory

REPLY = '{"answer": "10_to_19", "would_skip": false}'
SPACE = ("fewer_than_10", "10_to_19", "20_or_more")
Context = list[tuple[str, ItemView, list[Memory]]]


def contexts(n_contexts: int, n_items: int, k: int = 10) -> list[Context]:
    """Realistic sizes: each item has its own question and k memories of ~200 characters."""
    base = ItemView("multisource", "A1", "", SPACE)
    out = []
    for c in range(n_contexts):
        items = []
        for i in range(n_items):
            view = replace(base, question=f"Persona {c}, question {i}: in the past 30 days, how many nights ...?")
            memories = [
                Memory(f"[{c}/{i}/{j}] " + "the person slept about seven hours and planned to exercise " * 3)
                for j in range(k)
            ]
            items.append((f"ctx{c:02d}-item{i:02d}", view, memories))
        out.append(items)
    return out


def run(responder: LLMResponder, data: Sequence[Context], prefetch: bool) -> float:
    started = time.perf_counter()
    for context in data:
        if prefetch:
            responder.prefetch(context)
        for label, view, memories in context:
            answer = responder.answer(view, memories, label=label)
            assert answer.valid, answer
    return time.perf_counter() - started


def per_item(fn: Callable[[], None], n_items: int, repeats: int) -> float:
    """Best-of-`repeats` seconds per item (the least disturbed run)."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times) / n_items


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--contexts", type=int, default=20)
    parser.add_argument("--items", type=int, default=20)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", default="8,16,20")
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench-not-a-real-key-000000")
    data = contexts(args.contexts, args.items)
    n = args.contexts * args.items
    prompt = MultisourcePrompt()

    print(f"{n} items ({args.contexts} contexts x {args.items}), {args.latency * 1000:.0f} ms per call, one worker")
    with LLMServer(REPLY, latency_s=args.latency) as server:
        settings = LLMSettings(model="bench", base_url=server.base_url, timeout_s=10, concurrency=1)
        responder = LLMResponder(prompt, settings)
        sequential = run(responder, data, prefetch=False)
        responder.close()
        print(f"  one call at a time        {sequential:7.2f} s   ({sequential / n * 1000:.0f} ms/item)")
        for concurrency in (int(c) for c in args.concurrency.split(",")):
            responder = LLMResponder(prompt, replace(settings, concurrency=concurrency))
            prefetched = run(responder, data, prefetch=True)
            responder.close()
            print(
                f"  prefetch, concurrency {concurrency:<3} {prefetched:7.2f} s   speed-up {sequential / prefetched:5.1f}x"
            )

    with tempfile.TemporaryDirectory() as tmp, LLMServer(REPLY) as server:
        cache_path = Path(tmp) / "llm.sqlite"
        record = LLMSettings(
            model="bench", base_url=server.base_url, cache_mode="readwrite", cache_path=cache_path, concurrency=16
        )
        recorder = LLMResponder(prompt, record)
        run(recorder, data, prefetch=True)
        recorder.close()
        server.reset()
        replayer = LLMResponder(prompt, replace(record, cache_mode="replay"))
        offline = Answer("10_to_19")

        def replay_run() -> None:
            for context in data:
                replayer.prefetch(context)
                for label, view, memories in context:
                    replayer.answer(view, memories, label=label)

        def offline_run() -> None:
            for context in data:
                for _label, view, _memories in context:
                    _ = offline if view is not None else None

        replayed = per_item(replay_run, n, 5)
        noop = per_item(offline_run, n, 5)
        replayer.close()
        assert server.count == 0
    overhead = replayed - noop
    print(
        f"replay: {replayed * 1e6:6.0f} us/item, no-op offline answer {noop * 1e6:.2f} us/item, "
        f"overhead {overhead * 1e3:.3f} ms/item (0 HTTP requests)"
    )


if __name__ == "__main__":
    main()
