"""How a suite's run scales with xdist workers, and where the controller's time goes.

    python benchmarks/bench_scaling.py [--workers 1,2,4,8,16] [--suite multisource]
        [--size full] [--split test] [--memsystem context] [--embedder hashing]
        [--cold] [--source DIR] [--json out.json] [-- extra pytest args]

Runs `pytest --memsystem=... --memeval-suite=...` once per worker count n in a fresh
directory (n = 1 is `-n 0`: one process, no xdist) with pytest's default output, and prints
per n: wall time, items/s, speedup and efficiency against n = 1, the CPU seconds of every
process, the controller's CPU per item while reports arrive, and the share of the run spent
in the terminal summary (wall and the controller's CPU). It then checks that every n gave
the same metrics and the same records (timings aside) and exits 1 if not.

Default worker counts: powers of two up to the machine's cores. The cache directory is
warmed first (item index, fitted readers) and shared by every n, unless --cold: then each
n starts from an empty cache and the reader fits are counted (a cold run should fit each
seed's reader once, on the controller). --source DIR runs the plugin from another checkout
(e.g. `git archive <commit> | tar -x -C DIR`) for before/after figures; give it a cache that
checkout has warmed with --cache-dir (the warm-up relies on the controller building readers).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent


def default_workers() -> list[int]:
    cores = os.cpu_count() or 1
    counts, n = [], 1
    while n <= cores:
        counts.append(n)
        n *= 2
    return counts


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_pytest(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, int, str]:
    """Wall seconds, CPU seconds of the pytest process and all its workers, exit status, output tail."""
    cpu_before, started = children_cpu(), time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    wall, cpu = time.perf_counter() - started, children_cpu() - cpu_before
    tail = (done.stdout.strip().splitlines() or [""])[-1] + done.stderr[-2000:]
    return wall, cpu, done.returncode, tail


def _without_timings(value: Any) -> Any:
    """A run's summary without what varies between identical runs (memfail reports latencies)."""
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if not (k.endswith("_ms") or k == "latency_ms")}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def one_run(n: int, base: list[str], root: Path, env: dict[str, str], cache: Path) -> dict[str, Any]:
    workdir = root / f"n{n}"
    workdir.mkdir()
    timing, fits = workdir / "timing.json", workdir / "fits.log"
    report = workdir / "report.json"
    run_env = dict(env, MEMEVAL_CACHE_DIR=str(cache), MEMEVAL_TIMING=str(timing), MEMEVAL_FIT_LOG=str(fits))
    args = [*base, f"--memeval-report={report}", "--memeval-html=none", "-n", str(n if n > 1 else 0)]
    wall, cpu, status, tail = run_pytest(args, workdir, run_env)
    if status not in (0, 1):
        raise SystemExit(f"n={n}: pytest exited {status}: {tail}")
    marks = json.loads(timing.read_text())
    data = json.loads(report.read_text())
    items = sum(run["n_items"] for run in data["runs"])
    arrive = marks["last_report"]["cpu_s"] - marks["first_report"]["cpu_s"]
    summary_wall = marks["summary_end"]["wall_s"] - marks["summary_start"]["wall_s"]
    summary_cpu = marks["summary_end"]["cpu_s"] - marks["summary_start"]["cpu_s"]
    return {
        "n": n,
        "items": items,
        "wall_s": wall,
        "cpu_s": cpu,
        "controller_ms_per_item": 1000 * arrive / items if n > 1 else None,
        "in_process_ms_per_item": 1000 * arrive / items if n == 1 else None,
        "summary_wall_s": summary_wall,
        "summary_share_wall": summary_wall / marks["end"]["wall_s"],
        "summary_share_cpu": summary_cpu / marks["end"]["cpu_s"],
        "reader_fits": len(fits.read_text().split()) if fits.exists() else 0,
        "runs": [_without_timings(run) for run in data["runs"]],
        "records": [{k: v for k, v in r.items() if not k.endswith("_ms")} for r in data["records"]],
        "tail": tail.strip(),
    }


def machine() -> str:
    load = os.getloadavg()
    return (
        f"{platform.node()}: {os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}, "
        f"load average {load[0]:.1f}, PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", default=",".join(map(str, default_workers())))
    parser.add_argument("--suite", default="multisource")
    parser.add_argument("--size", default="full")
    parser.add_argument("--split", default="test")
    parser.add_argument("--memsystem", default="context")
    parser.add_argument("--embedder", default="hashing")
    parser.add_argument("--cold", action="store_true", help="every n starts from an empty cache; count reader fits")
    parser.add_argument("--source", type=Path, help="run the plugin from this checkout instead")
    parser.add_argument(
        "--cache-dir",
        type=Path,
        help="use this (already warm) cache instead of a fresh one warmed first; with "
        "--source, one warmed by that checkout",
    )
    parser.add_argument("--json", type=Path, help="also write every figure here")
    parser.add_argument("extra", nargs="*", help="more pytest arguments (after --)")
    options = parser.parse_args()
    counts = [int(n) for n in options.workers.split(",")]
    base = [
        f"--memsystem={options.memsystem}",
        f"--memeval-suite={options.suite}",
        f"--memeval-size={options.size}",
        f"--memeval-embedder={options.embedder}",
        "-p",
        "no:cacheprovider",
        "-p",
        "summary_timing",
        *options.extra,
    ]
    if options.split:
        base.append(f"--memeval-split={options.split}")
    paths = [str(BENCH_DIR)] + ([str(options.source.resolve())] if options.source else [])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([*paths[::-1], os.environ.get("PYTHONPATH", "")]))
    print(machine())
    print("pytest " + " ".join(base))
    results = []
    with tempfile.TemporaryDirectory(prefix="memeval-scaling-") as tmp:
        root = Path(tmp)
        shared = options.cache_dir.resolve() if options.cache_dir else root / "cache"
        if not options.cold and not options.cache_dir:  # the controller warms the index and readers; nothing runs
            warm = root / "warm"
            warm.mkdir()
            run_pytest(
                [*base, "-n", "1", "-k", "memeval_warm_up_selects_nothing"],
                warm,
                dict(env, MEMEVAL_CACHE_DIR=str(shared)),
            )
        for n in counts:
            cache = root / f"cache-n{n}" if options.cold else shared
            result = one_run(n, base, root, env, cache)
            results.append(result)
            print(f"  n={n} done: {result['wall_s']:.1f} s, {result['tail']}", flush=True)
    reference = results[0]
    print()
    print(
        f"{'n':>3} {'wall s':>8} {'items/s':>8} {'speedup':>8} {'effic.':>7} {'CPU s':>8} "
        f"{'ctl ms/item':>11} {'summary s':>9} {'summ. wall':>10} {'summ. CPU':>9} {'fits':>5}"
    )
    for r in results:
        speedup = reference["wall_s"] / r["wall_s"]
        r["speedup"], r["efficiency"] = speedup, speedup / r["n"]
        per_item = r["controller_ms_per_item"] if r["n"] > 1 else r["in_process_ms_per_item"]
        print(
            f"{r['n']:>3} {r['wall_s']:>8.1f} {r['items'] / r['wall_s']:>8.0f} {speedup:>8.2f} {r['efficiency']:>7.0%} "
            f"{r['cpu_s']:>8.1f} {per_item:>10.3f}{'*' if r['n'] == 1 else ' '} {r['summary_wall_s']:>9.2f} "
            f"{r['summary_share_wall']:>10.1%} {r['summary_share_cpu']:>9.1%} {r['reader_fits']:>5}"
        )
    print("  * n=1: CPU per item of the single process while it runs the tests (no controller)")
    identical = all(r["runs"] == reference["runs"] and r["records"] == reference["records"] for r in results)
    print(f"metrics and records identical across n: {'yes' if identical else 'NO'}")
    if options.json:
        slim = [{k: v for k, v in r.items() if k not in ("runs", "records")} for r in results]
        options.json.write_text(json.dumps({"machine": machine(), "args": base, "results": slim}, indent=1))
    if not identical:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
