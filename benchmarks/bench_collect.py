"""Collection time of the full multisource suite against bare pytest, side by side.

    python benchmarks/bench_collect.py [--repeat 3]

Bare: `pytest --collect-only -q -p no:memeval` of one test parametrized 34,560 times.
Suite: `pytest --collect-only -q --memsystem=none --memeval-size=full --memeval-suite=multisource`
in an empty directory, with a warm cache (the item index and gold facts on disk, the
normal case after the first run) and with a cold one (a fresh cache directory, so every
persona of four seeds is generated). Wall-clock medians of separate processes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ITEMS = 34_560
BARE_TEST = f"""
import pytest

@pytest.mark.parametrize("i", range({ITEMS}))
def test_trivial(i):
    pass
"""


def timed(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", *args], cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr.strip()
    if done.returncode != 0:
        raise SystemExit(f"pytest {' '.join(args)} failed ({done.returncode}): {last}")
    return elapsed, last


def median_of(repeat: int, args: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    runs = [timed(args, cwd, env) for _ in range(repeat)]
    return statistics.median(t for t, _ in runs), runs[-1][1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    repeat = parser.parse_args().repeat
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        bare_dir, suite_dir = root / "bare", root / "suite"
        bare_dir.mkdir()
        suite_dir.mkdir()
        (bare_dir / "test_bare.py").write_text(BARE_TEST)
        env = dict(os.environ, MEMEVAL_CACHE_DIR=str(root / "cache"), PYTHONDONTWRITEBYTECODE="1")
        suite_args = [
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            "--memsystem=none",
            "--memeval-size=full",
            "--memeval-suite=multisource",
        ]

        cold, cold_line = timed(suite_args, suite_dir, env)  # fills the cache
        bare, bare_line = median_of(
            repeat, ["--collect-only", "-q", "-p", "no:cacheprovider", "-p", "no:memeval"], bare_dir, env
        )
        warm, warm_line = median_of(repeat, suite_args, suite_dir, env)

    print(f"bare pytest, {ITEMS} trivial parameters: {bare:6.2f} s  ({bare_line})")
    print(f"multisource full, warm cache:          {warm:6.2f} s  ({warm_line})  ratio {warm / bare:.2f}x")
    print(f"multisource full, cold cache:          {cold:6.2f} s  ({cold_line})  ratio {cold / bare:.2f}x")


if __name__ == "__main__":
    main()
