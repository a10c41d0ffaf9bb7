"""How close a run with an LLM responder comes to the endpoint's limit, in A/B pairs.

    .venv/bin/python benchmarks/bench_endpoint.py [--latency 1.0] [--concurrency 32]
        [--workers 0,2] [--pairs 5] [--capacity 64] [--size smoke] [--select EXPR] [--json out.json]

Against a loopback OpenAI-compatible endpoint (tests/llm_server.py) that answers every chat
call after exactly `--latency` seconds and answers HTTP 429 to a call arriving while
`--capacity` calls are held, runs, per worker count N (0: one process) and concurrency C,
`--pairs` A/B pairs (benchmarks/paired.py: each arm warmed up once, the arms of a pair back
to back, their order alternating) of

    offline: pytest --memsystem=context --memeval-suite=multisource --memeval-size=SIZE [-n N] [-k EXPR]
    llm:     the same with --memeval-responder=openai:bench-model --memeval-base-url=URL
             --memeval-llm-cache=off --memeval-concurrency=C

in a fresh directory, from the same warm caches (the suite's index and readers, and Python's
bytecode under a private PYTHONPYCACHEPREFIX, also where $PYTHONDONTWRITEBYTECODE is set: a
user's installed packages have theirs, and without it the LLM arm alone would compile the
openai client on every run). Per pair, the limit is `offline wall + items x latency / C` (the
waiting no harness avoids, on top of the run's own work) and the ratio `llm wall / limit`
(the goal: 1.15 at -n 0, 1.25 under xdist); printed as the median of the pairs' ratios with
its range and the load average. Per LLM run also: when its first call reached the endpoint
(seconds after pytest was launched), the most calls the endpoint held at once, the mean
number held from the first call to the start of the last (the concurrency the run kept while
calls remained) and the 429s. `--select` keeps the items whose test ids match a -k expression,
e.g. fewer contexts than workers: `--select "stable_121 or stable_122"` (multisource smoke's
contexts are shift_, stable_ and stated_ 121..124, 18 items each). Every run must end with one
record per item (scored, invalid or error, no error); the script exits 1 if one does not.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from llm_server import LLMServer, Request  # noqa: E402
from paired import Figures, median_of, ratio_line, run_pairs  # noqa: E402  (the script's own directory)

LABEL_LINE = re.compile(r"^- (\w+)", re.M)


def answer(request: Request) -> str:
    """The first label of the item's answer space (a valid answer for every condition)."""
    text = request.text
    question = text.split("# Survey Question", 1)[-1]
    first = LABEL_LINE.search(question)
    return json.dumps({"answer": first.group(1) if first else "none", "would_skip": False})


def run(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, int]:
    """When pytest was launched (`time.monotonic()`), its wall seconds and the number of
    records of the run.

    A run with an error record is no measurement (an item that never reached the endpoint
    takes no time): the script stops there, naming the first error.
    """
    report = cwd / "report.json"
    report.unlink(missing_ok=True)
    launched = time.monotonic()
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
    wall = time.monotonic() - launched
    if not report.is_file():
        sys.exit(f"no report from pytest {' '.join(args)}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    records = json.loads(report.read_text())["records"]
    errors = [r for r in records if r["status"] == "error"]
    if errors:
        sys.exit(f"{len(errors)} error records from pytest {' '.join(args)}; the first: {errors[0]['reason']}")
    return launched, wall, len(records)


def mean_held(held: list[tuple[float, float]]) -> float:
    """The mean number of calls held from the first call's start to the last call's start."""
    first, last = held[0][0], held[-1][0]
    if last <= first:
        return float(len(held))
    return sum(min(end, last) - start for start, end in held if start < last) / (last - first)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds the endpoint takes per call")
    parser.add_argument("--concurrency", default="32", help="--memeval-concurrency values, comma-separated")
    parser.add_argument("--workers", default="0,2", help="xdist worker counts (0: one process)")
    parser.add_argument("--pairs", type=int, default=5, help="A/B pairs per worker count and concurrency")
    parser.add_argument("--capacity", type=int, default=64, help="calls the endpoint holds before answering 429")
    parser.add_argument("--size", default="smoke", help="--memeval-size (smoke: 216 items)")
    parser.add_argument("--select", help="a -k expression: run only the items it matches (e.g. some contexts)")
    parser.add_argument("--json", type=Path, help="also write every figure here")
    options = parser.parse_args()
    base = ["--memsystem=context", "--memeval-suite=multisource", f"--memeval-size={options.size}"]
    selected = ["-k", options.select] if options.select else []
    print(f"{platform.node()}: {os.cpu_count()} cores, Python {platform.python_version()}, load {_load()}")
    print(f"endpoint: {options.latency:g} s per call, 429 above {options.capacity} calls held")
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="memeval-endpoint-") as tmp:
        root = Path(tmp)
        env = dict(
            os.environ,
            MEMEVAL_CACHE_DIR=str(root / "cache"),
            PYTHONPYCACHEPREFIX=str(root / "pycache"),
            OPENAI_API_KEY="sk-bench",
        )
        env.pop("OPENAI_BASE_URL", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        run([*base, "-k", "memeval_warm_up_selects_nothing"], root, env)  # item index and readers, once
        for n in (int(w) for w in options.workers.split(",")):
            xdist = ["-n", str(n)] if n else ["-p", "no:xdist"]
            for c in (int(value) for value in options.concurrency.split(",")):

                def offline(xdist: list[str] = xdist) -> Figures:
                    _, wall, items = run([*base, *selected, *xdist], root, env)
                    return {"wall_s": wall, "items": items}

                def llm(xdist: list[str] = xdist, c: int = c) -> Figures:
                    with LLMServer(answer, latency_s=options.latency, capacity=options.capacity) as server:
                        llm_args = [
                            "--memeval-responder=openai:bench-model",
                            f"--memeval-base-url={server.base_url}",
                            "--memeval-llm-cache=off",
                            f"--memeval-concurrency={c}",
                        ]
                        launched, wall, items = run([*base, *selected, *xdist, *llm_args], root, env)
                        held = server.held
                        return {
                            "wall_s": wall,
                            "items": items,
                            "calls": server.count,
                            "first_call_s": held[0][0] - launched,
                            "last_answer_s": max(end for _, end in held) - launched,
                            "max_held": server.max_in_flight,
                            "mean_held": mean_held(held),
                            "refused_429": server.over_capacity,
                        }

                def report(pair: int, arm: str, figures: Figures, n: int = n, c: int = c) -> None:
                    extra = (
                        f", first call at {figures['first_call_s']:.2f} s, last answer at "
                        f"{figures['last_answer_s']:.2f} s, held at most {figures['max_held']:.0f}, "
                        f"mean {figures['mean_held']:.1f}, {figures['refused_429']:.0f} 429s"
                        if arm == "llm"
                        else ""
                    )
                    print(
                        f"-n {n} c={c} pair {pair} {arm}: {figures['wall_s']:.2f} s{extra}, load {_load()}", flush=True
                    )

                pairs = run_pairs({"offline": offline, "llm": llm}, options.pairs, report)
                limits = [p["offline"]["wall_s"] + p["llm"]["items"] * options.latency / c for p in pairs]
                ratios = [p["llm"]["wall_s"] / limit for p, limit in zip(pairs, limits, strict=True)]
                if any(p["llm"]["items"] != p["offline"]["items"] for p in pairs):
                    sys.exit(f"-n {n} c={c}: the LLM run and the offline run ended with different numbers of records")
                print(
                    f"-n {n} c={c}: offline {median_of(pairs, 'offline', 'wall_s'):.2f} s, "
                    f"llm {median_of(pairs, 'llm', 'wall_s'):.2f} s, limit {statistics.median(limits):.2f} s, "
                    f"first call at {median_of(pairs, 'llm', 'first_call_s'):.2f} s, "
                    f"mean held {median_of(pairs, 'llm', 'mean_held'):.1f} of {c} (medians)"
                )
                print(ratio_line(f"-n {n} c={c} llm / (offline + calls x latency / c)", ratios, pairs), flush=True)
                results.append(
                    {
                        "workers": n,
                        "concurrency": c,
                        "ratios": ratios,
                        "pairs": [{"load": p.load, **p.arms} for p in pairs],
                    }
                )
    print(f"load average at the end: {_load()}")
    if options.json:
        options.json.write_text(
            json.dumps({"latency_s": options.latency, "capacity": options.capacity, "results": results})
        )


def _load() -> str:
    """The 1/5/15-minute load averages (figures on a shared machine need them)."""
    return "unknown" if sys.platform == "win32" else " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
