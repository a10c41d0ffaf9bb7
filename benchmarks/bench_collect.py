"""Collection time of the full multisource suite against bare pytest, in A/B pairs.

    python benchmarks/bench_collect.py [--pairs 5]

Bare: `pytest --collect-only -q -p no:memeval` of one test parametrized 34,560 times.
Suite: `pytest --collect-only -q --memsystem=none --memeval-size=full --memeval-suite=multisource`
in an empty directory. First one run on a cold cache (a fresh cache directory: every persona
of four seeds is generated; a single run, the first of every installation), then --pairs
A/B pairs (benchmarks/paired.py: each arm warmed up once, the arms of a pair back to back,
their order alternating) of the suite on the warm cache (the item index and gold facts on
disk, the normal case after the first run) against bare pytest, both from warm bytecode
(benchmarks/isolated_env.py). Wall seconds of separate processes; prints the median of the
per-pair ratios with its range and the load averages.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

from isolated_env import isolated_env, machine_line  # benchmarks/, the script's own directory
from paired import Figures, load_average, median_of, ratio_line, run_pairs

ITEMS = 34_560
BARE_TEST = f"""
import pytest

@pytest.mark.parametrize("i", range({ITEMS}))
def test_trivial(i):
    pass
"""
SUITE = ["--memsystem=none", "--memeval-size=full", "--memeval-suite=multisource"]
COMMON = ["--collect-only", "-q", "-p", "no:cacheprovider"]


def timed(args: list[str], cwd: Path, env: dict[str, str]) -> Figures:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", *args], cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr.strip()
        raise SystemExit(f"pytest {' '.join(args)} failed ({done.returncode}): {last}")
    return {"wall_s": elapsed}


def report(pair: int, arm: str, figures: Figures) -> None:
    print(f"  pair {pair}, {arm}: {figures['wall_s']:.2f} s, load {load_average():.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=5)
    options = parser.parse_args()
    print(machine_line())
    with tempfile.TemporaryDirectory(prefix="memeval-collect-") as tmp:
        root = Path(tmp)
        bare_dir, suite_dir = root / "bare", root / "suite"
        bare_dir.mkdir()
        suite_dir.mkdir()
        (bare_dir / "test_bare.py").write_text(BARE_TEST)
        env = isolated_env(root)
        cold = timed([*COMMON, *SUITE], suite_dir, env)["wall_s"]  # fills the cache
        print(f"multisource full, cold cache (one run, every persona generated): {cold:.2f} s", flush=True)
        arms = {
            "suite": partial(timed, [*COMMON, *SUITE], suite_dir, env),
            "bare": partial(timed, [*COMMON, "-p", "no:memeval"], bare_dir, env),
        }
        pairs = run_pairs(arms, options.pairs, report)
    ratios = [pair["suite"]["wall_s"] / pair["bare"]["wall_s"] for pair in pairs]
    print(
        f"--collect-only of {ITEMS:,} items: suite {median_of(pairs, 'suite', 'wall_s'):.2f} s, bare "
        f"{median_of(pairs, 'bare', 'wall_s'):.2f} s (medians)"
    )
    print(ratio_line("suite (warm cache) / bare", ratios, pairs))
    print(f"cold cache / bare (median): {cold / median_of(pairs, 'bare', 'wall_s'):.2f}x")


if __name__ == "__main__":
    main()
