"""Ingest and retrieve latency of any memory system, p50/p95 per session and per query.

    python benchmarks/bench_adapters.py --memsystem amem --config local.toml [--sessions 10] [--queries 20]
    python benchmarks/bench_adapters.py --memsystem chroma,mem0 --json out.json

The adapter is built as a run builds it (`from_memeval` with a private work directory,
settings from the TOML's table of that name). Sessions are knowme-like days: 4 messages of
20-60 words each (the session size of the bundled suites' contexts), one namespace; queries
are 8 words of the same vocabulary, k = 10. One warm-up session and query come first (model
loading and a cold LLM are not what a run pays per session). Systems that call an LLM on
ingest are bound by that LLM's speed: the figure is for the endpoint named in the config.
A session whose ingest fails (a small model's unreadable answer) is timed all the same and
counted in `failed_sessions` (the warm-up session may fail too).
Process CPU time is reported beside wall-clock time, since other processes share the cores.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_memeval.memory.resources import LazyEmbedder, Resources
from pytest_memeval.running.registry import build_memsystem, check_settings, resolve_memsystem
from pytest_memeval.types import Message

WORDS = (
    "morning walk coffee meeting report garden dinner train ticket doctor sleep steps heart rate "
    "budget invoice friend call weekend hike recipe bread market music lesson deadline email"
).split()


def make_sessions(n_sessions: int, per_session: int = 4, seed: int = 0) -> list[tuple[Message, ...]]:
    rng = random.Random(seed)
    return [
        tuple(
            Message(
                "user" if m % 2 == 0 else "assistant",
                f"Day {s}, note {m}: " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 60))) + ".",
            )
            for m in range(per_session)
        )
        for s in range(n_sessions + 1)
    ]


def summary(values: Sequence[float]) -> dict[str, float]:
    array = np.asarray(values) * 1000
    return {
        "p50_ms": round(float(np.percentile(array, 50)), 1),
        "p95_ms": round(float(np.percentile(array, 95)), 1),
        "n": len(values),
    }


def bench(name: str, settings: dict[str, Any], n_sessions: int, n_queries: int, embedder: str) -> dict[str, Any]:
    resolved = resolve_memsystem(name)
    check_settings(resolved, settings)
    sessions = make_sessions(n_sessions)
    rng = random.Random(1)
    queries = [" ".join(rng.choice(WORDS) for _ in range(8)) for _ in range(n_queries + 1)]
    with tempfile.TemporaryDirectory() as tmp:
        run_embedder = LazyEmbedder(embedder, Path(tmp) / "cache")
        resources = Resources(Path(tmp) / "work", run_embedder.get, embedder)
        system = build_memsystem(resolved, settings, resources)
        try:
            try:
                system.ingest("warmup", sessions[0])
            except Exception:
                pass  # what it warms up is loaded either way; its outcome is not measured
            system.retrieve("warmup", queries[0], 10)
            ingest_wall, ingest_cpu, failed = [], [], []
            for session in sessions[1:]:
                wall, cpu = time.perf_counter(), time.process_time()
                try:
                    system.ingest("bench", session)
                except Exception as exc:  # timed all the same: a failed session costs what it cost
                    failed.append(str(exc).splitlines()[0][:300])
                ingest_wall.append(time.perf_counter() - wall)
                ingest_cpu.append(time.process_time() - cpu)
            retrieve_wall, retrieve_cpu, returned = [], [], []
            for query in queries[1:]:
                wall, cpu = time.perf_counter(), time.process_time()
                returned.append(len(system.retrieve("bench", query, 10)))
                retrieve_wall.append(time.perf_counter() - wall)
                retrieve_cpu.append(time.process_time() - cpu)
            stored = system.dump("bench")
        finally:
            system.close()
            run_embedder.close()
    return {
        "memsystem": name,
        "settings": {k: v for k, v in settings.items() if "key" not in k.lower()},
        "ingest_per_session": summary(ingest_wall),
        "ingest_cpu_per_session": summary(ingest_cpu),
        "retrieve_per_query": summary(retrieve_wall),
        "retrieve_cpu_per_query": summary(retrieve_cpu),
        "messages_per_session": len(sessions[1]),
        "failed_sessions": len(failed),
        "first_failure": failed[0] if failed else None,
        "memories_stored": None if stored is None else len(stored),
        "mean_returned_at_k10": round(float(np.mean(returned)), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memsystem", required=True, help="one or more names, comma-separated")
    parser.add_argument(
        "--config", type=Path, help="TOML with one table of settings per system (as --memeval-adapter-config)"
    )
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--embedder", default="minilm", choices=("minilm", "hashing"))
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    config = tomllib.loads(args.config.read_text()) if args.config else {}
    results = []
    for name in args.memsystem.split(","):
        results.append(bench(name, dict(config.get(name, {})), args.sessions, args.queries, args.embedder))
        print(json.dumps(results[-1], indent=2), flush=True)  # each as it ends: a later system may fail
    text = json.dumps(results, indent=2)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
