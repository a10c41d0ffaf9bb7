"""Measure the memfail acceptance numbers of issue 6 (run by hand; results go in the README).

    .venv/bin/python benchmarks/memfail_acceptance.py [--size full] [--embedder minilm] [--workers 2]

1. `context` (the ceiling), k=10: success per dataset, and whether every miss is attributed
   to a stage (none left "unknown").
2. `chroma`, k = 5, 10, 15: success and the retrieval-failure share per dataset; Coexisting
   and Long-Hop should fail at retrieval at k=5, less so as k grows.
3. The failing test adapters (tests/memfail_adapters.py), k=5: the stage each produces.

Each configuration is one pytest run of the bundled suite with --memeval-report; the
numbers below are read from those reports. Writes a JSON summary with --json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATASETS = ("cond_easy", "cond_hard", "coexisting", "persona", "longhop", "update")
ADAPTERS = ("DroppingMemory", "TruncatingMemory", "RandomMemory")


def run(workdir: Path, name: str, *args: str) -> tuple[dict[str, Any], float]:
    report = workdir / f"{name}.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")]))
    started = time.perf_counter()
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "--memeval-suite=memfail",
        f"--memeval-report={report}",
        "--rootdir",
        str(workdir),
        *args,
    ]
    completed = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if not report.exists():
        raise SystemExit(
            f"{name}: no report (exit {completed.returncode})\n{completed.stdout[-3000:]}\n{completed.stderr[-3000:]}"
        )
    return json.loads(report.read_text()), seconds


def success_table(report: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for r in sorted(report["runs"], key=lambda r: (r["memsystem"], r["k"])):
        row: dict[str, Any] = {"memsystem": r["memsystem"], "k": r["k"], "n": r["n_scored"]}
        for d in DATASETS:
            row[d] = r["metrics"].get(f"success_{d}")
            row[f"{d}_retrieval_share"] = r["stages"].get(d, {}).get("retrieval")
        row["success"] = r["metrics"]["success"]
        rows.append(row)
    return rows


def fmt(estimate: Any) -> str:
    if estimate is None:
        return "-"
    if isinstance(estimate, dict):
        lo, hi = estimate["ci"]
        return f"{estimate['value']:.3f} [{lo:.3f}, {hi:.3f}]"
    return f"{estimate:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="full", choices=("smoke", "small", "full"))
    parser.add_argument("--embedder", default="minilm", choices=("minilm", "hashing"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", type=Path)
    options = parser.parse_args()
    common = [f"--memeval-size={options.size}", f"--memeval-embedder={options.embedder}"]
    if options.workers > 1:
        common += ["-n", str(options.workers)]
    out: dict[str, Any] = {"size": options.size, "embedder": options.embedder}
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)

        ceiling, seconds = run(workdir, "context", "--memsystem=context", *common)
        misses = [r for r in ceiling["records"] if not r["correct"]]
        stages = Counter(r["detail"]["stage"] for r in misses)
        out["context"] = {
            "table": success_table(ceiling),
            "misses": len(misses),
            "miss_stages": dict(stages),
            "unattributed": stages.get("unknown", 0),
            "seconds": round(seconds, 1),
        }
        print(f"\n## context, k=10 ({seconds:.0f} s)")
        for row in out["context"]["table"]:
            print("  success " + fmt(row["success"]) + "  " + "  ".join(f"{d} {fmt(row[d])}" for d in DATASETS))
        print(f"  misses: {len(misses)}, by stage: {dict(stages)}")

        sweep, seconds = run(workdir, "chroma", "--memsystem=chroma", "--memeval-k=5,10,15", *common)
        out["chroma"] = {"table": success_table(sweep), "seconds": round(seconds, 1)}
        print(f"\n## chroma ({options.embedder}), k = 5, 10, 15 ({seconds:.0f} s)")
        for row in out["chroma"]["table"]:
            print(f"  k={row['k']:<3} success {fmt(row['success'])}")
            for d in DATASETS:
                print(f"      {d:<11} success {fmt(row[d]):<24} retrieval share {fmt(row[f'{d}_retrieval_share'])}")

        systems = ",".join(f"memfail_adapters:{a}" for a in ADAPTERS)
        faulty, seconds = run(workdir, "adapters", f"--memsystem={systems}", "--memeval-k=5", *common)
        counts: dict[str, dict[str, int]] = {}
        for record in faulty["records"]:
            name = record["memsystem"].split(":")[1]
            counts.setdefault(name, Counter())[record["detail"]["stage"]] += 1  # type: ignore[index]
        out["adapters"] = {name: dict(c) for name, c in counts.items()}
        out["adapters_seconds"] = round(seconds, 1)
        print(f"\n## failing adapters, k=5 ({seconds:.0f} s)")
        for name in ADAPTERS:
            print(f"  {name:<17} {dict(sorted(counts[name].items(), key=lambda kv: -kv[1]))}")
    if options.json:
        options.json.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
