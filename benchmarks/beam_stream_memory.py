"""Peak resident memory of reading BEAM's chats: streamed as the suite ingests them, against
json.load of each file whole.

    .venv/bin/python benchmarks/beam_stream_memory.py DATA --scale 500K
    .venv/bin/python benchmarks/beam_stream_memory.py /tmp/beam10m --write-10m

DATA is a clone of github.com/mohammadtavakoli78/BEAM; `--write-10m` first writes there a
10M conversation in the combined form of the release's 10M chats (10 plans of 10 batches of
40 turns, 8,000 messages of 1,100 random common words, 35 MB; the sample's questions
beside it) and measures it (scale 10M). Each mode runs in a fresh process
over every conversation of the scale (the suite's catalog, size full) and prints the growth
of the process's peak resident memory (VmHWM, Linux, reset once the catalog is read) over
its resident size then, the
messages read and the seconds taken, as JSON. `stream` iterates every context's sessions as
a memory system's fill does and keeps nothing; `load` parses each chat file with json.load,
one file at a time.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from pytest_memeval.suites.beam.sample import write_sample

MEASURE = textwrap.dedent(
    """
    import json, re, sys, time
    from pathlib import Path
    from pytest_memeval.framework.suite import SuiteOptions
    from pytest_memeval.suites.beam.catalog import Catalog

    def status(field):
        return int(re.search(field + r":\\s+(\\d+) kB", Path("/proc/self/status").read_text()).group(1)) / 1024

    data, cache, scale, mode = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]
    options = SuiteOptions("full", None, None, 10, data, cache, params={"scale": scale})
    catalog = Catalog(options)
    Path("/proc/self/clear_refs").write_text("5")  # the peak (VmHWM) restarts from the resident size now
    before, started, messages = status("VmRSS"), time.perf_counter(), 0
    for conversation in catalog.conversations.values():
        if mode == "stream":
            for session in catalog.context(conversation.id).sessions:
                messages += len(session)
        else:
            chat = json.loads(conversation.chat.read_text(encoding="utf-8"))
            # a 10M chat is a list of {"plan-K": [batch, ...]}
            held = [b for entry in chat for b in ([entry] if "turns" in entry else next(iter(entry.values())))]
            messages += sum(len(turn) for batch in held for turn in batch["turns"])
            del chat, held
    print(json.dumps({"mode": mode, "conversations": len(catalog.conversations), "messages": messages,
                      "peak_growth_mb": round(status("VmHWM") - before, 1), "seconds": round(time.perf_counter() - started, 1)}))
    """
)


def write_10m(root: Path) -> None:
    directory = root / "chats" / "10M" / "1"
    questions = directory / "probing_questions" / "probing_questions.json"
    questions.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as sample:
        write_sample(Path(sample), "smoke", 0)
        questions.write_text((Path(sample) / "chats" / "10M" / "1" / questions.relative_to(directory)).read_text())
    rng = random.Random(0)
    words = "the of and to in a is that for it as with was on be by at this are from or an memory project".split()
    plans, next_id = [], 0
    for plan in range(10):
        batches = []
        for batch in range(10):
            turns = []
            for turn in range(40):
                text, index = " ".join(rng.choice(words) for _ in range(1100)), f"{batch + 1},{turn + 1}"
                user = {"role": "user", "id": next_id, "index": index, "question_type": "main_question"}
                turns.append(
                    [
                        {**user, "content": f"{text} ->-> {index}"},
                        {"role": "assistant", "id": next_id + 1, "content": text},
                    ]
                )
                next_id += 2
            turns[0][0] = {"role": "user", "id": turns[0][0]["id"], "time_anchor": "March-01-2024", **turns[0][0]}
            batches.append({"batch_number": batch + 1, "turns": turns, "time_anchor": None})
        plans.append({f"plan-{plan + 1}": batches})
    (directory / "chat.json").write_text(json.dumps(plans, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data")
    parser.add_argument("--scale", default="500K")
    parser.add_argument("--write-10m", action="store_true", help="write a synthetic 10M conversation first")
    args = parser.parse_args()
    if args.write_10m:
        write_10m(Path(args.data))
        args.scale = "10M"
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
