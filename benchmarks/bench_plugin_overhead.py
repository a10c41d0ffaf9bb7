"""The plugin against a plain loop doing the same work, whole process, one core.

    python benchmarks/bench_plugin_overhead.py [--size full] [--split test] [--repeat 3]

Plugin: `pytest --memsystem=context --memeval-suite=multisource --memeval-report=none -n 0 -q` (default output,
so thousands of wrong answers are printed). Plain loop: a Python process that builds the
same suite, and for every item calls the functions the plugin calls — `suite.item`,
`ContextMemory.ingest` once per persona, `retrieve`, the reader's `answer`, the judge's
`score` — keeps a record of each, and summarises them with the suite's `summarize` (the
same confidence intervals). Both start from the same warm cache ($MEMEVAL_CACHE_DIR or a
temporary one warmed first). Prints CPU seconds (user + system, the process and its
children) and wall seconds, medians of --repeat runs, and their ratio.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def loop(size: str, split: str | None) -> None:
    """The plain loop (run in its own process by main)."""
    from pytest_memeval.suites.multisource.suite import MultisourceSuite

    from pytest_memeval.framework.suite import SuiteOptions
    from pytest_memeval.memory.context import ContextMemory
    from pytest_memeval.results.records import Record, RunKey
    from pytest_memeval.types import Trace

    cache = Path(os.environ["MEMEVAL_CACHE_DIR"])
    suite = MultisourceSuite(SuiteOptions(size, split, None, 10, None, cache))
    reader, judge, memory = suite.reader(), suite.judge(), ContextMemory()
    key = RunKey("multisource", "context")
    filled: set[str] = set()
    records = []
    for entry in suite.index():
        item = suite.item(entry.id)
        if item.context_id not in filled:
            for session in suite.context(item.context_id).sessions:
                memory.ingest(item.context_id, session)
            filled.add(item.context_id)
        memories = memory.retrieve(item.context_id, item.view.question, 10)
        answer = reader.answer(item.view, memories, label=item.id)
        verdict = judge.score(item, answer, Trace(tuple(memories)))
        records.append(
            Record(
                id=item.id,
                key=key,
                suite_ref="multisource",
                context=item.context_id,
                cluster=item.cluster,
                task=item.view.task,
                status="scored",
                strata=dict(item.strata),
                answer=answer.label,
                abstained=answer.abstained,
                correct=verdict.correct,
                score=verdict.score,
                gold=item.gold,
                n_memories=len(memories),
                detail=dict(verdict.detail),
                answer_detail=dict(answer.detail),
            )
        )
    summary = suite.summarize(records)
    print(f"{len(records)} items, accuracy {summary.metrics['accuracy'].value:.4f}")


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=env["BENCH_CWD"], check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}: {done.stdout[-1500:]}{done.stderr[-1500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done.stdout.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", default="full")
    parser.add_argument("--split", default="test")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--loop", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.loop:
        loop(options.size, options.split)
        return
    with tempfile.TemporaryDirectory(prefix="memeval-overhead-") as tmp:
        env = dict(os.environ, BENCH_CWD=tmp)
        env.setdefault("MEMEVAL_CACHE_DIR", str(Path(tmp) / "cache"))
        selection = [f"--memeval-size={options.size}"] + ([f"--memeval-split={options.split}"] if options.split else [])
        plugin = [
            sys.executable,
            "-m",
            "pytest",
            "--memsystem=context",
            "--memeval-suite=multisource",
            *selection,
            "--memeval-report=none",  # the reports, written once at the end: bench_html_report.py
            "-n",
            "0",
            "-q",
            "-p",
            "no:cacheprovider",
        ]
        plain = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--loop",
            f"--size={options.size}",
            *([f"--split={options.split}"] if options.split else []),
        ]
        timed(plain, env)  # warm the cache: index, facts, fitted readers
        runs: dict[str, list[tuple[float, float, str]]] = {"plugin": [], "loop": []}
        for _ in range(options.repeat):  # interleaved, so that load on the machine hits both alike
            runs["plugin"].append(timed(plugin, env))
            runs["loop"].append(timed(plain, env))
    medians = {
        name: (statistics.median(r[0] for r in rs), statistics.median(r[1] for r in rs)) for name, rs in runs.items()
    }
    for name, (cpu, wall) in medians.items():
        print(f"{name:>6}: {cpu:7.2f} s CPU, {wall:7.2f} s wall   ({runs[name][-1][2]})")
    print(
        f"plugin / loop: {medians['plugin'][0] / medians['loop'][0]:.2f}x CPU, "
        f"{medians['plugin'][1] / medians['loop'][1]:.2f}x wall (medians of {options.repeat})"
    )


if __name__ == "__main__":
    main()
