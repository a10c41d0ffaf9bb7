"""Items per second against a real local model (SmolLM2-135M behind llama.cpp's server),
with and without the prefetcher, and the valid-answer share with and without structured
output. Needs the [llm-local] extra.

    .venv/bin/python benchmarks/bench_local_model.py [--personas 3] [--per-persona 4] [--k 3]

Items: multisource questions of the first personas of the smoke set, each with the three
memories chroma (hashing embedder) returns for it; max_tokens 64, so an answer that runs on
is cut (a valid one takes about 20 tokens). Without the call cache, every pass asks the
server. First the valid share with structured output off and auto (one pass each); then
`--rounds` rounds of three passes with structured output: one call at a time, each
persona's items prefetched at concurrency 1, and at concurrency 2, in a rotated order per
round so that the machine's drifting load falls on every mode alike; the median items/s
per mode is reported with its range. The server answers one call at a time, so prefetching
can only overlap what the consumer does between answers.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from live import retrieved, suite_items

from pytest_memeval.config.model_specs import parse_specs
from pytest_memeval.config.option_values import cache_dir
from pytest_memeval.llm import LLMResponder, LLMSettings, MultisourcePrompt
from pytest_memeval.llm.local_model import LocalServer

Work = list[list[tuple[str, Any, list[Any]]]]  # per persona: (label, view, memories)


def workload(personas: int, per_persona: int, k: int, workdir: Path) -> Work:
    out: Work = []
    for index in range(personas):
        suite, items = suite_items("multisource", workdir / "cache", context=index)
        chosen = items[:: max(1, len(items) // per_persona)][:per_persona]
        memories = retrieved(suite, chosen, workdir / f"p{index}", k)
        out.append([(item.id, item.view, found) for item, found in zip(chosen, memories, strict=True)])
    return out


def run(settings: LLMSettings, work: Work, prefetch: bool) -> tuple[float, float]:
    """(seconds, valid share) for one pass over `work`."""
    responder = LLMResponder(MultisourcePrompt(), settings)
    valid = total = 0
    started = time.perf_counter()
    try:
        for persona in work:
            if prefetch:
                responder.prefetch(persona)
            for label, view, memories in persona:
                answer = responder.answer(view, memories, label=label)
                valid += answer.valid
                total += 1
    finally:
        responder.close()
    return time.perf_counter() - started, valid / total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--personas", type=int, default=3)
    parser.add_argument("--per-persona", type=int, default=4)
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench-local-not-a-real-key")
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        work = workload(args.personas, args.per_persona, args.k, workdir)
        n = sum(len(p) for p in work)
        with LocalServer(parse_specs("bench", "smollm2-135m"), cache_dir=cache_dir(None)) as server:
            base = LLMSettings(
                model="smollm2-135m",
                base_url=server.base_url,
                context_window=server.n_ctx,
                max_tokens=64,
                timeout_s=300,
                timeout_per_1k_tokens_s=60,
                max_attempts=2,
                concurrency=1,
            )
            print(
                f"{n} multisource items ({args.personas} personas x {args.per_persona}), k={args.k}, SmolLM2-135M Q4_1, "
                f"load average {os.getloadavg()[0]:.1f} at start"
            )
            for name, settings in (("structured off", replace(base, structured="off")), ("structured auto", base)):
                seconds, share = run(settings, work, prefetch=False)
                print(f"  valid share, {name:<16} {share:6.1%}  ({n / seconds:.3f} items/s)")
            modes: tuple[tuple[str, LLMSettings, bool], ...] = (
                ("one call at a time", base, False),
                ("prefetch, concurrency 1", base, True),
                ("prefetch, concurrency 2", replace(base, concurrency=2), True),
            )
            rates: dict[str, list[float]] = {name: [] for name, _, _ in modes}
            for round_ in range(args.rounds):
                for name, settings, prefetch in modes[round_ % 3 :] + modes[: round_ % 3]:
                    seconds, _ = run(settings, work, prefetch)
                    rates[name].append(n / seconds)
            for name, values in rates.items():
                print(
                    f"  {name:<26} median {statistics.median(values):6.3f} items/s  (range {min(values):.3f} to {max(values):.3f}, {len(values)} passes)"
                )
            print(f"load average {os.getloadavg()[0]:.1f} at the end (2 cores)")


if __name__ == "__main__":
    main()
