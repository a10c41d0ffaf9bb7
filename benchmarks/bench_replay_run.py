"""What a replayed LLM run costs per item over the offline reader, end to end through pytest.

    python benchmarks/bench_replay_run.py [--repeat 3]

Records the multisource smoke run (216 items, `--memsystem=context`) once against the
project's loopback chat-completions server (tests/llm_server.py, answering the first label
of each question), then times the same pytest run with the offline reader and with
`--memeval-llm-cache=replay` (the server stopped). Medians of separate processes.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from llm_server import LLMServer, Request

LABEL = re.compile(r"^- (\w+)", re.M)
ITEMS = 216


def first_label(request: Request) -> str:
    question = request.messages[0]["content"].split("# Survey Question", 1)[1]
    match = LABEL.search(question)
    return json.dumps({"answer": match.group(1) if match else "", "would_skip": False})


def run(args: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", *args], cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"pytest failed ({done.returncode}): {done.stdout[-2000:]}{done.stderr[-2000:]}")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    repeat = parser.parse_args().repeat
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = dict(os.environ, MEMEVAL_CACHE_DIR=str(root / "cache"), OPENAI_API_KEY="sk-bench-0000000000")
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
        run(base, root, env)  # warm the reader's fitted model and the item index
        reader = statistics.median(run(base, root, env) for _ in range(repeat))
        replay_args = [*base, *cache, "--memeval-llm-cache=replay", "--memeval-base-url=http://127.0.0.1:9/v1"]
        replay = statistics.median(run(replay_args, root, env) for _ in range(repeat))
    print(f"recorded {recorded} calls for {ITEMS} items")
    print(f"offline reader run:  {reader:6.2f} s")
    print(f"replayed LLM run:    {replay:6.2f} s")
    print(f"replay adds {1000 * (replay - reader) / ITEMS:+.2f} ms per item over the offline reader")


if __name__ == "__main__":
    main()
