"""Peak resident memory of the xdist controller and of its workers: the plugin against bare
pytest-xdist on as many trivial tests, in A/B pairs alternated in the same minutes.

    .venv/bin/python benchmarks/bench_controller_memory.py [--items 8640,34560] [--pairs 3] [--workers 2]

For each item count, --pairs times, the two arms one after the other (the first arm
alternating between pairs):

    plugin: pytest --memsystem=context --memeval-suite=multisource --memeval-size=full
            [--memeval-split=test for 8,640 items] -q -n W   (its default reports written:
            the JSON report, the HTML page and the journal, as a run writes them)
    bare:   pytest test_trivial.py -q -n W -p no:memeval
            (test_trivial.py: one test parametrized over as many ids)

each in a fresh directory outside any checkout, from the same warm caches (the suite's items
and reader, warmed once before; benchmarks/paired.py runs the pairs). Every process loads `benchmarks/rss_probe.py`, which writes
its peak resident set (VmHWM) and its resident set at the session's phases. Prints, per
run, the controller's and the largest worker's peak with the load average; then per item
count the median of the per-pair ratios with their range and the load averages, the medians
of the peaks, and the plugin controller's resident set when the items had run (before the
reports are made).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

from isolated_env import isolated_env, machine_line  # benchmarks/, the script's own directory
from paired import Figures, load_average, median_of, ratio_line, run_pairs

#: multisource's options for each item count: full size is 34,560 items, its test split 8,640
SIZES = {
    216: ["--memeval-size=smoke"],
    2160: ["--memeval-size=small"],
    8640: ["--memeval-size=full", "--memeval-split=test"],
    34560: ["--memeval-size=full"],
}
TRIVIAL = """import pytest


@pytest.mark.parametrize("i", range({n}))
def test_trivial(i):
    assert i >= 0
"""
COMMON = ["-q", "-p", "no:cacheprovider", "-p", "rss_probe"]


def run(args: list[str], cwd: Path, env: dict[str, str]) -> Figures:
    """One pytest run: the peaks (MiB) of its controller and of its largest worker, and the
    controller's resident set when the session began to finish."""
    probes = cwd / "rss"
    probes.mkdir(exist_ok=True)
    for old in probes.iterdir():
        old.unlink()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *args],
        cwd=cwd,
        env=dict(env, MEMEVAL_RSS_DIR=str(probes)),
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if done.returncode not in (0, 1):
        sys.exit(f"pytest {' '.join(args)} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    # xdist's workers write theirs as they exit, which may be after the controller has
    deadline = time.monotonic() + 20
    while len(list(probes.glob("gw*.json"))) < workers(args) and time.monotonic() < deadline:
        time.sleep(0.2)
    found = {path.stem: json.loads(path.read_text()) for path in probes.glob("*.json")}
    controller = found.pop("controller")
    if len(found) < workers(args):
        sys.exit(
            f"pytest {' '.join(args)}: {len(found)} of {workers(args)} workers wrote their peak:\n"
            f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        )
    finishing = next(p["rss_mib"] for p in controller["phases"] if p["phase"] == "session finishing")
    return {
        "controller": controller["peak_mib"],
        "worker": max(w["peak_mib"] for w in found.values()),
        "finishing": finishing,
    }


def workers(args: list[str]) -> int:
    return int(args[args.index("-n") + 1])


def report(pair: int, arm: str, figures: Figures) -> None:
    print(
        f"  pair {pair}, {arm}: controller {figures['controller']:.0f} MiB, largest worker "
        f"{figures['worker']:.0f} MiB, load {load_average():.1f}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", default="8640,34560", help=f"item counts, of {sorted(SIZES)}")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    options = parser.parse_args()
    counts = [int(n) for n in options.items.split(",")]
    for n in counts:
        if n not in SIZES:
            parser.error(f"--items: {n} is not one of {sorted(SIZES)}")
    print(machine_line())
    with tempfile.TemporaryDirectory(prefix="memeval-memory-") as tmp:
        root = Path(tmp)
        env = isolated_env(root)
        xdist = ["-n", str(options.workers)]
        warm = root / "warm"
        warm.mkdir()
        # the item index and reader of every size on a cold cache, and bytecode, before any pair
        for n in counts:
            suite = ["--memsystem=context", "--memeval-suite=multisource", *SIZES[n], "--memeval-report=none"]
            subprocess.run(
                [sys.executable, "-m", "pytest", *suite, "-q", "-n", "1", "-k", "memeval_warm_up_selects_nothing"],
                cwd=warm,
                env=env,
                capture_output=True,
                timeout=1800,
            )
        for n in counts:
            plugin_dir, bare_dir = root / f"plugin-{n}", root / f"bare-{n}"
            plugin_dir.mkdir()
            bare_dir.mkdir()
            (bare_dir / "test_trivial.py").write_text(TRIVIAL.format(n=n))
            plugin = ["--memsystem=context", "--memeval-suite=multisource", *SIZES[n], *COMMON, *xdist]
            bare = ["test_trivial.py", "-p", "no:memeval", *COMMON, *xdist]
            print(
                f"\n{n:,} items, -n {options.workers}\nplugin: pytest {' '.join(plugin)}\nbare:   pytest {' '.join(bare)}"
            )

            arms = {"plugin": partial(run, plugin, plugin_dir, env), "bare": partial(run, bare, bare_dir, env)}
            pairs = run_pairs(arms, options.pairs, report, warm_up=False)  # the caches were warmed above
            for side, name in (("controller", "controller"), ("worker", "largest worker")):
                ratios = [pair["plugin"][side] / pair["bare"][side] for pair in pairs]
                print(ratio_line(f"{n:,} items, {name}'s peak, plugin / bare", ratios, pairs))
            print(
                f"{n:,} items, medians: controller {median_of(pairs, 'plugin', 'controller'):.0f} MiB (plugin) / "
                f"{median_of(pairs, 'bare', 'controller'):.0f} MiB (bare), largest worker "
                f"{median_of(pairs, 'plugin', 'worker'):.0f} / {median_of(pairs, 'bare', 'worker'):.0f} MiB; the "
                f"plugin's controller held {median_of(pairs, 'plugin', 'finishing'):.0f} MiB when the items had run",
                flush=True,
            )


if __name__ == "__main__":
    main()
