"""Acceptance of the knowme suite (issue 8), measured through pytest itself.

Runs the suite with the offline reader on `context`, `none` and `chroma` and reports:
  1. context: T1-T5 (the reader should solve them near-perfectly);
  2. none: T2 beside T1, their balance and the over-abstention rate (T2 is the only task
     an always-abstain answerer wins);
  3. chroma: temporal items whose evidence spans both ends of a flashback, against the
     plain ones, and the paired chroma - context difference on them (the suite's own
     paired cluster bootstrap, restricted to those items).

    python benchmarks/knowme_acceptance.py [--size full] [--embedder minilm] [-n 2] [--k 10]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_memeval.suites.knowme.suite import KnowmeSuite  # noqa: E402

from pytest_memeval.framework.suite import SuiteOptions  # noqa: E402

TASK_METRICS = ("t1_entity_f1", "t2_abstain_exact", "t1_t2_balance", "t3_value_bands", "t4_rank_bands", "t5_cue_bands")


def run_suite(size: str, embedder: str, workers: int, k: int, bootstrap: int, report: Path) -> float:
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "--memsystem=context,none,chroma",
        "--memeval-suite=knowme",
        f"--memeval-size={size}",
        f"--memeval-embedder={embedder}",
        f"--memeval-k={k}",
        f"--memeval-bootstrap={bootstrap}",
        f"--memeval-report={report}",
        "-n",
        str(workers),
    ]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if not report.exists():
        sys.stderr.write(done.stdout[-3000:] + done.stderr[-3000:])
        raise SystemExit(f"pytest did not write a report (exit {done.returncode})")
    return time.perf_counter() - started


def fmt(estimate: dict | None) -> str:
    if not estimate or estimate.get("value") is None:
        return "n/a"
    lo, hi = estimate["ci"]
    return f"{estimate['value']:.1f} [{lo:.1f}, {hi:.1f}]"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="full", choices=("smoke", "small", "full"))
    ap.add_argument("--embedder", default="minilm", choices=("minilm", "hashing"))
    ap.add_argument("-n", dest="workers", type=int, default=2)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--bootstrap", type=int, default=2000)
    ap.add_argument("--json", type=Path, help="also write the numbers here")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "report.json"
        seconds = run_suite(args.size, args.embedder, args.workers, args.k, args.bootstrap, path)
        report = json.loads(path.read_text())
    runs = {r["memsystem"]: r for r in report["runs"]}
    n_items = runs["context"]["n_items"]
    print(
        f"knowme {args.size}: {n_items} items x 3 systems, {runs['context']['n_lives']} lives, "
        f"chroma k={args.k} embedder={args.embedder}, -n {args.workers}: {seconds:.0f} s wall"
    )
    for system in ("context", "none", "chroma"):
        run = runs[system]
        errors = run["n_errors"] + run["n_invalid"]
        print(f"\n{system}  (scored {run['n_scored']}/{run['n_items']}, errors+invalid {errors})")
        for name, estimate in run["metrics"].items():
            print(f"  {name:<22} {fmt(estimate)}")
        for cell, values in run["breakdown"]["temporal_kind"].items():
            print(
                f"  T3 {cell:<19} {fmt(values['score'])}  (n={values['n']}, evidence recall {fmt(values['evidence_recall'])})"
            )
        for cell, values in run["breakdown"]["flashback"].items():
            print(f"  {cell:<22} {fmt(values['score'])}  (n={values['n']})")

    suite = KnowmeSuite(
        SuiteOptions(
            size=args.size,
            split=None,
            seeds=None,
            k=args.k,
            data_dir=None,
            cache_dir=Path(tempfile.gettempdir()),
            bootstrap=args.bootstrap,
        )
    )
    by_system: dict[str, dict[str, dict]] = {}
    for record in report["records"]:
        if record["strata"]["task"] == "T3" and record["strata"]["flashback"] == "yes" and not record.get("error"):
            by_system.setdefault(record["memsystem"], {})[record["id"]] = record
    common = sorted(by_system["chroma"].keys() & by_system["context"].keys())
    paired = suite.compare([by_system["chroma"][i] for i in common], [by_system["context"][i] for i in common])[
        "t3_value_bands"
    ]
    print(
        f"\nchroma - context on T3 items spanning a flashback (n={len(common)} paired):"
        f" {paired['difference']:+.1f} [{paired['ci'][0]:+.1f}, {paired['ci'][1]:+.1f}], p={paired['p_value']:.4f},"
        f" MDE {paired['mde']:.1f}"
    )
    whole = next(
        c for c in report["comparisons"] if {c["a"]["memsystem"], c["b"]["memsystem"]} == {"context", "chroma"}
    )
    sign = 1 if whole["a"]["memsystem"] == "chroma" else -1
    t3 = whole["metrics"]["t3_value_bands"]
    print(f"chroma - context on all T3 items: {sign * t3['difference']:+.1f}, p(Holm)={t3['p_holm']:.4f}")

    if args.json:
        numbers = {
            "size": args.size,
            "embedder": args.embedder,
            "k": args.k,
            "seconds": round(seconds, 1),
            "n_items": n_items,
            "metrics": {s: runs[s]["metrics"] for s in runs},
            "t3_breakdown": {s: runs[s]["breakdown"]["temporal_kind"] for s in runs},
            "flashback": {s: runs[s]["breakdown"]["flashback"] for s in runs},
            "chroma_minus_context_t3_flashback": paired,
        }
        args.json.write_text(json.dumps(numbers, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
