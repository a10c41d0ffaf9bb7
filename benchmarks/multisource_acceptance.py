"""Acceptance check of the multisource DGP against the paper's reference numbers.

Generates the four paper seeds, fits NBF on each seed's train split (and pooled over the
seeds' train splits), calibrates the SKIP margin on calibration, and reports the test
split of all four seeds pooled (paper Table 3 / 16: random 30.1, majority 57.1, NBF 82.1,
NBF+SKIP 88.5 selective accuracy at 77.9% coverage, source reachability 93.2%).

    python benchmarks/multisource_acceptance.py [--seeds 20260321 ...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_memeval.suites.multisource import (
    QUESTIONS,
    SEEDS,
    calibrate_temperature,
    calibrate_theta,
    coverage,
    expected_random_accuracy,
    f_beta,
    fit_nbf,
    generate,
    macro_accuracy,
    majority_labels,
    persona_index,
    random_predictions,
    reachable,
    selective_accuracy,
    source_atoms,
)


def _load(seed: int) -> tuple[dict[str, list], float]:
    t0 = time.perf_counter()
    personas = [generate(seed, ref.index) for ref in persona_index(seed)]
    gen = time.perf_counter() - t0
    split: dict[str, list] = {}
    for p in personas:
        split.setdefault(p.split, []).append((p, source_atoms(p.sources), p.answers))
    return split, gen


def _evaluate(model, rows):
    qids, correct, answered, types = [], [], [], []
    for _p, atoms, gold in rows:
        for qid, pred in model.predict_all(atoms).items():
            qids.append(qid)
            correct.append(pred.label == gold[qid])
            answered.append(pred.answered)
            types.append(QUESTIONS[qid].type_letter)
    return qids, correct, answered, types


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="*", default=list(SEEDS))
    args = ap.parse_args()

    data, gen_s, n = {}, 0.0, 0
    for seed in args.seeds:
        data[seed], sec = _load(seed)
        gen_s += sec
        n += sum(len(v) for v in data[seed].values())
    print(f"generation (L1-L3 + ground truth): {gen_s / n * 1000:.2f} ms/persona over {n} personas")

    test = [row for seed in args.seeds for row in data[seed]["test"]]
    tq = [q for _, _, g in test for q in g]
    gold_flat = [g[q] for _, _, g in test for q in g]
    rand = random_predictions(tq, seed=42)
    print(f"test instances: {len(tq)} ({len(test)} persona clusters)")
    print(f"random (expected)           {expected_random_accuracy() * 100:5.1f}")
    print(f"random (seeded draw)        {macro_accuracy(tq, [a == b for a, b in zip(rand, gold_flat)]) * 100:5.1f}")

    maj_q, maj_c = [], []
    for seed in args.seeds:
        mode = majority_labels(g for _, _, g in data[seed]["train"])
        for _, _, g in data[seed]["test"]:
            for q, lab in g.items():
                maj_q.append(q)
                maj_c.append(mode[q] == lab)
    print(f"majority class (per seed)   {macro_accuracy(maj_q, maj_c) * 100:5.1f}")

    reach = [reachable(a[q], g[q]) for _, a, g in test for q in g]
    print(f"source reachability         {sum(reach) / len(reach) * 100:5.1f}  (micro)")

    def report(name: str, per_seed: bool, temperature: bool) -> None:
        qids, correct, answered, thetas, temps = [], [], [], [], []
        groups = [[s] for s in args.seeds] if per_seed else [list(args.seeds)]
        for seeds in groups:
            train = [r for s in seeds for r in data[s]["train"]]
            cal = [r for s in seeds for r in data[s]["calibration"]]
            t0 = time.perf_counter()
            model = fit_nbf([a for _, a, _ in train], [g for _, _, g in train])
            fit_ms = (time.perf_counter() - t0) * 1000
            if temperature:
                temps.append(calibrate_temperature(model, [a for _, a, _ in cal], [g for _, _, g in cal])[0])
            thetas.append(calibrate_theta(model, [a for _, a, _ in cal], [g for _, _, g in cal])[0])
            rows = [r for s in seeds for r in data[s]["test"]]
            q, c, a, _ = _evaluate(model, rows)
            qids += q
            correct += c
            answered += a
        extra = f" T={temps}" if temperature else ""
        print(
            f"{name:<27} acc {macro_accuracy(qids, correct) * 100:5.1f} | "
            f"selective acc {selective_accuracy(qids, correct, answered) * 100:5.1f} "
            f"cov {coverage(answered) * 100:5.1f} F0.5 {f_beta(qids, correct, answered) * 100:5.1f} "
            f"| theta={thetas}{extra} fit {fit_ms:.0f} ms"
        )

    report("NBF (per-seed fit)", True, False)
    report("NBF (pooled fit)", False, False)
    report("NBF+T (per-seed fit)", True, True)

    model = fit_nbf(
        [a for s in args.seeds for _, a, _ in data[s]["train"]], [g for s in args.seeds for _, _, g in data[s]["train"]]
    )
    q, c, _, types = _evaluate(model, test)
    by_type = {}
    for t, qq, cc in zip(types, q, c):
        by_type.setdefault(t, ([], []))
        by_type[t][0].append(qq)
        by_type[t][1].append(cc)
    print("NBF pooled, by type:", ", ".join(f"{t} {macro_accuracy(*v) * 100:.1f}" for t, v in by_type.items()))
    per_q = {}
    for qq, cc in zip(q, c):
        per_q.setdefault(qq, []).append(cc)
    print("NBF pooled, by question:", ", ".join(f"{k} {sum(v) / len(v) * 100:.0f}" for k, v in per_q.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
