"""The plugin's CPU against bare pytest's on the same number of trivial tests, side by side.

    .venv/bin/python benchmarks/bench_overhead.py [--size small] [--repeat 3] [--workers 0,2]

For each worker count N (0: one process, `-p no:xdist`), alternating, --repeat times:

    plugin: pytest --memsystem=context --memeval-suite=multisource --memeval-size=SIZE --memeval-report=none -q [-n N]
    bare:   pytest test_trivial.py -q -p no:memeval [-n N]
            (test_trivial.py: one test parametrized over as many ids as the suite has items)

each in a fresh directory outside any checkout (no conftest.py, no testpaths), from the same
warm caches: the suite's item index and readers (warmed once before), and Python's bytecode
(written under a private PYTHONPYCACHEPREFIX, also when $PYTHONDONTWRITEBYTECODE is set, so
that neither run pays for compiling its modules). CPU is user + system seconds of the
pytest process and everything it waited for (xdist's workers included), from
getrusage(RUSAGE_CHILDREN). Prints the medians and the plugin/bare ratio per N, the CPU per
item of each side, and per N > 0 the controller's own CPU per item from session start to its
end (benchmarks/summary_timing.py): bare xdist's is the floor, what xdist itself costs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ITEMS = {"smoke": 216, "small": 2160, "full": 8640}
TRIVIAL = """import pytest


@pytest.mark.parametrize("i", range({n}))
def test_trivial(i):
    assert i >= 0
"""


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def controller_cpu(args: list[str], cwd: Path, env: dict[str, str]) -> float:
    """The controller's own CPU seconds from session start to its end (an xdist run)."""
    timing = cwd / "timing.json"
    timing.unlink(missing_ok=True)
    timed([*args, "-p", "summary_timing"], cwd, dict(env, MEMEVAL_TIMING=str(timing)))
    return float(json.loads(timing.read_text())["end"]["cpu_s"])


def timed(args: list[str], cwd: Path, env: dict[str, str], ok: tuple[int, ...] = (0, 1)) -> tuple[float, float, str]:
    """CPU seconds (the process and what it waited for), wall seconds, last output line."""
    before, started = children_cpu(), time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=1800
    )
    wall, cpu = time.perf_counter() - started, children_cpu() - before
    lines = done.stdout.strip().splitlines()
    if done.returncode not in ok:
        sys.exit(f"pytest {' '.join(args)} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return cpu, wall, lines[-1] if lines else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="small", choices=sorted(ITEMS))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", default="0,2", help="xdist worker counts (0: one process)")
    options = parser.parse_args()
    n_items = ITEMS[options.size]
    print(f"{platform.node()}: {os.cpu_count()} cores, Python {platform.python_version()}, load {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="memeval-overhead-") as tmp:
        root = Path(tmp)
        env = dict(
            os.environ,
            MEMEVAL_CACHE_DIR=str(root / "cache"),
            PYTHONPYCACHEPREFIX=str(root / "pycache"),
            PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parent), os.environ.get("PYTHONPATH", "")]),
        )
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        plugin_dir, bare_dir = root / "plugin", root / "bare"
        plugin_dir.mkdir()
        bare_dir.mkdir()
        (bare_dir / "test_trivial.py").write_text(TRIVIAL.format(n=n_items))
        # the plugin's cost per item: the report files, written once at the end, are measured
        # by bench_html_report.py (a run writes them by default)
        suite = [
            "--memsystem=context",
            "--memeval-suite=multisource",
            f"--memeval-size={options.size}",
            "--memeval-report=none",
        ]
        common = ["-q", "-p", "no:cacheprovider"]
        # the item index and readers (the controller of an xdist run warms them), and bytecode
        timed([*suite, *common, "-n", "1", "-k", "memeval_warm_up_selects_nothing"], plugin_dir, env, (5,))
        timed(["test_trivial.py", *common, "-p", "no:memeval", "-n", "1", "-k", "nothing"], bare_dir, env, (5,))
        print(f"plugin: pytest {' '.join(suite)} {' '.join(common)}")
        print(f"bare:   pytest test_trivial.py ({n_items} trivial tests) {' '.join(common)} -p no:memeval")
        for n in (int(w) for w in options.workers.split(",")):
            xdist = ["-n", str(n)] if n else ["-p", "no:xdist"]
            runs: dict[str, list[tuple[float, float]]] = {"plugin": [], "bare": []}
            for _ in range(options.repeat):
                cpu, wall, tail = timed([*suite, *common, *xdist], plugin_dir, env)
                runs["plugin"].append((cpu, wall))
                cpu_b, wall_b, tail_b = timed(["test_trivial.py", *common, "-p", "no:memeval", *xdist], bare_dir, env)
                runs["bare"].append((cpu_b, wall_b))
                print(f"  -n {n}: plugin {cpu:.2f} s CPU ({tail}); bare {cpu_b:.2f} s CPU ({tail_b})", flush=True)
            plugin_cpu = statistics.median(c for c, _ in runs["plugin"])
            bare_cpu = statistics.median(c for c, _ in runs["bare"])
            plugin_wall = statistics.median(w for _, w in runs["plugin"])
            bare_wall = statistics.median(w for _, w in runs["bare"])
            print(
                f"-n {n}: plugin {plugin_cpu:.2f} s CPU / {plugin_wall:.2f} s wall, bare {bare_cpu:.2f} s CPU / "
                f"{bare_wall:.2f} s wall: CPU ratio {plugin_cpu / bare_cpu:.2f}x; per item "
                f"{1000 * plugin_cpu / n_items:.2f} ms vs {1000 * bare_cpu / n_items:.2f} ms (medians of {options.repeat})"
            )
            if n:
                plugin_ctl = statistics.median(
                    controller_cpu([*suite, *common, *xdist], plugin_dir, env) for _ in range(options.repeat)
                )
                bare_ctl = statistics.median(
                    controller_cpu(["test_trivial.py", *common, "-p", "no:memeval", *xdist], bare_dir, env)
                    for _ in range(options.repeat)
                )
                print(
                    f"-n {n} controller, session start to end: plugin {1000 * plugin_ctl / n_items:.2f} ms CPU per "
                    f"item, bare xdist {1000 * bare_ctl / n_items:.2f} ms: {plugin_ctl / bare_ctl:.2f}x"
                )


if __name__ == "__main__":
    main()
