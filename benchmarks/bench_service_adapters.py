"""Ingest and retrieve latency of the service adapters: letta (archival) and supermemory.

    python benchmarks/bench_service_adapters.py --letta-server PATH/TO/letta     # starts one on 127.0.0.1
    python benchmarks/bench_service_adapters.py --letta-url http://127.0.0.1:8283
    python benchmarks/bench_service_adapters.py --skip-letta                     # supermemory only

letta: the adapter against a real Letta server (SQLite, the run's MiniLM served on
loopback); one 10-message session per ingest (ten passages), k=10 archival search.
supermemory: the adapter against the loopback contract server of the tests (the hosted
service cannot be reached here), so its figures are the client's and adapter's overhead,
not the service's. Wall-clock milliseconds, p50 and p95 after a warm-up.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from bench_ingest import WORDS, make_sessions, percentile

from pytest_memeval.memory.embedders import make_embedder


def measure(memory: Any, sessions: list, n_queries: int) -> dict[str, float]:
    memory.ingest("warmup", sessions[0])
    memory.retrieve("warmup", "warm up", 10)
    ingest, search = [], []
    for session in sessions:
        started = time.perf_counter()
        memory.ingest("bench", session)
        ingest.append((time.perf_counter() - started) * 1000)
    rng = random.Random(1)
    for _ in range(n_queries):
        query = " ".join(rng.choice(WORDS) for _ in range(8))
        started = time.perf_counter()
        hits = memory.retrieve("bench", query, 10)
        search.append((time.perf_counter() - started) * 1000)
        assert len(hits) == 10, len(hits)
    return {
        "sessions": len(sessions),
        "messages_per_session": len(sessions[0]),
        "ingest_ms_p50": round(percentile(ingest, 50), 1),
        "ingest_ms_p95": round(percentile(ingest, 95), 1),
        "search_ms_p50": round(percentile(search, 50), 1),
        "search_ms_p95": round(percentile(search, 95), 1),
    }


def bench_letta(args: argparse.Namespace, sessions: list) -> dict[str, float]:
    from pytest_memeval.memory.letta import LettaMemory

    embedder = make_embedder(args.embedder)
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        memory = LettaMemory(
            path=Path(tmp), embedder=embedder, base_url=args.letta_url, server_command=args.letta_server or "letta"
        )
        startup_s = time.perf_counter() - started
        try:
            results = measure(memory, sessions, args.queries)
        finally:
            memory.close()
    if args.letta_url is None:
        results["server_startup_s"] = round(startup_s, 1)
    return results


def bench_supermemory(sessions: list, n_queries: int) -> dict[str, float]:
    from supermemory_server import SupermemoryServer

    from pytest_memeval.memory.supermemory import SupermemoryMemory

    with SupermemoryServer(api_key="sk-bench") as server:
        memory = SupermemoryMemory(api_key="sk-bench", base_url=server.base_url, poll_interval_s=0.0)
        try:
            return measure(memory, sessions, n_queries)
        finally:
            memory.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--letta-server", help="the `letta` executable of the server's environment")
    parser.add_argument("--letta-url", help="a running Letta server instead")
    parser.add_argument("--skip-letta", action="store_true")
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    sessions = make_sessions(args.sessions, 10, seed=2)
    results: dict[str, Any] = {}
    if not args.skip_letta:
        results["letta"] = bench_letta(args, sessions)
    results["supermemory_loopback"] = bench_supermemory(sessions, args.queries)
    for name, figures in results.items():
        print(f"{name}: " + ", ".join(f"{key}={value}" for key, value in figures.items()))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
