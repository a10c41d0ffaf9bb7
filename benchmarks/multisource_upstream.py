"""Our multisource readers against the release's own NBF / NBF+SKIP, on the public generator's data.

    python benchmarks/multisource_upstream.py [DATA] [--release CHECKOUT]

Without DATA, the four seeds of our own generator. DATA is the released layout the public generator writes (`<checkout>/data/benchmark/seeds`
after `make seed-s20260321 ... seed-s20260324` in a checkout of
anon-neuripsed26/multisource-memory-benchmark). For each reader variant the script fits our
models exactly as the suite does (per seed, or pooled), predicts the test split of every seed
from the direct-readout atoms of the structural sources, and prints the paper's metrics.
With --release it also runs the release's own `NBF` and `NBFSelective` through its own
evaluation code (a subprocess with PYTHONPATH=<checkout>/src and S2A_DATA_ROOT set) and
compares, item by item, its answers and skips with ours, and its oracle atoms with ours.

Measured on this project's machine (numpy 2.4.6; 2 m 43 s wall on the shared machine): the
four seeds of the public generator, produced in a scratch copy of the release with
`make seed-s20260321` ... `seed-s20260324` (about 25 s in all), test split, 8,640 items
(the trailing (T, theta) columns of our lines left out):

    python benchmarks/multisource_upstream.py /tmp/h-multisource/upstream/data/benchmark/seeds \
        --release /tmp/h-multisource/upstream

    ours nbf-skip       accuracy 0.8134  coverage 0.8104  selective 0.8528  F0.5 0.8522
    ours nbf            accuracy 0.8155  coverage 1.0000  selective 0.8155  F0.5 0.8468
    ours pooled-margin  accuracy 0.8178  coverage 0.6858  selective 0.9076  F0.5 0.8739
    release NBF         forced 0.8155  coverage 1.0000  selective 0.8155
      vs ours nbf: per-seed (T, theta) identical; 8640/8640 items answered and skipped alike
    release NBF+SKIP    forced 0.7096  coverage 0.8104  selective 0.8528
      vs ours nbf-skip: per-seed (T, theta) identical; 8640/8640 items answered and skipped alike
    atoms: ours equal the release's oracle atoms on 172800/172800 (persona, question, source) cells

    per-seed (T, theta), both sides: NBF 0.7 / 0.8 / 1.0 / 0.9; NBF+SKIP (0.9, 0.43),
    (1.5, 0.48), (0.8, 0.21), (1.1, 0.21) for seeds 20260321..20260324.

F0.5 is the macro form of App. C.3 computed on our records. The release's NBF+SKIP records no
answer for a skipped item, so its forced accuracy counts skips wrong; ours records the label
it would have given (0.8134). The paper's tables print NBF 82.1 and NBF+SKIP 88.5 at 77.9%
coverage; the release's own code on the generator's output today gives the numbers above.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_memeval.suites.multisource import (
    coverage,
    f_beta,
    macro_accuracy,
    public_sources,
    selective_accuracy,
    source_atoms,
)
from pytest_memeval.suites.multisource.catalog import Catalog
from pytest_memeval.suites.multisource.reader import READERS, fitted_models

from pytest_memeval.framework.suite import SuiteOptions

# Runs inside the release's own environment: its data loaders, its methods, its aggregation.
RELEASE_SCRIPT = r"""
import json, sys
from survey2agent.evaluation.aggregator import aggregate_metrics
from survey2agent.evaluation.data_loaders import load_atoms_for_seed
from survey2agent.evaluation.multi_seed import evaluate_method_across_seeds, pool_results_across_seeds
from survey2agent.extraction.question_spec import QUESTIONS
from survey2agent.methods._atom_adapter import atom_to_mu_q
from survey2agent.methods.nbf import NBF, NBFSelective

seeds = sys.argv[1:]
out = {"methods": {}, "atoms": {}}
for cls in (NBF, NBFSelective):
    made = []
    def factory(cls=cls):
        made.append(cls())
        return made[-1]
    results = evaluate_method_across_seeds(factory, seeds=seeds, atoms_mode="oracle", split="test")
    metrics = aggregate_metrics(pool_results_across_seeds(results))
    out["methods"][cls.name] = {
        "forced_accuracy": metrics["forced_accuracy"], "coverage": metrics["coverage"],
        "selective_accuracy": metrics["selective_accuracy"],
        "params": {s: [m._temperature, m._theta_margin] for s, m in zip(seeds, made)},
        "items": {f"{s}/{r.persona_id}/{r.qid}": [r.prediction.answer, r.prediction.would_skip]
                  for s, rs in results.items() for r in rs},
    }
for seed in seeds:
    for pid, atom in load_atoms_for_seed(seed, mode="oracle").items():
        out["atoms"][f"{seed}/{pid}"] = {q: atom_to_mu_q(atom, q) for q in QUESTIONS}
json.dump(out, sys.stdout)
"""


def ours(data: Path | None, cache: Path) -> tuple[dict[str, Any], dict[str, dict]]:
    options = SuiteOptions(size="full", split="test", seeds=None, k=10, data_dir=data, cache_dir=cache)
    catalog = Catalog(options)
    test = list(catalog.personas(catalog.of_split("test")))
    atoms = {f"s{p.seed}/{p.persona_id}": source_atoms(public_sources(p)) for p in test}
    runs: dict[str, Any] = {}
    for variant in READERS:
        models = fitted_models(catalog, variant)
        qids, correct, answered, items = [], [], [], {}
        for p in test:
            key = f"s{p.seed}/{p.persona_id}"
            for qid, pred in models[p.seed].predict_all(atoms[key]).items():
                qids.append(qid)
                correct.append(pred.label == p.answers[qid])
                answered.append(pred.answered)
                items[f"{key}/{qid}"] = [pred.label, not pred.answered]
        runs[variant] = {
            "accuracy": macro_accuracy(qids, correct),
            "coverage": coverage(answered),
            "selective_accuracy": selective_accuracy(qids, correct, answered),
            "f05": f_beta(qids, correct, answered),
            "params": {f"s{s}": [m.temperature, m.theta] for s, m in models.items()},
            "items": items,
        }
    everyone = [r for split in ("train", "dev", "calibration", "test") for r in catalog.of_split(split)]
    all_atoms = {f"s{p.seed}/{p.persona_id}": source_atoms(public_sources(p)) for p in catalog.personas(everyone)}
    return runs, all_atoms


def release(checkout: Path, data: Path, seeds: list[str]) -> dict[str, Any]:
    if data.name != "seeds" or data.parent.name != "benchmark":
        sys.exit(f"--release needs DATA laid out as <root>/benchmark/seeds, got {data}")
    env = dict(os.environ, PYTHONPATH=str(checkout / "src"), S2A_DATA_ROOT=str(data.parent.parent))
    done = subprocess.run(
        [sys.executable, "-c", RELEASE_SCRIPT, *seeds], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode:
        sys.exit(f"the release's evaluation failed: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "data", type=Path, nargs="?", help="the public generator's output (released layout); default: our generator"
    )
    parser.add_argument("--release", type=Path, help="a checkout of the release, to run its own NBF")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        runs, atoms = ours(args.data, Path(cache))
    for variant, run in runs.items():
        print(
            f"ours {variant:<14} accuracy {run['accuracy']:.4f}  coverage {run['coverage']:.4f}  "
            f"selective {run['selective_accuracy']:.4f}  F0.5 {run['f05']:.4f}  (T, theta) {run['params']}"
        )
    if args.release is None:
        return 0
    if args.data is None:
        sys.exit("--release compares on the release's data: name DATA too")
    theirs = release(args.release, args.data, sorted(runs["nbf"]["params"]))
    for name, variant in (("NBF", "nbf"), ("NBF+SKIP", "nbf-skip")):
        method, run = theirs["methods"][name], runs[variant]
        print(
            f"release {name:<9} forced {method['forced_accuracy']:.4f}  coverage {method['coverage']:.4f}  "
            f"selective {method['selective_accuracy']:.4f}  (T, theta) {method['params']}"
        )
        same_params = method["params"] == run["params"]
        # a skip is a skip whatever label either side would have given
        differ = [
            k
            for k, (answer, skip) in method["items"].items()
            if run["items"][k][1] != skip or (not skip and run["items"][k][0] != answer)
        ]
        print(
            f"  vs ours {variant}: per-seed (T, theta) {'identical' if same_params else 'DIFFER'}; "
            f"{len(method['items']) - len(differ)}/{len(method['items'])} items answered and skipped alike"
        )
    cells = [(k, q, s) for k, qs in theirs["atoms"].items() for q, srcs in qs.items() for s in srcs]
    equal = sum(atoms[k][q].get(s) == theirs["atoms"][k][q][s] for k, q, s in cells)
    print(f"atoms: ours equal the release's oracle atoms on {equal}/{len(cells)} (persona, question, source) cells")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
