"""Replay the paper's statistics from the released judge scores, through this suite's aggregation.

    python -m pytest_memeval.suites.behavior.replay /path/to/beyond-recall \\
        [--panel primary|all] [--backfills] [--json FILE]

reads every judge score of the 14 main-study subjects (released_scores.py), aggregates them
in the paper's locked order with this suite's code (aggregate.subject_scores: per subject,
condition and judge the mean over the questions that judge scored, then the mean over the
panel's judges; parse failures are missing, never a score) and prints:

- the per-subject table (C5, C4, C2a, C4a, their differences, the v1 wrong specification),
  ordered by baseline, with the paper's bands (low: C5 <= 2.0);
- the primary test, Wilcoxon signed-rank across subjects of C4a against C5 (the paper: W = 11,
  p = 0.0067), and C2a against C5 (W = 10, p = 0.005), through the suite's `subject_test`;
- the delta and level regressions on the baseline, the low-baseline slice, the wrong
  specification (v1) against the correct one over the 13 globals;
- the memory systems: C3 - C1 per system and configuration (controlled, native) with its
  Wilcoxon test across subjects;
- which responses were read and which results files this copy lacks.

`--panel all` adds the two Gemini judges (the paper's 7-judge sensitivity); `--backfills`
merges the re-judged cells of results/_s114_backfills (the paper's aggregates were computed
without them). Nothing here calls a model.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_memeval.errors import MemevalError

from .aggregate import Scored, subject_scores
from .analysis import gradient, subject_test
from .released import (
    GEMINI_JUDGES,
    HAMERTON,
    PRIMARY_JUDGES,
    SYSTEMS,
    check_root,
    subjects,
)
from .released_scores import Release, read_release

TABLE = ("C5", "C4", "C2a", "C4a")
#: the paper's band edge: subjects with a baseline at most this are "low-baseline"
LOW_BASELINE = 2.0
TESTS = (("C4a", "C5"), ("C2a", "C5"))
CONFIGS = (("controlled", "C3", "C1"), ("native", "C3_native", "C1_native"))
#: resamples of the bootstrap intervals and permutations (fixed seeds: the output is reproducible)
RESAMPLES = 10_000


def scored(release: Release, judges: Sequence[str]) -> dict[str | None, list[Scored]]:
    """Items for the suite's aggregation, per memory system (None: the direct conditions)."""
    cells: dict[tuple[str, int, str, str | None], dict[str, float | None]] = defaultdict(dict)
    for s in release.scores:
        if s.judge in judges:
            cells[(s.subject, s.question, s.condition, s.system)][s.judge] = None if s.score is None else float(s.score)
    out: dict[str | None, list[Scored]] = defaultdict(list)
    for (subject, question, condition, system), scores in sorted(
        cells.items(), key=lambda kv: (kv[0][3] or "", kv[0][:3])
    ):
        category = release.categories.get((subject, question), "")
        out[system].append(Scored(subject, f"q{question:02d}", condition, category, scores))
    return out


def replay(root: Path, judges: Sequence[str], backfills: bool = False) -> dict[str, Any]:
    check_root(root)
    cohort = subjects(root)
    release = read_release(root, cohort, backfills)
    items = scored(release, judges)
    direct = items.get(None, [])
    table = {c: subject_scores(direct, c) for c in (*TABLE, "C2c_v1")}
    result: dict[str, Any] = {
        "root": str(root),
        "judges": list(judges),
        "subjects": _table(table),
        "tests": {f"{t}-{b}": subject_test(table[t], table[b], RESAMPLES) for t, b in TESTS},
        "gradient": gradient(table["C4a"], table["C5"], RESAMPLES),
        "low_baseline": _low_baseline(table),
        "wrong_spec_v1": _wrong_spec(table, subject_scores(direct, "C2c_v1")),
        "memory_systems": _memory_systems(items),
        "parse_failures": sum(1 for s in release.scores if s.judge in judges and s.score is None),
        "scores": sum(1 for s in release.scores if s.judge in judges),
        "responses": _responses(release),
        "absent": release.absent,
        "backfilled": release.backfilled,
    }
    return result


def _table(table: dict[str, dict[str, float]]) -> list[dict[str, Any]]:
    rows = []
    for subject in sorted(table["C5"], key=lambda s: table["C5"][s]):
        row: dict[str, Any] = {"subject": subject, "band": "low" if table["C5"][subject] <= LOW_BASELINE else "mid"}
        row.update({c: table[c].get(subject) for c in (*TABLE, "C2c_v1")})
        row["C4a-C5"] = _minus(row["C4a"], row["C5"])
        row["C4a-C4"] = _minus(row["C4a"], row["C4"])
        rows.append(row)
    return rows


def _minus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def _low_baseline(table: dict[str, dict[str, float]]) -> dict[str, Any]:
    deltas = {s: table["C4a"][s] - c5 for s, c5 in table["C5"].items() if s in table["C4a"]}
    low = [d for s, d in deltas.items() if table["C5"][s] <= LOW_BASELINE]
    return {
        "n": len(low),
        "mean_delta_C4a_C5": statistics.fmean(low) if low else None,
        "improved": sum(d > 0 for d in low),
        "all_improved": sum(d > 0 for d in deltas.values()),
        "all_n": len(deltas),
        "mean_C4a": statistics.fmean(table["C4a"].values()) if table["C4a"] else None,
    }


def _wrong_spec(table: dict[str, dict[str, float]], wrong: dict[str, float]) -> dict[str, Any]:
    """The paper's section 4.3 comparison: over the 13 globals (Hamerton's v1 used another protocol)."""
    globals_ = [s for s in wrong if s != HAMERTON and s in table["C5"] and s in table["C2a"]]
    if not globals_:
        return {"n": 0}
    return {
        "n": len(globals_),
        "mean_C2c_v1_C5": statistics.fmean(wrong[s] - table["C5"][s] for s in globals_),
        "mean_C2a_C5": statistics.fmean(table["C2a"][s] - table["C5"][s] for s in globals_),
    }


def _memory_systems(items: dict[str | None, list[Scored]]) -> list[dict[str, Any]]:
    rows = []
    for system in SYSTEMS:
        for config, treatment, baseline in CONFIGS:
            system_items = items.get(system, [])
            t, b = subject_scores(system_items, treatment), subject_scores(system_items, baseline)
            if t.keys() & b.keys():
                test = subject_test(t, b, RESAMPLES)
                rows.append(
                    {
                        "system": system,
                        "config": config,
                        **{k: test.get(k) for k in ("n_subjects", "mean_delta", "improved", "W", "p_value")},
                    }
                )
    return rows


def _responses(release: Release) -> dict[str, int]:
    texts = list(release.responses.values())
    return {"read": len(texts), "empty": sum(1 for t in texts if not t.strip())}


# --- printing -------------------------------------------------------------------------------


def _f(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "—"
    return f"{value:+.2f}" if signed else f"{value:.2f}"


def render(result: dict[str, Any]) -> str:
    judges = ", ".join(result["judges"])
    lines = [
        f"behavior replay of {result['root']}",
        f"judges: {judges}; per subject and condition: mean over questions per judge, then over judges",
        f"scores read: {result['scores']}, parse failures excluded: {result['parse_failures']}"
        + (f", cells from backfills: {result['backfilled']}" if result["backfilled"] else ""),
        "",
        f"{'band':<5}{'subject':<14}{'C5':>6}{'C4':>6}{'C2a':>6}{'C4a':>6}{'C4a-C5':>8}{'C4a-C4':>8}{'C2c_v1':>8}",
    ]
    for row in result["subjects"]:
        lines.append(
            f"{row['band']:<5}{row['subject']:<14}{_f(row['C5']):>6}{_f(row['C4']):>6}{_f(row['C2a']):>6}{_f(row['C4a']):>6}"
            f"{_f(row['C4a-C5'], True):>8}{_f(row['C4a-C4'], True):>8}{_f(row['C2c_v1']):>8}"
        )
    lines.append("")
    for name, test in result["tests"].items():
        if test.get("W") is None:
            continue
        lines.append(
            f"{name}: Wilcoxon signed-rank across {test['n_subjects']} subjects, two-sided: W = {test['W']:g}, p = {test['p_value']:.4f}; "
            f"mean difference {test['mean_delta']:+.3f} [{test['ci'][0]:+.3f}, {test['ci'][1]:+.3f}], {test['improved']} of {test['n_subjects']} improved"
        )
    lines += _gradient_lines(result["gradient"])
    low, wrong = result["low_baseline"], result["wrong_spec_v1"]
    if low["n"]:
        lines.append(
            f"low-baseline subjects (C5 <= {LOW_BASELINE}): {low['n']}, mean C4a-C5 {low['mean_delta_C4a_C5']:+.3f}, {low['improved']} of {low['n']} improved; "
            f"all subjects: {low['all_improved']} of {low['all_n']} improved, mean C4a {low['mean_C4a']:.2f}"
        )
    if wrong["n"]:
        lines.append(
            f"wrong specification (v1 pairing), {wrong['n']} globals: mean C2c-C5 {wrong['mean_C2c_v1_C5']:+.3f} vs correct C2a-C5 {wrong['mean_C2a_C5']:+.3f}"
        )
    if result["memory_systems"]:
        lines += ["", f"{'system':<13}{'config':<12}{'C3-C1':>8}{'improved':>10}{'W':>7}{'p':>9}"]
        for row in result["memory_systems"]:
            w = "—" if row["W"] is None else f"{row['W']:g}"
            lines.append(
                f"{row['system']:<13}{row['config']:<12}{row['mean_delta']:>+8.3f}{row['improved']:>6}/{row['n_subjects']:<3}{w:>7}{row['p_value']:>9.4f}"
            )
    responses = result["responses"]
    lines += ["", f"responses read: {responses['read']} ({responses['empty']} empty)"]
    for path in result["absent"]:
        lines.append(f"absent from this copy: {path} (its judge scores are used; its responses are not read)")
    return "\n".join(lines)


def _gradient_lines(fit: dict[str, Any] | None) -> list[str]:
    if fit is None:
        return []
    delta, level = fit["delta_regression"], fit["level_regression"]
    interval = f"[{delta['slope_ci'][0]:+.2f}, {delta['slope_ci'][1]:+.2f}]"
    out = [
        f"C4a-C5 on C5 across {fit['n_subjects']} subjects: slope {delta['slope']:+.2f} {interval}, R^2 {delta['r_squared']:.2f}, "
        + f"p = {delta['p_value']:.1e}; permutation p (treatment shuffled across subjects) {fit['permutation']['p_value']:.2f}"
    ]
    if level is not None:
        out.append(
            f"C4a on C5 (level): slope {level['slope']:+.2f}, R^2 {level['r_squared']:.2f}, p = {level['p_value']:.2f}"
        )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_memeval.suites.behavior.replay", description=__doc__.split("\n")[0]
    )
    parser.add_argument("root", type=Path, help="a checkout of github.com/agulaya24/beyond-recall")
    parser.add_argument(
        "--panel",
        choices=("primary", "all"),
        default="primary",
        help="primary: the 5-judge panel; all: with the Gemini judges",
    )
    parser.add_argument("--backfills", action="store_true", help="merge the re-judged cells of results/_s114_backfills")
    parser.add_argument("--json", type=Path, help="also write the numbers as JSON to this file")
    args = parser.parse_args(argv)
    judges = PRIMARY_JUDGES + (GEMINI_JUDGES if args.panel == "all" else ())
    try:
        result = replay(args.root, judges, args.backfills)
    except MemevalError as exc:
        parser.exit(4, f"error: {exc}\n")
    print(render(result))
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=1, default=float) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
