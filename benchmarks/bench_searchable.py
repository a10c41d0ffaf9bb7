"""What --memeval-searchable costs a run, paired A/B: the same pytest run without the probe
(A) and with it (B), the pairs in ABBA order so that a drift of the machine's load falls on
both sides.

    python benchmarks/bench_searchable.py [--memsystem chroma] [--suite locomo] [--pairs 4]

Each run is `pytest --memsystem=SYSTEM --memeval-suite=SUITE -p no:xdist -q` in a process
of its own; its CPU seconds (user + system of the process and its children) and wall
seconds are measured, and each pair's B/A ratio of CPU is printed beside the load average,
then the median ratio, and the last B run's time to searchable (p50/p95/p99, n).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run(system: str, suite: str, report: Path, probe: bool) -> tuple[float, float]:
    """CPU and wall seconds of one run."""
    args = [sys.executable, "-m", "pytest", f"--memsystem={system}", f"--memeval-suite={suite}", "-p", "no:xdist"]
    args += ["-q", f"--memeval-report={report}", *(["--memeval-searchable"] if probe else [])]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memsystem", default="chroma")
    parser.add_argument("--suite", default="locomo")
    parser.add_argument("--pairs", type=int, default=4)
    options = parser.parse_args()
    ratios: list[float] = []
    searchable = None
    with tempfile.TemporaryDirectory() as directory:
        report = Path(directory) / "report.json"
        for pair in range(options.pairs):
            order = (False, True) if pair % 2 == 0 else (True, False)
            measured = {probe: run(options.memsystem, options.suite, report, probe) for probe in order}
            if order[-1]:
                searchable = json.loads(report.read_text())["usage"][0]["latency"].get("searchable")
            (cpu_a, wall_a), (cpu_b, wall_b) = measured[False], measured[True]
            ratios.append(cpu_b / cpu_a)
            print(
                f"pair {pair + 1} ({'AB' if order[0] is False else 'BA'}): A cpu {cpu_a:.2f} s wall {wall_a:.2f} s, "
                f"B cpu {cpu_b:.2f} s wall {wall_b:.2f} s, B/A cpu {ratios[-1]:.3f}, load {os.getloadavg()[0]:.2f}"
            )
    print(f"median B/A cpu over {len(ratios)} pairs: {statistics.median(ratios):.3f}")
    print(f"time to searchable (ms) of the last B run: {searchable}")


if __name__ == "__main__":
    main()
