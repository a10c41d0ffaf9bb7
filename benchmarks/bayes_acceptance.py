"""Acceptance numbers of the bayes suite (issue 7), measured.

1. Environment: how often the Bayesian reference identifies the true user type after 20
   ratings (target about 0.80; the paper's fitted types: 0.82, chance 0.25), in the
   calibration sample and on fresh simulated users.
2. Self-test agents on the `context` memory (everything retrieved), the main conditions
   at full size (coin: one flip per session, identical wording; recommender: anonymized,
   passive): perfect Bayesian error 0; memoryless equals the prior's error; tempered
   lambda < 1 under-updates and > 1 over-updates (pooled ESS = lambda x T); a last-k window
   is the exact posterior of the last k observations.
3. The offline reader through pytest (smoke or small size, hashing embedder) with
   context, none, chroma (k=10) and a deduplicating memory: coin error by turn, and
   identical against indexed observations.
4. Optionally (--minilm) chroma with the MiniLM embedder on the coin's main conditions.

    python benchmarks/bayes_acceptance.py [--size small] [--minilm] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_memeval.suites.bayes import (
    BayesSuite,
    coin_mean,
    last_k,
    memoryless,
    parse_episode_id,
    perfect_bayesian,
    recommender_model,
    tempered,
    tvd,
    type_posterior,
)
from pytest_memeval.suites.bayes.environments import IDENTIFY_AT, N_TYPES, identification_accuracy, stream
from pytest_memeval.suites.bayes.offline import run_episodes
from pytest_memeval.suites.bayes.summary import summarize

from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.memory.context import ContextMemory
from pytest_memeval.stats import mean_sem

MAIN = {("coin", "passive_b1-identical-unknown_bias"), ("recommender", "passive_b1-anonymized")}
DEDUP = "pytest_memeval.suites.bayes.dedup_memory:DeduplicatingMemory"


def environment(seeds: list[int]) -> None:
    print("1. recommender: reference identifies the true type after 20 ratings")
    for seed in seeds:
        model = recommender_model(seed)
        fresh = stream(seed, 99, 99).random((N_TYPES, 5000, IDENTIFY_AT))
        print(
            f"   seed {seed}: separation {model.separation:.3f}, calibration sample {model.identification:.3f}, "
            f"fresh users {identification_accuracy(model.table(), fresh):.3f}"
        )


def agents(suite: BayesSuite) -> None:
    ids = [e.id for e in suite.index() if (parse_episode_id(e.id).env, parse_episode_id(e.id).condition.key) in MAIN]
    print(f"\n2. self-test agents on context memory ({len(ids)} episodes: main coin and recommender conditions)")
    prior = _prior_errors(suite, ids)
    print(
        f"   prior's error (computed from the references): coin MAE {prior['coin']}, type TVD {prior['type']}, "
        f"rating TVD {prior['rating']}"
    )
    for agent in (perfect_bayesian(), memoryless(), tempered(0.5), tempered(2.0), last_k(10)):
        records = run_episodes(suite, ContextMemory(), "context", agent, agent.name, ids, 10)
        metrics = summarize(records, 2000)["metrics"]
        coin = [r for r in records if r["task"] == "coin"]
        line = (
            f"   {agent.name:<17} coin MAE {_ms([r['detail']['mae'] for r in coin])}  "
            f"type TVD {_ms([r['detail']['type_tvd'] for r in records if r['task'] != 'coin'])}  "
            f"rating TVD {_ms([r['detail']['rating_tvd'] for r in records if r['task'] != 'coin'])}  "
            f"ESS coin {_est(metrics['coin_ess'])} type {_est(metrics['type_ess'])}  "
            f"moves less/more than Bayes {_update_shares(coin)}"
        )
        print(line)
        if agent.name.startswith("last_"):
            print(
                f"   {'':<17} max |belief - exact posterior of the last 10 flips| = {_window_gap(suite, coin, 10):.2e}"
            )


def plugin(size: str, workers: int, minilm: bool) -> None:
    print(f"\n3. offline reader through pytest, size {size}, k=10, hashing embedder")
    report = _pytest(
        ["--memsystem=context,none,chroma," + DEDUP, "--memeval-embedder=hashing", f"--memeval-size={size}"], workers
    )
    _print_runs(report)
    options = SuiteOptions(
        size=size, split=None, seeds=None, k=10, data_dir=None, cache_dir=Path(tempfile.gettempdir()), bootstrap=2000
    )
    suite = BayesSuite(options)
    main = [e.id for e in suite.index() if (parse_episode_id(e.id).env, parse_episode_id(e.id).condition.key) in MAIN]
    print(f"   the prior's error on the same main-condition episodes: {_prior_errors(suite, main)}")
    if minilm:
        print(f"\n4. chroma with MiniLM, coin one flip per session, size {size}")
        _print_runs(
            _pytest(
                [
                    "--memsystem=chroma",
                    f"--memeval-size={size}",
                    "-m",
                    "coin_flip and batch_1 and multi_turn_passive and task_unknown_bias",
                ],
                workers,
            )
        )


def _print_runs(report: dict) -> None:
    for run in report["runs"]:
        m, b = run["metrics"], run["breakdown"]
        name = run["memsystem"].split(":")[-1]
        print(
            f"   {name:<20} n={run['n_items']:<4} coin MAE {_est(m['coin_mae'])}  type TVD {_est(m['type_tvd'])}  "
            f"rating TVD {_est(m['rating_tvd'])}  evidence recall {_est(m['evidence_recall'])}  coin ESS {_est(m['coin_ess'])}"
        )
        if "coin_error_by_turn" in b:
            cells = "  ".join(f"{cell} {v['coin_mae']['value']:.4f}" for cell, v in b["coin_error_by_turn"].items())
            print(f"   {'':<20} coin error by turn: {cells}")
        conditions = b.get("coin_condition", {})
        pairs = [
            (c, c.replace("identical", "indexed"))
            for c in conditions
            if "identical" in c and c.replace("identical", "indexed") in conditions
        ]
        for identical, indexed in pairs:
            print(
                f"   {'':<20} {identical}: identical {conditions[identical]['coin_mae']['value']:.4f} "
                f"vs indexed {conditions[indexed]['coin_mae']['value']:.4f}"
            )
        main = b.get("rec_condition", {}).get("passive_b1-anonymized")
        if main:
            print(
                f"   {'':<20} recommender passive_b1-anonymized: type TVD {_est(main['type_tvd'])}, "
                f"rating TVD {_est(main['rating_tvd'])}, recency {_est(main.get('retrieval_recency', {}))}"
            )


def _pytest(args: list[str], workers: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        env = dict(os.environ, MEMEVAL_CACHE_DIR=str(Path(tmp) / "cache"))
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "--memeval-suite=bayes",
            f"--memeval-report={report}",
            "-n",
            str(workers),
            *args,
        ]
        started = time.perf_counter()
        subprocess.run(command, cwd=tmp, env=env, stdout=subprocess.DEVNULL, check=False)
        print(f"   ({' '.join(args)}: {time.perf_counter() - started:.0f} s)")
        return json.loads(report.read_text())


def _prior_errors(suite: BayesSuite, ids: list[str]) -> dict[str, str]:
    coin, types, ratings = [], [], []
    for episode_id in ids:
        data = suite.episode_data(episode_id)
        if data.condition.env == "coin":
            coin.append(np.mean([abs(0.5 - coin_mean(sum(data.observations[:t]), t)) for t in range(101)]))
            continue
        model, target = data.model, data.target
        prior = np.asarray(model.prior)
        types_t, ratings_t = [], []
        for t in range(51):
            post = type_posterior(model, [(m, data.observations[m]) for m in range(t)])
            types_t.append(tvd(prior, post))
            ratings_t.append(tvd(prior @ model.table()[target], post @ model.table()[target]))
        types.append(np.mean(types_t))
        ratings.append(np.mean(ratings_t))
    return {"coin": _ms(coin), "type": _ms(types), "rating": _ms(ratings)}


def _update_shares(records: list[dict]) -> str:
    """Share of coin probes whose belief moved less / more from 1/2 than the reference did."""
    less = more = total = 0
    for record in records:
        for entry, probe in zip(record["answer_detail"]["trajectory"], record["detail"]["per_probe"]):
            move, reference = abs(entry["p_heads"] - 0.5), abs(probe["reference"] - 0.5)
            if reference > 1e-9:
                total += 1
                less += move < reference - 1e-9
                more += move > reference + 1e-9
    return f"{less / total:.2f}/{more / total:.2f}"


def _window_gap(suite: BayesSuite, records: list[dict], window: int) -> float:
    gap = 0.0
    for record in records:
        flips = suite.episode_data(record["id"]).observations
        for entry in record["answer_detail"]["trajectory"]:
            seen = flips[max(0, entry["t"] - window) : entry["t"]]
            gap = max(gap, abs(entry["p_heads"] - coin_mean(sum(seen), len(seen))))
    return gap


def _ms(values: list[float]) -> str:
    result = mean_sem(values)
    return f"{result.mean:.4f} +- {result.sem:.4f}"


def _est(estimate: dict) -> str:
    if estimate.get("value") is None:
        return "n/a"
    low, high = estimate["ci"]
    return f"{estimate['value']:.4f} [{low:.4f}, {high:.4f}]"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", default="small", choices=("smoke", "small", "full"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--minilm", action="store_true", help="also run chroma with the MiniLM embedder")
    parser.add_argument("--seeds", type=int, nargs="*", default=[2026, 0, 1, 2, 3])
    args = parser.parse_args()
    environment(args.seeds)
    options = SuiteOptions(
        size="full", split=None, seeds=None, k=10, data_dir=None, cache_dir=Path(tempfile.gettempdir()), bootstrap=2000
    )
    agents(BayesSuite(options))
    plugin(args.size, args.workers, args.minilm)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
