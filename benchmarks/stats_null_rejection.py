"""How often paired tests of two success rates reject when there is no difference.

Run: python benchmarks/stats_null_rejection.py [RUNS] [SHIFT]

The data are tests/test_stats_signflip.py's: 40 clusters x 18 items, two systems equal on
average, but in each cluster one of them is ahead by u_c ~ N(0, 0.1) (outcomes correlate
within a cluster, and so do the discordant pairs). For each run it records whether item-level
exact McNemar, the paired cluster bootstrap's p (B = 2000) and the cluster sign-flip test
(2000 patterns) reject at .05, and whether the bootstrap and sign-flip 95% intervals cover the
true difference. SHIFT (default 0) lowers b's success probability by that much (a true
difference a - b of SHIFT on average).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

# Runnable from a checkout without installing the package; the data generator is the test's.
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from test_stats_signflip import clustered_null  # noqa: E402

from pytest_memeval.stats import mcnemar_exact, paired_bootstrap_mean, paired_sign_flip  # noqa: E402


def main(runs: int, shift: float) -> None:
    rng = np.random.default_rng(7)
    rejected = {"mcnemar": 0, "bootstrap": 0, "sign_flip": 0}
    covered = {"bootstrap": 0, "sign_flip": 0}
    for _ in range(runs):
        a, b, clusters = clustered_null(rng)
        b = b & (rng.random(b.size) >= shift / 0.5)  # b's mean success is 0.5: remove `shift` of it
        bootstrap = paired_bootstrap_mean(a, b, clusters, n_resamples=2000, seed=0)
        flip = paired_sign_flip(a, b, clusters, n_resamples=2000, bounds=(-1, 1))
        rejected["mcnemar"] += mcnemar_exact(a, b).p_value <= 0.05
        rejected["bootstrap"] += bootstrap.p_value <= 0.05
        rejected["sign_flip"] += flip.p_value <= 0.05
        covered["bootstrap"] += bootstrap.ci_low <= shift <= bootstrap.ci_high
        covered["sign_flip"] += flip.ci_low <= shift <= flip.ci_high
    print(f"{runs} runs, 40 clusters x 18 items, true difference {shift}")
    for name, count in rejected.items():
        print(f"  rejects at .05: {name:<10} {count / runs:.4f}")
    for name, count in covered.items():
        print(f"  95% CI covers:  {name:<10} {count / runs:.4f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000, float(sys.argv[2]) if len(sys.argv) > 2 else 0.0)
