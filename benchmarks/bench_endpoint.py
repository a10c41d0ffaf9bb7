"""How close a run with an LLM responder comes to the endpoint's limit.

    .venv/bin/python benchmarks/bench_endpoint.py [--latency 1.0] [--concurrency 8,16,32]
        [--workers 0,2] [--capacity 64] [--size smoke] [--select EXPR] [--json out.json]

Against a loopback OpenAI-compatible endpoint (tests/llm_server.py) that answers every chat
call after exactly `--latency` seconds and answers HTTP 429 to a call arriving while
`--capacity` calls are held, runs

    pytest --memsystem=context --memeval-suite=multisource --memeval-size=SIZE
        --memeval-responder=openai:bench-model --memeval-base-url=URL
        --memeval-llm-cache=off --memeval-concurrency=C [-n N] [-k EXPR]

once per worker count N (0: one process) and concurrency C, in a fresh directory, and the same
run offline (the suite's reader, no endpoint) once per N. For each it prints wall seconds,
items/s, the limit `offline wall + items x latency / C` (the waiting no harness avoids, on top
of the run's own work), wall / limit (the issue's goal: <= 1.25), the most calls the endpoint
held at once ("most calls held") and how many it refused with 429. `--select` keeps the
items whose test ids match a -k expression, e.g. fewer contexts than workers:
`--select "stable_121 or stable_122"` (multisource smoke's contexts are shift_, stable_ and
stated_ 121..124, 18 items each). Every run must end with one record per item (scored,
invalid or error); the script exits 1 if one does not.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from llm_server import LLMServer, Request  # noqa: E402

LABEL_LINE = re.compile(r"^- (\w+)", re.M)


def answer(request: Request) -> str:
    """The first label of the item's answer space (a valid answer for every condition)."""
    text = request.text
    question = text.split("# Survey Question", 1)[-1]
    first = LABEL_LINE.search(question)
    return json.dumps({"answer": first.group(1) if first else "none", "would_skip": False})


def run(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, int, int]:
    """Wall seconds, exit status and the number of records of one pytest run.

    A run with an error record is no measurement (an item that never reached the endpoint
    takes no time): the script stops there, naming the first error.
    """
    report = cwd / "report.json"
    report.unlink(missing_ok=True)
    started = time.perf_counter()
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", *args),
            *(f"--memeval-report={report}", "--memeval-html=none", "-q", "-p", "no:cacheprovider"),
        ],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=1800,
    )
    wall = time.perf_counter() - started
    if not report.is_file():
        sys.exit(f"no report from pytest {' '.join(args)}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    records = json.loads(report.read_text())["records"]
    errors = [r for r in records if r["status"] == "error"]
    if errors:
        sys.exit(f"{len(errors)} error records from pytest {' '.join(args)}; the first: {errors[0]['reason']}")
    return wall, done.returncode, len(records)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds the endpoint takes per call")
    parser.add_argument("--concurrency", default="8,16,32", help="--memeval-concurrency values, comma-separated")
    parser.add_argument("--workers", default="0,2", help="xdist worker counts (0: one process)")
    parser.add_argument("--capacity", type=int, default=64, help="calls the endpoint holds before answering 429")
    parser.add_argument("--size", default="smoke", help="--memeval-size (smoke: 216 items)")
    parser.add_argument("--select", help="a -k expression: run only the items it matches (e.g. some contexts)")
    parser.add_argument("--json", type=Path, help="also write every figure here")
    options = parser.parse_args()
    concurrencies = [int(c) for c in options.concurrency.split(",")]
    workers = [int(n) for n in options.workers.split(",")]
    base = ["--memsystem=context", "--memeval-suite=multisource", f"--memeval-size={options.size}"]
    selected = ["-k", options.select] if options.select else []
    print(f"{platform.node()}: {os.cpu_count()} cores, Python {platform.python_version()}, load {_load()}")
    print(f"endpoint: {options.latency:g} s per call, 429 above {options.capacity} calls held")
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="memeval-endpoint-") as tmp:
        root = Path(tmp)
        env = dict(os.environ, MEMEVAL_CACHE_DIR=str(root / "cache"), OPENAI_API_KEY="sk-bench")
        env.pop("OPENAI_BASE_URL", None)
        run([*base, "-k", "memeval_warm_up_selects_nothing"], root, env)  # item index and readers, once
        for n in workers:
            xdist = ["-n", str(n)] if n else ["-p", "no:xdist"]
            offline, _, items = run([*base, *selected, *xdist], root, env)
            rows.append({"workers": n, "concurrency": None, "wall_s": offline, "items": items})
            print(f"-n {n} offline: {offline:.1f} s, {items} items", flush=True)
            for c in concurrencies:
                with LLMServer(answer, latency_s=options.latency, capacity=options.capacity) as server:
                    llm = [
                        "--memeval-responder=openai:bench-model",
                        f"--memeval-base-url={server.base_url}",
                        "--memeval-llm-cache=off",
                        f"--memeval-concurrency={c}",
                    ]
                    wall, status, records = run([*base, *selected, *xdist, *llm], root, env)
                    limit = offline + records * options.latency / c
                    row = {
                        "workers": n,
                        "concurrency": c,
                        "wall_s": wall,
                        "items": records,
                        "limit_s": limit,
                        "ratio": wall / limit,
                        "calls": server.count,
                        "max_in_flight": server.max_in_flight,
                        "refused_429": server.over_capacity,
                        "exit": status,
                    }
                rows.append(row)
                print(
                    f"-n {n} c={c}: {wall:.1f} s (limit {limit:.1f} s, {wall / limit:.2f}x), "
                    f"most calls held {row['max_in_flight']}, load {_load()}",
                    flush=True,
                )
                if records != items:
                    sys.exit(f"-n {n} c={c}: {records} records for {items} items")
    print()
    print(
        f"{'-n':>3} {'conc':>5} {'items':>6} {'wall s':>7} {'items/s':>8} {'limit s':>8} {'ratio':>6} "
        f"{'calls':>6} {'most calls held':>15} {'429s':>5}"
    )
    for r in rows:
        if r["concurrency"] is None:
            print(f"{r['workers']:>3} {'off':>5} {r['items']:>6} {r['wall_s']:>7.1f} {r['items'] / r['wall_s']:>8.1f}")
            continue
        print(
            f"{r['workers']:>3} {r['concurrency']:>5} {r['items']:>6} {r['wall_s']:>7.1f} "
            f"{r['items'] / r['wall_s']:>8.1f} {r['limit_s']:>8.1f} {r['ratio']:>6.2f} {r['calls']:>6} "
            f"{r['max_in_flight']:>15} {r['refused_429']:>5}"
        )
    print(f"load average at the end: {_load()}")
    if options.json:
        options.json.write_text(json.dumps({"latency_s": options.latency, "capacity": options.capacity, "rows": rows}))


def _load() -> str:
    """The 1/5/15-minute load averages (figures on a shared machine need them)."""
    return "unknown" if sys.platform == "win32" else " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
