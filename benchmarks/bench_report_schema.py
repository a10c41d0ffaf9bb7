"""The JSON report's write and read time at 34,560 records, before and after a change, in
A/B pairs.

    git archive BEFORE_COMMIT | tar -x -C /tmp/before     # the tree before the change
    .venv/bin/python benchmarks/bench_report_schema.py --before /tmp/before \\
        --source memeval-report.json [--records 34560] [--pairs 5]

`--source` is a report of `make main`: its multisource records, repeated with new ids up to
--records, make the report both arms read and write (34,560 is all of multisource). Each arm
runs in a process of its own with its tree first on sys.path (`--before`, and this checkout):
it reads the report (`results.reading.read_report`) and writes it as the plugin does
(`records.report_chunks` after, `SessionReport.json_text` before, then `write_atomic`), once
to warm up, then once timed. The arms of a pair run back to back, their order alternating
from pair to pair. Prints each arm's seconds, the after/before ratio of each pair, the
median ratio with its range, the load average beside them, each arm's peak memory, and
whether the two arms wrote the same bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent

ARM = """
import json, resource, sys, time
from pathlib import Path
from pytest_memeval.files.atomic_file import write_atomic
from pytest_memeval.results import records
from pytest_memeval.results.reading import read_report

source, out = Path(sys.argv[1]), Path(sys.argv[2])
def read():
    return read_report(source, "--memeval-baseline")
def write(report):
    if hasattr(records, "report_chunks"):  # after: the report written in pieces
        write_atomic(out, records.report_chunks(report))
    else:  # before: SessionReport.json_text, as the plugin wrote it
        text = json.dumps(report.to_json(), indent=1, sort_keys=True, allow_nan=False) + "\\n"
        write_atomic(out, text)
write(read())  # warm-up: imports, the file in the page cache
start = time.perf_counter()
report = read()
read_s = time.perf_counter() - start
start = time.perf_counter()
write(report)
write_s = time.perf_counter() - start
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"read": read_s, "write": write_s, "records": len(report.records), "peak_mb": peak_mb}))
"""


def big_report(source: Path, records: int, path: Path) -> None:
    """`source` with its multisource records repeated, each copy with new ids, up to `records`."""
    data = json.loads(source.read_text(encoding="utf-8"))
    base = [r for r in data["records"] if r["key"]["suite"] == "multisource"]
    if not base:
        sys.exit(f"{source} holds no multisource record")
    data["records"] = [
        dict(base[i % len(base)], id=f"{base[i % len(base)]['id']}-copy{i // len(base)}") for i in range(records)
    ]
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def arm(tree: Path, report: Path, out: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", ARM, str(report), str(out)],
        cwd=tree,  # `python -c` puts the working directory first on sys.path
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        sys.exit(f"the arm of {tree} failed:\n{done.stderr[-3000:]}")
    measured: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return measured


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def summary(name: str, ratios: list[float]) -> str:
    return f"{name}: after/before median {statistics.median(ratios):.3f} (range {min(ratios):.3f} to {max(ratios):.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, required=True, help="a checkout of the tree before the change")
    parser.add_argument("--source", type=Path, required=True, help="a report of make main")
    parser.add_argument("--records", type=int, default=34_560)
    parser.add_argument("--pairs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-report-") as scratch:
        work = Path(scratch)
        report = work / "report.json"
        big_report(args.source, args.records, report)
        print(f"report: {args.records:,} records, {report.stat().st_size / 1e6:.0f} MB")
        trees = {"before": args.before.resolve(), "after": HERE}
        ratios: dict[str, list[float]] = {"read": [], "write": []}
        loads: list[float] = []
        same = True
        for pair in range(args.pairs):
            order = ["before", "after"] if pair % 2 == 0 else ["after", "before"]
            loads.append(os.getloadavg()[0])
            seconds = {name: arm(trees[name], report, work / f"{name}.json") for name in order}
            loads.append(os.getloadavg()[0])
            same = same and digest(work / "before.json") == digest(work / "after.json")
            for what in ratios:
                ratios[what].append(seconds["after"][what] / seconds["before"][what])
            print(
                f"pair {pair + 1} ({' then '.join(order)}): "
                + "; ".join(
                    f"{name} read {s['read']:.2f} s, write {s['write']:.2f} s, peak {s['peak_mb']:,.0f} MB"
                    for name, s in seconds.items()
                )
            )
        load = f"load average (1 min) {min(loads):.2f} to {max(loads):.2f}"
        for what, values in ratios.items():
            print(f"{summary(what, values)}; {load}")
        print(f"the two arms wrote the same bytes: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
