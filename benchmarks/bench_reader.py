"""The multisource offline reader alone: milliseconds per answer, as the plugin calls it.

    python benchmarks/bench_reader.py [--size smoke|full] [--split test] [--repeat 3]
    PYTHONPATH=/path/to/older/checkout python benchmarks/bench_reader.py ...   (before)

Every item of the selection is answered from what `context` returns for it (the whole
persona, a fresh list per item, as the runner retrieves once per item), persona after
persona in index order. Only `reader.answer` is timed; the readers are fitted (or read from
the cache, $MEMEVAL_CACHE_DIR) beforehand. Prints the median over --repeat passes and a
digest of every answer (label, abstention, detail), equal before and after a change that
keeps the answers.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import time
from pathlib import Path

from pytest_memeval.suites.multisource.suite import MultisourceSuite

import pytest_memeval
from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.memory.context import ContextMemory


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", default="smoke")
    parser.add_argument("--split", default=None)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    cache = Path(os.environ.get("MEMEVAL_CACHE_DIR", Path.home() / ".cache" / "pytest-memeval"))
    suite = MultisourceSuite(SuiteOptions(options.size, options.split, None, 10, None, cache))
    entries = suite.index()
    items = [suite.item(entry.id) for entry in entries]
    memory = ContextMemory()
    for context in dict.fromkeys(item.context_id for item in items):
        for session in suite.context(context).sessions:
            memory.ingest(context, session)
    reader = suite.reader()
    passes, digest = [], ""
    for _ in range(options.repeat):
        reader = suite.reader()  # a fresh reader: nothing parsed before the pass
        answers, spent = [], 0.0
        for item in items:
            memories = memory.retrieve(item.context_id, item.view.question, 10)
            started = time.perf_counter()
            answer = reader.answer(item.view, memories, label=item.id)
            spent += time.perf_counter() - started
            answers.append([answer.label, answer.abstained, dict(answer.detail)])
        passes.append(spent)
        digest = hashlib.sha256(json.dumps(answers, sort_keys=True).encode()).hexdigest()[:16]
    median = statistics.median(passes)
    print(f"pytest_memeval from {Path(pytest_memeval.__file__).parent}")
    print(
        f"{len(items)} items ({options.size}, split {options.split or 'default'}): "
        f"{1000 * median / len(items):.3f} ms per answer (median of {options.repeat}; "
        f"passes {', '.join(f'{p:.2f}' for p in passes)} s)"
    )
    print(f"answers digest: {digest}")


if __name__ == "__main__":
    main()
