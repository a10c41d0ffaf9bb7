"""Acceptance check of the behavior suite, offline, through pytest (the way users run it).

Runs the full-size suite (14 subjects x 39 held-out questions x 12 conditions) with the
offline reader and the offline (approximate) judge against the given memory systems,
reads the JSON report, and checks the issue's acceptance criteria:

1. the specification beats nothing (C2a vs C5) and the wrong specification (C2a vs
   C2c_v1 and C2c_v2) by a significant margin: Wilcoxon across subjects, p < .05, and a
   positive mean difference;
2. facts + specification is at least as good as facts (C4a - C4 >= 0);
3. every memory system's C3 - C1 is reported with its test (controlled and native).

    python benchmarks/behavior_acceptance.py [--memsystems none,context,chroma]
        [--embedder minilm|hashing] [--size full] [--seed 2026] [-n 2]
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
ALPHA = 0.05


def run_suite(args: argparse.Namespace, report: Path) -> float:
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-q",
        "-rN",
        "--tb=no",
        "--no-header",
        f"--memsystem={args.memsystems}",
        "--memeval-suite=behavior",
        f"--memeval-size={args.size}",
        f"--memeval-embedder={args.embedder}",
        f"--memeval-report={report}",
        f"--memeval-seed={args.seed}",
    ]
    if args.workers:
        command += ["-n", str(args.workers)]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as empty:  # no conftest or tests of the repository in the way
        done = subprocess.run(command, cwd=empty, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1) or not report.exists():
        raise SystemExit(f"pytest failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return elapsed


def line(name: str, test: dict) -> str:
    ci = test.get("ci") or [float("nan")] * 2
    return (
        f"  {name:<22} mean diff {test['mean_delta']:+.3f} [{ci[0]:+.3f}, {ci[1]:+.3f}]  "
        f"W = {test['W']:g}  p = {test['p_value']:.2g}  subjects +{test['improved']}/={test['tied']}/-{test['worse']}"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memsystems", default="none,context,chroma")
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--size", default="full")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("-n", dest="workers", type=int, default=2)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        report_path = Path(tmp) / "report.json"
        elapsed = run_suite(args, report_path)
        report = json.loads(report_path.read_text())
    runs = [r for r in report["runs"] if r["suite"] == "behavior"]
    print(f"behavior acceptance: size={args.size} seed={args.seed} systems={args.memsystems} embedder={args.embedder}")
    print(f"  {sum(r['n_items'] for r in runs)} items in {elapsed:.0f} s wall (pytest -n {args.workers})")
    checks: list[tuple[str, bool]] = []
    first = runs[0]
    metrics, tests = first["metrics"], first["tests"]
    print(f"\nper-condition score (mean over subjects of questions -> judge), judge: {first['judge']['kind'][0]}")
    for name in ("C5", "C2a", "C2c_v1", "C2c_v2", "C4", "C4a", "C8", "C9"):
        m = metrics[name]
        print(f"  {name:<7} {m['value']:.3f} [{m['ci'][0]:.3f}, {m['ci'][1]:.3f}]")
    print("\ndirect conditions (identical in every system's run):")
    for pair in ("C2a-C5", "C2a-C2c_v1", "C2a-C2c_v2", "C4a-C5", "C4a-C4", "C9-C8"):
        print(line(pair, tests[pair]))
    for pair in ("C2a-C5", "C2a-C2c_v1", "C2a-C2c_v2"):
        test = tests[pair]
        checks.append((f"{pair} significant and positive", test["p_value"] < ALPHA and test["mean_delta"] > 0))
    checks.append(("C4a - C4 >= 0", tests["C4a-C4"]["mean_delta"] >= 0))
    gradient = first["gradient"]["C4a-C5"]
    delta, level = gradient["delta_regression"], gradient["level_regression"]
    print(
        f"\ngradient C4a - C5 on C5: delta slope {delta['slope']:+.2f} (R2 {delta['r_squared']:.2f}), "
        f"level slope {level['slope']:+.2f} (R2 {level['r_squared']:.2f}), "
        f"coupling-aware permutation p = {gradient['permutation']['p_value']:.2f}"
    )
    crossings = first["anchor_crossings"]["C4a-C5"]
    print(
        f"anchor crossings C5 -> C4a: up {crossings['upward_rate']:.1%}, down {crossings['downward_rate']:.1%}, "
        f">= 2 bands {crossings['multi_anchor_rate']:.1%}, >= 3 bands {crossings['extreme_rate']:.1%}"
    )
    print("\nmemory systems, C3 - C1 (the specification on top of retrieval):")
    for run in runs:
        m = run["metrics"]
        for treatment, baseline in (("C3", "C1"), ("C3_native", "C1_native")):
            test = run["tests"].get(f"{treatment}-{baseline}")
            reported = test is not None and test.get("p_value") is not None
            checks.append((f"{run['memsystem']}: {treatment} - {baseline} reported with its test", reported))
            if reported:
                print(
                    f"  {run['memsystem']:<8} {baseline} {m[baseline]['value']:.3f} -> {treatment} {m[treatment]['value']:.3f}"
                )
                print(line(f"{treatment}-{baseline}", test))
    overlaps = [c for c in report["comparisons"] if c["suite"] == "behavior" and "C1" in c["metrics"]]
    for comparison in overlaps:
        cells = comparison["metrics"]
        jaccards = ", ".join(
            f"{name} {cells[name]['topk_jaccard']:.3f}"
            for name in ("C1", "C1_native")
            if cells.get(name, {}).get("topk_jaccard") is not None
        )
        if jaccards:
            print(f"  top-k Jaccard {comparison['a']['memsystem']} ~ {comparison['b']['memsystem']}: {jaccards}")
    print("\nacceptance:")
    for name, passed in checks:
        print(f"  {'PASS' if passed else 'FAIL'}  {name}")
    return 0 if all(passed for _, passed in checks) else 1


if __name__ == "__main__":
    raise SystemExit(main())
