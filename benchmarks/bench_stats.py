"""Timing of the cluster bootstrap at multisource scale (run: python benchmarks/bench_stats.py).

8,640 items = 480 persona clusters x 18 question templates, B = 2000, all four multisource
metrics; once for one system and once paired. Target: each under 0.5 s.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

# Runnable from a checkout without installing the package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_memeval.stats import bootstrap_multisource, paired_bootstrap_multisource

N_CLUSTERS, N_GROUPS, B = 480, 18, 2000


def make_items(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = N_CLUSTERS * N_GROUPS
    clusters = np.repeat(np.array([f"seed{c // 120}-persona{c % 120:03d}" for c in range(N_CLUSTERS)]), N_GROUPS)
    groups = np.tile(np.array([f"Q{g:02d}" for g in range(N_GROUPS)]), N_CLUSTERS)
    skill = rng.normal(0.0, 0.5, N_CLUSTERS)[np.repeat(np.arange(N_CLUSTERS), N_GROUPS)]
    ease = rng.normal(0.8, 0.7, N_GROUPS)[np.tile(np.arange(N_GROUPS), N_CLUSTERS)]
    p = 1.0 / (1.0 + np.exp(-(skill + ease)))
    correct_a = rng.random(n) < p
    answered_a = rng.random(n) < np.where(correct_a, 0.85, 0.55)
    correct_b = np.where(rng.random(n) < 0.8, correct_a, rng.random(n) < p - 0.03)
    answered_b = rng.random(n) < np.where(correct_b, 0.8, 0.6)
    return dict(
        clusters=clusters,
        groups=groups,
        correct_a=correct_a,
        answered_a=answered_a,
        correct_b=correct_b,
        answered_b=answered_b,
    )


def best_of(fn, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    d = make_items()
    single = lambda: bootstrap_multisource(  # noqa: E731
        d["correct_a"], d["answered_a"], d["clusters"], d["groups"], n_resamples=B, seed=1
    )
    paired = lambda: paired_bootstrap_multisource(  # noqa: E731
        d["correct_a"],
        d["answered_a"],
        d["correct_b"],
        d["answered_b"],
        d["clusters"],
        d["groups"],
        n_resamples=B,
        seed=1,
    )
    print(f"{N_CLUSTERS * N_GROUPS} items, {N_CLUSTERS} clusters, {N_GROUPS} groups, B={B}")
    for name, fn in [("cluster bootstrap, 4 metrics", single), ("paired cluster bootstrap, 4 metrics", paired)]:
        t = best_of(fn)
        print(f"{name:40s} best of 5: {t * 1000:7.1f} ms  ({'ok' if t < 0.5 else 'SLOW'}: target < 500 ms)")
    print(f"  resamples per metric: {len(single()['accuracy'].resamples)}")
    for name, r in single().items():
        print(f"  {name:20s} {r.estimate:.4f}  [{r.ci_low:.4f}, {r.ci_high:.4f}]")
    for name, r in paired().items():
        print(f"  a-b {name:20s} {r.difference:+.4f}  [{r.ci_low:+.4f}, {r.ci_high:+.4f}]  p={r.p_value:.4f}")


if __name__ == "__main__":
    main()
