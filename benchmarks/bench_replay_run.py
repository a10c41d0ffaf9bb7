"""What a replayed LLM run costs per item over the offline reader, end to end through pytest,
in A/B pairs.

    python benchmarks/bench_replay_run.py [--pairs 5]

Records the multisource smoke run (216 items, `--memsystem=context`) once against the
project's loopback chat-completions server (tests/llm_server.py, answering the first label
of each question), then runs --pairs A/B pairs (benchmarks/paired.py: each arm warmed up
once, the arms of a pair back to back, their order alternating) of the same pytest run
with the offline reader and with `--memeval-llm-cache=replay` (the server stopped), from
warm bytecode (benchmarks/isolated_env.py). Wall seconds of separate processes; prints the
median of the per-pair ratios (replay / reader) with its range and the load averages, and
the median per-pair difference per item.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

from isolated_env import isolated_env, machine_line  # benchmarks/, the script's own directory
from paired import Figures, load_average, median_of, ratio_line, run_pairs

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from llm_server import LLMServer, Request

LABEL = re.compile(r"^- (\w+)", re.M)
ITEMS = 216


def first_label(request: Request) -> str:
    question = request.messages[0]["content"].split("# Survey Question", 1)[1]
    match = LABEL.search(question)
    return json.dumps({"answer": match.group(1) if match else "", "would_skip": False})


def run(args: list[str], cwd: Path, env: dict[str, str]) -> Figures:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", *args], cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"pytest failed ({done.returncode}): {done.stdout[-2000:]}{done.stderr[-2000:]}")
    return {"wall_s": time.perf_counter() - started}


def report(pair: int, arm: str, figures: Figures) -> None:
    print(f"  pair {pair}, {arm}: {figures['wall_s']:.2f} s, load {load_average():.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=5)
    options = parser.parse_args()
    print(machine_line())
    with tempfile.TemporaryDirectory(prefix="memeval-replay-") as tmp:
        root = Path(tmp)
        env = dict(isolated_env(root), OPENAI_API_KEY="sk-bench-0000000000")
        base = [
            "--memsystem=context",
            "--memeval-suite=multisource",
            "--memeval-report=none",
            "-q",
            "-p",
            "no:cacheprovider",
        ]
        cache = [f"--memeval-llm-cache-file={root / 'llm-cache.sqlite'}", "--memeval-responder=openai:bench"]
        with LLMServer(first_label) as server:
            run([*base, *cache, f"--memeval-base-url={server.base_url}"], root, env)
            recorded = server.count
        replay_args = [*base, *cache, "--memeval-llm-cache=replay", "--memeval-base-url=http://127.0.0.1:9/v1"]
        arms = {"reader": partial(run, base, root, env), "replay": partial(run, replay_args, root, env)}
        pairs = run_pairs(arms, options.pairs, report)
    print(f"recorded {recorded} calls for {ITEMS} items")
    print(
        f"offline reader run {median_of(pairs, 'reader', 'wall_s'):.2f} s, replayed LLM run "
        f"{median_of(pairs, 'replay', 'wall_s'):.2f} s (medians)"
    )
    print(ratio_line("replay / reader", [p["replay"]["wall_s"] / p["reader"]["wall_s"] for p in pairs], pairs))
    per_item = statistics.median(1000 * (p["replay"]["wall_s"] - p["reader"]["wall_s"]) / ITEMS for p in pairs)
    print(f"replay adds {per_item:+.2f} ms per item over the offline reader (median of the pairs' differences)")


if __name__ == "__main__":
    main()
