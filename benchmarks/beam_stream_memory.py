"""Peak resident memory of reading BEAM's chats: streamed as the suite ingests them, against
json.load of each file whole.

    .venv/bin/python benchmarks/beam_stream_memory.py DATA --scale 500K

DATA is a clone of github.com/mohammadtavakoli78/BEAM. Each mode runs in a fresh process
over every conversation of the scale (the suite's catalog, size full) and prints the growth
of the process's peak resident memory (VmHWM, Linux) over the peak after start-up, the
messages read and the seconds taken, as JSON. `stream` iterates every context's sessions as
a memory system's fill does and keeps nothing; `load` parses each chat file with json.load,
one file at a time.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import textwrap

MEASURE = textwrap.dedent(
    """
    import json, re, sys, time
    from pathlib import Path
    from pytest_memeval.framework.suite import SuiteOptions
    from pytest_memeval.suites.beam.catalog import Catalog

    def peak():
        return int(re.search(r"VmHWM:\\s+(\\d+) kB", Path("/proc/self/status").read_text()).group(1)) / 1024

    data, cache, scale, mode = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]
    options = SuiteOptions("full", None, None, 10, data, cache, params={"scale": scale})
    catalog = Catalog(options)
    before, started, messages = peak(), time.perf_counter(), 0
    for conversation in catalog.conversations.values():
        if mode == "stream":
            for session in catalog.context(conversation.id).sessions:
                messages += len(session)
        else:
            chat = json.loads(conversation.chat.read_text(encoding="utf-8"))
            messages += sum(len(turn) for batch in chat for turn in batch["turns"])
            del chat
    print(json.dumps({"mode": mode, "conversations": len(catalog.conversations), "messages": messages,
                      "peak_growth_mb": round(peak() - before, 1), "seconds": round(time.perf_counter() - started, 1)}))
    """
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data")
    parser.add_argument("--scale", default="500K")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        for mode in ("stream", "load"):
            run = subprocess.run(
                [sys.executable, "-c", MEASURE, args.data, cache, args.scale, mode],
                capture_output=True,
                text=True,
                timeout=1800,
                check=True,
            )
            print(run.stdout.strip())


if __name__ == "__main__":
    main()
