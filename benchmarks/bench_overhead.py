"""The plugin's CPU against bare pytest's on the same number of trivial tests, side by side.

    .venv/bin/python benchmarks/bench_overhead.py [--size small] [--pairs 7] [--workers 0,2]

For each worker count N (0: one process, `-p no:xdist`), --pairs A/B pairs (benchmarks/paired.py:
each arm warmed up once, the arms of a pair back to back, their order alternating) of

    plugin: pytest --memsystem=context --memeval-suite=multisource --memeval-size=SIZE --memeval-report=none -q [-n N]
    bare:   pytest test_trivial.py -q -p no:memeval [-n N]
            (test_trivial.py: one test parametrized over as many ids as the suite has items)

each in a fresh directory outside any checkout (no conftest.py, no testpaths), from the same
warm caches: the suite's item index and readers (warmed once before), and Python's bytecode
(written under a private PYTHONPYCACHEPREFIX, also when $PYTHONDONTWRITEBYTECODE is set, so
that neither run pays for compiling its modules). CPU is user + system seconds of the
pytest process and everything it waited for (xdist's workers included), from
getrusage(RUSAGE_CHILDREN). Prints per N the median of the pairs' plugin/bare CPU ratios with
its range and the load average, each side's median CPU per item, and per N > 0 the same for
the controller's own CPU from session start to its end (benchmarks/summary_timing.py, pairs of
their own): bare xdist's is the floor, what xdist itself costs.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from isolated_env import isolated_env, machine_line  # benchmarks/, the script's own directory
from paired import Figures, median_of, ratio_line, run_pairs

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
    parser.add_argument("--pairs", type=int, default=7, help="A/B pairs per worker count")
    parser.add_argument("--workers", default="0,2", help="xdist worker counts (0: one process)")
    options = parser.parse_args()
    n_items = ITEMS[options.size]
    print(machine_line())
    with tempfile.TemporaryDirectory(prefix="memeval-overhead-") as tmp:
        root = Path(tmp)
        env = isolated_env(root)
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
            plugin_args = [*suite, *common, *xdist]
            bare_args = ["test_trivial.py", *common, "-p", "no:memeval", *xdist]

            def plugin(args: list[str] = plugin_args) -> Figures:
                cpu, wall, tail = timed(args, plugin_dir, env)
                return {"cpu_s": cpu, "wall_s": wall}

            def bare(args: list[str] = bare_args) -> Figures:
                cpu, wall, tail = timed(args, bare_dir, env)
                return {"cpu_s": cpu, "wall_s": wall}

            def report(pair: int, arm: str, figures: Figures, n: int = n) -> None:
                print(
                    f"  -n {n} pair {pair} {arm}: {figures['cpu_s']:.2f} s CPU, {figures['wall_s']:.2f} s wall",
                    flush=True,
                )

            pairs = run_pairs({"plugin": plugin, "bare": bare}, options.pairs, report)
            ratios = [p["plugin"]["cpu_s"] / p["bare"]["cpu_s"] for p in pairs]
            plugin_cpu, bare_cpu = median_of(pairs, "plugin", "cpu_s"), median_of(pairs, "bare", "cpu_s")
            print(
                f"-n {n}: plugin {plugin_cpu:.2f} s CPU ({1000 * plugin_cpu / n_items:.2f} ms per item), bare "
                f"{bare_cpu:.2f} s CPU ({1000 * bare_cpu / n_items:.2f} ms per item) (medians)"
            )
            print(ratio_line(f"-n {n} plugin / bare CPU", ratios, pairs), flush=True)
            if n:

                def plugin_controller(args: list[str] = plugin_args) -> Figures:
                    return {"cpu_s": controller_cpu(args, plugin_dir, env)}

                def bare_controller(args: list[str] = bare_args) -> Figures:
                    return {"cpu_s": controller_cpu(args, bare_dir, env)}

                pairs = run_pairs({"plugin": plugin_controller, "bare": bare_controller}, options.pairs, warm_up=False)
                ratios = [p["plugin"]["cpu_s"] / p["bare"]["cpu_s"] for p in pairs]
                print(
                    f"-n {n} controller, session start to end: plugin "
                    f"{1000 * median_of(pairs, 'plugin', 'cpu_s') / n_items:.2f} ms CPU per item, bare xdist "
                    f"{1000 * median_of(pairs, 'bare', 'cpu_s') / n_items:.2f} ms (medians)"
                )
                print(ratio_line(f"-n {n} controller, plugin / bare xdist CPU", ratios, pairs), flush=True)


if __name__ == "__main__":
    main()
