"""Time the multisource data layer per persona.

    python benchmarks/bench_multisource_generate.py [--seed 20260321] [--n 480]

Prints ms/persona for generation (L1 personas, L2 events, L3 sources, ground truth;
the paper's generator takes about 35 ms), and for render, parse and atoms.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_memeval.suites.multisource import generate, parse_records, render_units, source_atoms


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=20260321)
    ap.add_argument("--n", type=int, default=480, help="personas to generate (from index 0)")
    args = ap.parse_args()

    t0 = time.perf_counter()
    personas = [generate(args.seed, i % 480) for i in range(args.n)]
    t_gen = time.perf_counter() - t0

    t0 = time.perf_counter()
    units = [[text for _, text in render_units(p.sources)] for p in personas]
    t_render = time.perf_counter() - t0

    t0 = time.perf_counter()
    parsed = [parse_records(u) for u in units]
    t_parse = time.perf_counter() - t0

    t0 = time.perf_counter()
    for p in parsed:
        source_atoms(p)
    t_atoms = time.perf_counter() - t0

    n = len(personas)
    print(f"{n} personas of seed {args.seed}")
    print(f"generate (L1+L2+L3+ground truth): {t_gen / n * 1000:6.2f} ms/persona  (paper generator ~35)")
    print(f"render_units:                     {t_render / n * 1000:6.2f} ms/persona")
    print(f"parse_records:                    {t_parse / n * 1000:6.2f} ms/persona")
    print(f"source_atoms (parsed):            {t_atoms / n * 1000:6.2f} ms/persona")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
