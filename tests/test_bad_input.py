"""Bad input of every kind is one clear line and loses nothing.

Two parametrized matrices. `BAD_INPUT`: options, paths, files of the wrong content, gates,
adapter settings, baselines and data directories. Each case runs the plugin's preparation of
a run (`run_setup.prepare_run`) on its options in this process, in milliseconds, and asserts
an error of one line that contains the expected text (within a time limit: a case that
would block, such as a FIFO at a path, fails instead of hanging); a few cases run pytest in a
subprocess to see what a user sees there: exit status 4, exactly one line on stderr starting
with "ERROR: ", and no traceback anywhere. `BAD_ADAPTER_VALUES`: what a memory system
returns (statistics, scores, ids, metadata, sources, exception messages), each either
converted or the error record of the item that received it, in one printable line, while
the other memory system's records all survive (each case a pytest run in a subprocess).
Every run of pytest here has a time limit.
"""

from __future__ import annotations

import fnmatch
import json
import math
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from harness import CommandLine, bounded, option_defaults

from pytest_memeval.errors import ConfigError
from pytest_memeval.running.run_setup import prepare_run

#: no run of pytest in these tests may take longer (a hang fails the test, it does not hang it)
SUBPROCESS_TIMEOUT_S = 300

#: (arguments, expected text); "{name}" in an argument is the path of a file made by `inputs`
BAD_INPUT: list[tuple[list[str], str]] = [
    (
        ["--memsystem=context", "--memeval-oracle", "--memeval-suite=locomo,bayes"],
        "--memeval-oracle: suite 'bayes' declares no gold evidence to store; select suites that do with "
        "--memeval-suite (*locomo*)",
    ),
    # memory systems
    (["--memsystem=nosuch"], "--memsystem: unknown memory system 'nosuch'"),
    (["--memsystem=not a path:X"], "is not of the form pkg.module:Class"),
    (
        ["--memsystem=nosuchmodule_xyz:Thing"],
        "cannot import 'nosuchmodule_xyz' * with PYTHONPATH=., or install your package with pip install -e .)",
    ),
    (["--memsystem=json:NoSuchClass"], "'json' has no attribute 'NoSuchClass'"),
    (["--memsystem=json:__doc__"], "--memsystem: 'json:__doc__' is not a class or a factory"),
    (["--memsystem=context,context"], "--memsystem: context named twice"),
    (["--memsystem=context,"], "--memsystem: empty name"),
    # suites, sizes, splits, seeds, depths
    (["--memsystem=context", "--memeval-suite=nosuch"], "--memeval-suite: unknown suite 'nosuch'"),
    (["--memsystem=context", "--memeval-suite=multisource,multisource"], "--memeval-suite: multisource named twice"),
    (["--memsystem=context", "--memeval-size=huge"], "--memeval-size: 'huge' is not one of smoke, small, full"),
    (["--memsystem=context", "--memeval-split=holdout"], "--memeval-split: 'holdout' is not one of"),
    (
        ["--memsystem=context", "--memeval-suite=memfail", "--memeval-split=train"],
        "--memeval-split: suite 'memfail' has no 'train' split",
    ),
    (["--memsystem=context", "--memeval-k=ten"], "--memeval-k: 'ten' is not an integer"),
    (["--memsystem=context", "--memeval-k=0"], "--memeval-k: must be at least 1, got 0"),
    (["--memsystem=context", "--memeval-token-budget=0"], "--memeval-token-budget: must be at least 1, got 0"),
    (
        ["--memsystem=context", "--memeval-searchable-deadline=5"],
        "--memeval-searchable-deadline: bounds --memeval-searchable, which is not given",
    ),
    (
        ["--memsystem=context", "--memeval-searchable", "--memeval-searchable-deadline=0"],
        "--memeval-searchable-deadline: must be a positive finite number, got 0",
    ),
    (["--memsystem=context", "--memeval-k=10,10"], "--memeval-k: 10 named twice"),
    (["--memsystem=context", "--memeval-seed=1,x"], "--memeval-seed: 'x' is not an integer"),
    (["--memsystem=context", "--memeval-seed=-3"], "--memeval-seed: '-3' is negative"),
    (["--memsystem=context", "--memeval-bootstrap=0"], "--memeval-bootstrap: must be at least 1"),
    (["--memsystem=context", "--memeval-bootstrap=many"], "--memeval-bootstrap: 'many' is not an integer"),
    (["--memsystem=context", "--memeval-max-errors=-1"], "--memeval-max-errors: must be at least 0"),
    (["--memsystem=context", "--memeval-judge-audit=-1"], "--memeval-judge-audit: must be at least 0"),
    (["--memsystem=context", "--memeval-errata={missing}"], "--memeval-errata: cannot read *"),
    (["--memsystem=context", "--memeval-embedder=bert"], "--memeval-embedder: 'bert' is not one of minilm, hashing"),
    (["--memsystem=context", "--memeval-embedding-batch=0"], "--memeval-embedding-batch: must be at least 1, got 0"),
    (["--memsystem=context", "--memeval-embedding-batch=big"], "--memeval-embedding-batch: 'big' is not an integer"),
    # suite settings
    (["--memsystem=context", "--memeval-suite-option=bayes.probe_every"], "is not of the form SUITE.KEY=VALUE"),
    (["--memsystem=context", "--memeval-suite-option=nosuite.x=1"], "--memeval-suite-option: unknown suite 'nosuite'"),
    (
        ["--memsystem=context", "--memeval-suite-option=bayes.nosuch=1"],
        "--memeval-suite-option: bayes has no setting 'nosuch'",
    ),
    # response models, judges, LLM calls
    (["--memsystem=context", "--memeval-responder=gpt"], "--memeval-responder: unknown responder 'gpt'"),
    (
        ["--memsystem=context", "--memeval-responder=openai:"],
        "--memeval-responder: 'openai:' is not of the form openai:MODEL",
    ),
    (["--memsystem=context", "--memeval-judge=gpt4"], "--memeval-judge: 'gpt4' is not of the form openai:MODEL"),
    (["--memsystem=context", "--memeval-judge=openai:m@"], "--memeval-judge: 'openai:m@' names no prompt after '@'"),
    (
        ["--memsystem=context", "--memeval-suite=locomo", "--memeval-judge=openai:m@strict"],
        "--memeval-judge: openai:m@strict: suite 'locomo' has no judge prompt 'strict' (its prompts: mem0-j, longmemeval)",
    ),
    (
        ["--memsystem=context", "--memeval-suite=memfail", "--memeval-judge=openai:m@mem0-j"],
        "--memeval-judge: openai:m@mem0-j: suite 'memfail' has no named judge prompts",
    ),
    (
        ["--memsystem=context", "--memeval-suite=memfail,knowme", "--memeval-judge=default"],
        "--memeval-judge: default: suite 'memfail' names no judge model (name one: openai:MODEL) "
        "(it applies to locomo, longmemeval, halumem, beam: select one with --memeval-suite)",
    ),
    (
        ["--memsystem=context", "--memeval-suite=locomo", "--memeval-judge=openai:gpt-4o-mini,default"],
        "--memeval-judge: suite 'locomo' would have judge 'gpt-4o-mini@mem0-j' twice",
    ),
    (
        ["--memsystem=context", "--memeval-local-model=smollm2-135m", "--memeval-judge=default"],
        "--memeval-judge: default asks the protocol's model, which --memeval-local-model does not serve",
    ),
    (
        ["--memsystem=context", "--memeval-suite=multisource", "--memeval-judge=openai:m"],
        "none of the selected suites (multisource) is graded by an LLM judge",
    ),
    (
        ["--memsystem=context", "--memeval-responder=openai:m", "--memeval-timeout=inf"],
        "--memeval-timeout: must be a positive finite number, got inf",
    ),
    (
        ["--memsystem=context", "--memeval-responder=openai:m", "--memeval-timeout=0"],
        "--memeval-timeout: must be a positive finite number",
    ),
    (
        ["--memsystem=context", "--memeval-responder=openai:m", "--memeval-timeout=nan"],
        "--memeval-timeout: must be a positive finite number",
    ),
    (
        ["--memsystem=context", "--memeval-responder=openai:m", "--memeval-max-tokens=0"],
        "--memeval-max-tokens: must be at least 1",
    ),
    (
        ["--memsystem=context", "--memeval-responder=openai:m", "--memeval-concurrency=0"],
        "--memeval-concurrency: must be at least 1",
    ),
    (
        ["--memsystem=context", "--memeval-responder=openai:m", "--memeval-llm-cache=sometimes"],
        "--memeval-llm-cache: 'sometimes' is not one of",
    ),
    (
        [
            "--memsystem=context",
            "--memeval-responder=openai:m",
            "--memeval-llm-cache=replay",
            "--memeval-llm-cache-file={missing}",
        ],
        "--memeval-llm-cache=replay: no cache file at",
    ),
    (
        ["--memsystem=context", "--memeval-responder=openai:m", "--memeval-llm-cache-file={text}"],
        "--memeval-llm-cache-file: * is not an SQLite database",
    ),
    (
        ["--memsystem=context", "--memeval-responder=openai:m", "--memeval-llm-cache-file={dir}"],
        "--memeval-llm-cache-file: * is not a file",
    ),
    (
        ["--memsystem=context", "--memeval-adapter-timeout=inf"],
        "--memeval-adapter-timeout: must be a positive finite number, got inf",
    ),
    (
        ["--memsystem=context", "--memeval-adapter-timeout=-1"],
        "--memeval-adapter-timeout: must be a positive finite number",
    ),
    # output paths: opened for writing now, not after the run
    (["--memsystem=context", "--memeval-report=/nonexistent-dir/r.json"], "directory /nonexistent-dir does not exist"),
    (
        ["--memsystem=context", "--memeval-report=/proc/memeval-x.json"],
        "--memeval-report: cannot write /proc/memeval-x.json",
    ),
    (["--memsystem=context", "--memeval-report=/dev/full"], "--memeval-report: /dev/full is not a regular file"),
    (["--memsystem=context", "--memeval-report={dir}"], "--memeval-report: * is a directory, expected a file path"),
    (
        ["--memsystem=context", "--memeval-html=/proc/memeval-x.html"],
        "--memeval-html: cannot write /proc/memeval-x.html",
    ),
    (["--memsystem=context", "--memeval-cache-dir={text}"], "--memeval-cache-dir: * exists and is not a directory"),
    # data directories
    (
        ["--memsystem=context", "--memeval-data=/nonexistent-data"],
        "--memeval-data: /nonexistent-data is not a directory",
    ),
    (["--memsystem=context", "--memeval-suite=bayes", "--memeval-data={dir}"], "is not a BayesBench checkout"),
    (
        ["--memsystem=context", "--memeval-suite=multisource", "--memeval-data={garbled_multisource}"],
        "--memeval-data: *event_table.json",
    ),
    (
        ["--memsystem=context", "--memeval-suite=multisource", "--memeval-data={train_only_multisource}"],
        "multisource has no items in this selection",
    ),
    # baselines
    (
        ["--memsystem=context", "--memeval-baseline=/nonexistent/b.json"],
        "--memeval-baseline: /nonexistent/b.json is not a file",
    ),
    (["--memsystem=context", "--memeval-baseline={text}"], "--memeval-baseline: * is not JSON"),
    (["--memsystem=context", "--memeval-baseline={binary}"], "--memeval-baseline: * is not JSON"),
    (
        ["--memsystem=context", "--memeval-baseline={schema0}"],
        "is not a memeval-report/2 report (schema: 'memeval-report/0')",
    ),
    (["--memsystem=context", "--memeval-baseline={schema1_lacking}"], "record 0 lacks 'abstained'"),
    (
        ["--memsystem=context", "--memeval-baseline={schema2_bad_record}"],
        "status 'maybe' is not one of scored, invalid, error",
    ),
    (["--memsystem=context", "--memeval-baseline={schema2_empty}"], "has no per-item records to pair with"),
    (["--memsystem=context", "--memeval-baseline={schema2_lacking_key}"], "records[0] (id x): lacks 'key'"),
    # campaigns: resume, shards, prices and budgets
    (["--memsystem=context", "--memeval-prices=/nonexistent/p.toml"], "--memeval-prices: cannot read"),
    (["--memsystem=context", "--memeval-prices={bad_toml}"], "--memeval-prices: * is not valid TOML"),
    (["--memsystem=context", "--memeval-prices={binary}"], "--memeval-prices: * is not a UTF-8 text file"),
    (
        ["--memsystem=context", "--memeval-prices={prices_lacking_output}"],
        "[m] must hold exactly input and output (per million tokens)",
    ),
    (["--memsystem=context", "--memeval-max-cost=1"], "--memeval-max-cost: needs --memeval-prices"),
    (
        ["--memsystem=context", "--memeval-prices={prices_other}", "--memeval-max-cost=-1"],
        "--memeval-max-cost: must be a positive finite number",
    ),
    (
        [
            "--memsystem=context",
            "--memeval-responder=openai:m",
            "--memeval-prices={prices_other}",
            "--memeval-max-cost=1",
        ],
        "--memeval-max-cost: --memeval-prices has no price for model 'm'",
    ),
    (["--memsystem=context", "--memeval-resume"], "--memeval-resume: needs --memeval-report"),
    (["--memsystem=context", "--memeval-shard=3/2"], "--memeval-shard: '3/2' is not I/N with 1 <= I <= N"),
    (["--memsystem=context", "--memeval-shard=one"], "--memeval-shard: 'one' is not I/N"),
    (["--memsystem=context", "--memeval-shard=1/2 "], "--memeval-shard: '1/2 ' is not I/N"),
    (["--memsystem=context", "--memeval-shard=1/99999999999999999999999"], "N is at most 1000"),
    (["--memsystem=context", "--memeval-shard=1/1000000000"], "--memeval-shard: '1/1000000000': N is at most 1000"),
    (
        ["--memsystem=context", "--memeval-suite=longmemeval", "--memeval-shard=1/17"],
        "--memeval-shard: 1/17: this run has 16 contexts, so at most 16 shards (a shard runs whole contexts)",
    ),
    # outputs at one file
    (
        ["--memsystem=context", "--memeval-report={dir}/run.json", "--memeval-html={dir}/run.json"],
        "--memeval-html: */run.json is also the JSON report (--memeval-report) (*): give each output a file of its own",
    ),
    (
        ["--memsystem=context", "--memeval-report={dir}/run.json", "--memeval-html={dir}/run.journal.jsonl"],
        "--memeval-html: */run.journal.jsonl is also the journal beside --memeval-report, which a complete run removes",
    ),
    (
        [
            "--memsystem=context",
            "--memeval-responder=openai:m",
            "--memeval-report={dir}/calls.sqlite",
            "--memeval-llm-cache-file={dir}/calls.sqlite",
        ],
        "--memeval-llm-cache-file: */calls.sqlite is also the JSON report (--memeval-report)",
    ),
    (
        ["--memsystem=context", "--memeval-report={dir}/run.json", "--memeval-bundle={dir}/run.json"],
        "--memeval-bundle: */run.json is also the JSON report (--memeval-report)",
    ),
    # run bundles
    (
        ["--memsystem=context", "--memeval-sign={text}"],
        "--memeval-sign: signs the --memeval-bundle, which is not given",
    ),
    (
        ["--memsystem=context", "--memeval-bundle={dir}/b.json", "--memeval-sign={text}"],
        "--memeval-sign: * is not a private key",
    ),
    (
        ["--memsystem=context", "--memeval-bundle={dir}/b.json", "--memeval-sign=/nonexistent/key.pem"],
        "--memeval-sign: cannot read /nonexistent/key.pem",
    ),
    (
        ["--memsystem=context", "--memeval-report={dir}/r.json", "--memeval-resume", "--memeval-bundle={dir}/b.json"],
        "--memeval-bundle: a resumed run's earlier items made calls this run does not see",
    ),
    (
        [
            "--memsystem=context",
            "--memeval-responder=openai:m",
            "--memeval-llm-cache=off",
            "--memeval-bundle={dir}/b.json",
        ],
        "--memeval-bundle: --memeval-llm-cache=off records no LLM call",
    ),
    (
        ["--memsystem=context", "--memeval-shard-durations={schema2_empty}"],
        "--memeval-shard-durations: balances --memeval-shard, which is not given",
    ),
    (
        ["--memsystem=context", "--memeval-shard=1/2", "--memeval-shard-durations={text}"],
        "--memeval-shard-durations: * is not JSON",
    ),
    (
        ["--memsystem=context", "--memeval-shard=1/2", "--memeval-shard-durations={schema0}"],
        "--memeval-shard-durations: * is not a memeval-report/2 report",
    ),
    # gates
    (["--memsystem=context", "--memeval-gate=accuracy is good"], "--memeval-gate: cannot read 'accuracy is good'"),
    (["--memsystem=context", "--memeval-gate=multisorce.accuracy>=0.5"], "unknown suite 'multisorce'"),
    (
        ["--memsystem=context", "--memeval-gate=multisource[nonn].accuracy>=0.5"],
        "memory system 'nonn' is not in --memsystem",
    ),
    (["--memsystem=context", "--memeval-gate=multisource.acc>=0.5"], "multisource has no metric 'acc'"),
    (["--memsystem=context", "--memeval-gate=multisource.f0.5>=0.7"], "multisource has no metric 'f0.5'"),
    (
        ["--memsystem=context", "--memeval-suite=memfail", "--memeval-gate=multisource.accuracy>=0.5"],
        "suite 'multisource' is not selected",
    ),
    (["--memsystem=context", "--memeval-gate=multisource.accuracy:no-regression"], "needs --memeval-baseline"),
    (["--memsystem=context", "--memeval-gate=multisource.accuracy>=1e"], "--memeval-gate: cannot read"),
    # adapter settings
    (
        ["--memsystem=chroma", "--memeval-adapter-config={binary}"],
        "--memeval-adapter-config: * is not a UTF-8 text file",
    ),
    (
        ["--memsystem=chroma", "--memeval-adapter-config=/nonexistent/c.toml"],
        "--memeval-adapter-config: cannot read /nonexistent/c.toml",
    ),
    (["--memsystem=chroma", "--memeval-adapter-config={bad_toml}"], "is not valid TOML"),
    (
        ["--memsystem=chroma", "--memeval-adapter-config={other_system}"],
        "has settings for 'context', which is not in --memsystem",
    ),
    (["--memsystem=chroma", "--memeval-adapter-config={not_a_table}"], "'chroma' must be a table like [chroma]"),
    (
        ["--memsystem=json:JSONDecoder", "--memeval-adapter-config={unquoted_import_path}"],
        'is not valid TOML: * (quote a table named by import path: ["json:JSONDecoder"])',
    ),
    (
        ["--memsystem=json:JSONDecoder", "--memeval-adapter-config={other_system}"],
        "has settings for 'context', which is not in --memsystem (json:JSONDecoder); name each table by its "
        '--memsystem entry, e.g. ["json:JSONDecoder"]',
    ),
    (
        ["--memsystem=chroma", "--memeval-adapter-config={unknown_setting}"],
        "--memeval-adapter-config [chroma]: unknown setting 'prot'",
    ),
    (
        ["--memsystem=chroma", "--memeval-adapter-config={wrong_type}"],
        "--memeval-adapter-config [chroma]: chunk_tokens must be int, got 'big'",
    ),
    (
        ["--memsystem=chroma", "--memeval-adapter-config={bool_for_int}"],
        "--memeval-adapter-config [chroma]: chunk_tokens must be int, got True",
    ),
    (
        ["--memsystem=chroma", "--memeval-adapter-config={negative_chunks}"],
        "--memeval-adapter-config [chroma]: chunk_tokens must be at least 1, got -5",
    ),
    (
        ["--memsystem=chroma", "--memeval-adapter-config={bad_port}"],
        "--memeval-adapter-config [chroma]: port must be in 1..65535",
    ),
    # the second audit (issue 22): baselines are type-checked field by field
    (["--memsystem=context", "--memeval-baseline={correct_as_text}"], "correct must be boolean or null, got 'false'"),
    (["--memsystem=context", "--memeval-baseline={abstained_as_text}"], "abstained must be boolean, got 'no'"),
    (["--memsystem=context", "--memeval-baseline={integer_id}"], "id must be string, got 7"),
    (["--memsystem=context", "--memeval-baseline={repeat_as_text}"], "repeat must be integer, got '0'"),
    (["--memsystem=context", "--memeval-baseline={strata_as_numbers}"], "strata must map names to strings"),
    (["--memsystem=context", "--memeval-baseline={schema1_wrong_type}"], "record 0: correct must be boolean or null"),
    (
        ["--memsystem=context", "--memeval-baseline={deep_json}"],
        "cannot be a report: nested 200,000 levels deep, too deep to read",
    ),
    (
        ["--memsystem=context", "--memeval-baseline={nan_score}"],
        "cannot be a report: NaN is not a number JSON allows: line 1 column *",
    ),
    # ... adapter settings too deep to read, or refused by the adapter's own check
    (["--memsystem=context", "--memeval-adapter-config={deep_toml}"], "is nested too deeply to be adapter settings"),
    (
        ["--memsystem=context", "--memeval-adapter-config={zero_budget}"],
        "--memeval-adapter-config [context]: token_budget must be at least 1, got 0",
    ),
    # ... the endpoint's base URL
    *(
        (
            ["--memsystem=context", "--memeval-responder=openai:m", f"--memeval-base-url={url}"],
            f"--memeval-base-url: '{url}' is not an http:// or https:// URL with a host",
        )
        for url in ("not a url", "ftp://example.org/v1", "http://", "http://127.0.0.1:99999/v1")
    ),
    # ... gates that can never fail
    (
        ["--memsystem=context", "--memeval-gate=multisource.accuracy<=" + "9" * 400],
        "the threshold of 'multisource.accuracy<=9999",
    ),
    (
        ["--memsystem=context", "--memeval-gate=multisource.accuracy>=-0"],
        "'multisource.accuracy>=-0' can never fail: accuracy lies in [0, 1]",
    ),
    (
        ["--memsystem=context", "--memeval-gate=ci:multisource.coverage<=1"],
        "'ci:multisource.coverage<=1' can never fail: coverage lies in [0, 1]",
    ),
    (
        ["--memsystem=context", "--memeval-baseline={text}", "--memeval-gate=multisource.accuracy:no-regression=1"],
        "'multisource.accuracy:no-regression=1' can never fail",
    ),
    (
        ["--memsystem=context", "--memeval-gate=multisource.mrr>=0"],
        "'multisource.mrr>=0' can never fail: mrr lies in [0, 1]",
    ),
    # ... retrieval metrics: of a suite that declares evidence, and with a threshold only
    (["--memsystem=context", "--memeval-gate=bayes.recall_at_k>=0.5"], "bayes has no metric 'recall_at_k'"),
    (
        ["--memsystem=context", "--memeval-baseline={text}", "--memeval-gate=multisource.recall_at_k:no-regression"],
        "runs are not compared pairwise on recall_at_k, so it has no no-regression gate",
    ),
    # ... a broken LLM cache file, refused before any item runs
    (
        ["--memsystem=context", "--memeval-responder=openai:m", "--memeval-llm-cache-file={cache_other_format}"],
        "holding 1 recorded answers was recorded with key format 0",
    ),
    (
        [
            "--memsystem=context",
            "--memeval-responder=openai:m",
            "--memeval-llm-cache=replay",
            "--memeval-llm-cache-file={cache_garbage}",
        ],
        "--memeval-llm-cache-file: * is damaged (file is not a database)",
    ),
    # ... a FIFO named like a data file (reading it would wait for a writer for ever)
    (
        ["--memsystem=context", "--memeval-suite=multisource", "--memeval-data={fifo_multisource}"],
        "event_table.json: cannot read (not a regular file (a FIFO))",
    ),
    # ... a FIFO at an option's path: reading (or writing) it would wait for a writer (or a reader) for ever
    (
        ["--memsystem=context", "--memeval-prices={fifo}"],
        "--memeval-prices: cannot read *: not a regular file (a FIFO)",
    ),
    (
        ["--memsystem=chroma", "--memeval-adapter-config={fifo}"],
        "--memeval-adapter-config: cannot read *: not a regular file (a FIFO)",
    ),
    (["--memsystem=context", "--memeval-baseline={fifo}"], "--memeval-baseline: * is not a regular file (a FIFO)"),
    (
        ["--memsystem=context", "--memeval-shard=1/2", "--memeval-shard-durations={fifo}"],
        "--memeval-shard-durations: * is not a regular file (a FIFO)",
    ),
    (["--memsystem=context", "--memeval-report={fifo}"], "--memeval-report: * is not a regular file (a FIFO)"),
    (["--memsystem=context", "--memeval-html={fifo}"], "--memeval-html: * is not a regular file (a FIFO)"),
]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Files of every wrong kind, made once."""
    root = tmp_path_factory.mktemp("bad-input")

    def write(name: str, content: str | bytes) -> str:
        path = root / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return str(path)

    # persona number 121 is in the test split, number 1 in train
    garbled = root / "garbled" / "s20260321" / "bench_stable_121_ada_lee"
    garbled.mkdir(parents=True)
    (garbled / "event_table.json").write_text('{"persona": [1, 2,', encoding="utf-8")
    train_only = root / "train-only" / "s20260321" / "bench_stable_001_ada_lee"
    train_only.mkdir(parents=True)
    record = {
        "id": "x",
        "key": {"suite": "toy", "memsystem": "none", "responder": "reader", "judge": "deterministic", "k": 10},
        "suite_ref": "toy",
        "context": "c",
        "cluster": "c",
        "task": "t",
        "status": "maybe",
    }
    fifo = root / "fifo" / "s20260321" / "bench_stable_121_ada_lee"
    fifo.mkdir(parents=True)
    os.mkfifo(fifo / "event_table.json")
    os.mkfifo(root / "fifo.file")
    good = {
        "id": "a",
        "key": {"suite": "toy", "memsystem": "none", "responder": "reader", "judge": "deterministic", "k": 10},
        "suite_ref": "toy",
        "context": "c",
        "cluster": "c",
        "task": "t",
        "status": "scored",
        "correct": True,
    }

    def baseline(name: str, **changes: object) -> str:
        return write(f"{name}.json", json.dumps({"schema": "memeval-report/2", "records": [dict(good, **changes)]}))

    schema1 = {"id": "a", "suite": "toy", "memsystem": "none", "responder": "reader", "abstained": False}
    cache_other_format = root / "other-format.sqlite"
    with sqlite3.connect(cache_other_format) as db:
        db.execute(
            "CREATE TABLE calls (key TEXT PRIMARY KEY, model TEXT, template TEXT, request TEXT, completion TEXT)"
        )
        db.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("INSERT INTO meta VALUES ('key_format', '0')")
        db.execute("INSERT INTO calls VALUES ('k', 'm', 't', '{}', '{}')")
    db.close()
    return {
        "correct_as_text": baseline("correct-text", correct="false"),
        "abstained_as_text": baseline("abstained-text", abstained="no"),
        "integer_id": baseline("integer-id", id=7),
        "repeat_as_text": baseline("repeat-text", repeat="0"),
        "strata_as_numbers": baseline("strata-numbers", strata={"dataset": 3}),
        "schema1_wrong_type": write(
            "schema1-types.json",
            json.dumps(
                {"schema": "memeval-report/1", "records": [dict(schema1, correct="yes", cluster="c", task="t")]}
            ),
        ),
        "deep_json": write("deep.json", "[" * 200_000 + "]" * 200_000),
        "nan_score": write(
            "nan.json", json.dumps({"schema": "memeval-report/2", "records": [dict(good, score=math.nan)]})
        ),
        "deep_toml": write("deep.toml", "[context]\ntoken_budget = " + "[" * 100_000 + "]" * 100_000 + "\n"),
        "zero_budget": write("zero-budget.toml", "[context]\ntoken_budget = 0\n"),
        "cache_other_format": str(cache_other_format),
        "cache_garbage": write("garbage.sqlite", b"SQLite format 3\x00" + bytes(range(256)) * 32),
        "fifo_multisource": str(root / "fifo"),
        "fifo": str(root / "fifo.file"),
        "missing": str(root / "missing.sqlite"),
        "dir": str(root),
        "text": write("text.txt", "not a database, not JSON\n"),
        "binary": write("binary.bin", bytes(range(256)) * 4),
        "schema0": write("schema0.json", json.dumps({"schema": "memeval-report/0", "records": []})),
        "schema1_lacking": write(
            "schema1.json",
            json.dumps(
                {
                    "schema": "memeval-report/1",
                    "records": [
                        {
                            "id": "a",
                            "suite": "toy",
                            "memsystem": "none",
                            "responder": "reader",
                            "correct": True,
                            "cluster": "c",
                            "task": "t",
                        }
                    ],
                }
            ),
        ),
        "schema2_bad_record": write(
            "schema2-bad.json", json.dumps({"schema": "memeval-report/2", "records": [record]})
        ),
        "schema2_empty": write("schema2-empty.json", json.dumps({"schema": "memeval-report/2", "records": []})),
        "schema2_lacking_key": write(
            "schema2-lacking-key.json", json.dumps({"schema": "memeval-report/2", "records": [{"id": "x"}]})
        ),
        "garbled_multisource": str(root / "garbled"),
        "train_only_multisource": str(root / "train-only"),
        "bad_toml": write("bad.toml", "[chroma\n"),
        "other_system": write("other.toml", "[context]\ntoken_budget = 10\n"),
        "not_a_table": write("not-table.toml", "chroma = 3\n"),
        "unquoted_import_path": write("unquoted.toml", "[json:JSONDecoder]\nstrict = false\n"),
        "unknown_setting": write("unknown.toml", "[chroma]\nprot = 1\n"),
        "wrong_type": write("wrong-type.toml", '[chroma]\nchunk_tokens = "big"\n'),
        "bool_for_int": write("bool.toml", "[chroma]\nchunk_tokens = true\n"),
        "negative_chunks": write("negative.toml", "[chroma]\nchunk_tokens = -5\n"),
        "bad_port": write("port.toml", "[chroma]\nport = 70000\n"),
        "prices_other": write("prices-other.toml", "[other]\ninput = 1\noutput = 2\n"),
        "prices_lacking_output": write("prices-lacking.toml", "[m]\ninput = 1\n"),
    }


@pytest.fixture(scope="module")
def defaults(request: pytest.FixtureRequest) -> dict[str, Any]:
    """Every memeval option's default, as this test run (which passes none) parsed it."""
    return option_defaults(request.config)


@pytest.mark.parametrize("args, message", BAD_INPUT, ids=[" ".join(a) for a, _ in BAD_INPUT])
def test_bad_input_is_a_one_line_error_before_anything_runs(
    inputs: dict[str, str],
    defaults: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    args: list[str],
    message: str,
) -> None:
    monkeypatch.setenv("MEMEVAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key-for-bad-input")
    monkeypatch.chdir(tmp_path)
    options = CommandLine(defaults, [arg.format(**inputs) for arg in args])
    raised = bounded(30, lambda: prepare_run(options, bundled_only=True))  # a case that blocks fails, not hangs
    assert isinstance(raised, ConfigError), raised
    error = str(raised)
    assert "\n" not in error and fnmatch.fnmatchcase(error, f"*{message.replace('[', '[[]')}*"), error


#: what a user sees, in a subprocess: an option's value, a file of the wrong content, a gate
SEEN_BY_A_USER: list[tuple[list[str], str]] = [
    (["--memsystem=context", "--memeval-k=ten"], "--memeval-k: 'ten' is not an integer"),
    (["--memsystem=context", "--memeval-baseline={text}"], "--memeval-baseline: * is not JSON"),
    (["--memsystem=context", "--memeval-gate=multisource.acc>=0.5"], "multisource has no metric 'acc'"),
    (
        ["--memsystem=context", "--memeval-report=run.json", "--junitxml=run.journal.jsonl"],
        "--junitxml: run.journal.jsonl is also the journal beside --memeval-report",
    ),
    (
        ["--memsystem=context", "--memeval-suite=locomo", "--memeval-judge=openai:m@strict"],
        "--memeval-judge: openai:m@strict: suite 'locomo' has no judge prompt 'strict'",
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize("args, message", SEEN_BY_A_USER, ids=[" ".join(a) for a, _ in SEEN_BY_A_USER])
def test_a_user_sees_one_error_line_and_exit_status_4(
    pytester: pytest.Pytester, inputs: dict[str, str], monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    monkeypatch.setenv("MEMEVAL_CACHE_DIR", str(pytester.path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key-for-bad-input")
    pytester.makepyfile("def test_nothing(): pass")
    result = pytester.runpytest_subprocess(*(arg.format(**inputs) for arg in args), timeout=120)
    output = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in output
    assert result.ret == pytest.ExitCode.USAGE_ERROR, output
    errors = [line for line in result.errlines if line.strip()]
    assert len(errors) == 1, result.errlines
    assert errors[0].startswith("ERROR: ")
    result.stderr.fnmatch_lines([f"*{message.replace('[', '[[]')}*"])


def test_dotted_metric_names_parse() -> None:
    from pytest_memeval.config.gate_syntax import parse_gate

    gate = parse_gate("multisource.f0.5>=0.7")
    assert (gate.suite, gate.metric, gate.threshold) == ("multisource", "f0.5", 0.7)
    gate = parse_gate("multisource[mem0].f0.5:no-regression=0.02")
    assert (gate.suite, gate.system, gate.metric, gate.margin) == ("multisource", "mem0", "f0.5", 0.02)


@pytest.mark.slow
def test_a_corrupt_embedding_cache_is_rebuilt_once_with_a_warning(pytester: pytest.Pytester, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "embeddings.sqlite").write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    pytester.makepyfile("def test_nothing(): pass")
    result = pytester.runpytest_subprocess(
        "--memsystem=none",
        f"--memeval-cache-dir={cache}",
        "--co",
        "-q",
        "--memeval-suite=multisource",
        timeout=SUBPROCESS_TIMEOUT_S,
    )
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*the embedding cache * was corrupt; moved to embeddings.sqlite.corrupt-*"])
    assert not (cache / "embeddings.sqlite").exists()
    assert list(cache.glob("embeddings.sqlite.corrupt-*"))


@pytest.mark.slow
def test_a_bad_base_url_in_the_environment_is_one_usage_error_line(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMEVAL_CACHE_DIR", str(pytester.path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key-for-bad-input")
    monkeypatch.setenv("OPENAI_BASE_URL", "localhost:8080")  # no scheme: every call would fail
    pytester.makepyfile("def test_nothing(): pass")
    result = pytester.runpytest_subprocess("--memsystem=context", "--memeval-responder=openai:m", timeout=120)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in result.errlines if line.strip()] == [
        "ERROR: $OPENAI_BASE_URL: 'localhost:8080' is not an http:// or https:// URL with a host "
        "(e.g. http://127.0.0.1:8080/v1)"
    ]


#: (adapter in tests/faulty_adapters.py, how many of its 12 toy items end in an error, the
#: text of their reason); 0 errors: the value is converted and every item is scored
BAD_ADAPTER_VALUES: list[tuple[str, int, str]] = [
    ("StatsSet", 12, "returned ingest_stats that are not JSON: ingest_stats['added'] is a set"),
    ("StatsDatetime", 12, "returned ingest_stats that are not JSON: ingest_stats['when'] is a datetime"),
    ("StatsList", 12, "returned ingest_stats of type list, expected a dict"),
    ("StringScore", 12, "returned a Memory whose score is str at position 0"),
    ("DictId", 12, "returned a Memory whose id is dict at position 0"),
    ("MetadataSet", 12, "returned a Memory whose metadata['tags'] is a set at position 0"),
    ("MetadataList", 12, "returned a Memory whose metadata is list at position 0"),
    ("SourcesOfNumbers", 12, "returned a Memory whose sources hold a int at position 0"),
    ("EscapesInErrors", 12, "failed in retrieve: RuntimeError: ============ 216 passed in 1.00s ============"),
    ("NaNScore", 0, ""),
    ("StatsNaN", 0, ""),
    ("IntegerId", 0, ""),
]


def _strict_json(path: Path) -> dict:
    """A report as a strict parser (JSON.parse) reads it: NaN and Infinity are refused."""

    def refuse(constant: str) -> None:
        raise ValueError(f"{path.name} holds {constant}, which is not JSON")

    return json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)


def _run_toy(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict]:
    """The toy suite with `args`, bounded; its JSON report read strictly, no INTERNALERROR."""
    report = pytester.path / "report.json"
    result = pytester.runpytest_subprocess(
        "test_toy.py", f"--memeval-report={report}", *args, timeout=SUBPROCESS_TIMEOUT_S
    )
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    return result, _strict_json(report)


@pytest.mark.slow
@pytest.mark.parametrize("adapter, n_errors, reason", BAD_ADAPTER_VALUES, ids=[a for a, _, _ in BAD_ADAPTER_VALUES])
def test_a_bad_value_from_an_adapter_is_its_items_error_and_loses_nothing_else(
    toy_pytester: pytest.Pytester, adapter: str, n_errors: int, reason: str
) -> None:
    system = f"faulty_adapters:{adapter}"
    page = toy_pytester.path / "report.html"
    result, data = _run_toy(toy_pytester, f"--memsystem={system},context", f"--memeval-html={page}")
    output = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in output, output[-3000:]
    assert "\x1b" not in output and "\r" not in output.replace("\r\n", "\n")
    counts = {run["key"]["memsystem"]: (run["n_items"], run["n_scored"], run["n_errors"]) for run in data["runs"]}
    assert counts == {system: (12, 12 - n_errors, n_errors), "context": (12, 12, 0)}
    errors = [r for r in data["records"] if r["status"] == "error"]
    assert len(errors) == n_errors and all(reason in r["reason"] and "\n" not in r["reason"] for r in errors)
    assert all("\x1b" not in r["reason"] for r in errors)
    if n_errors:
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        result.stdout.fnmatch_lines([f"*memeval: {n_errors} items ended in an error or an invalid answer*"])
    scores = [m["score"] for r in data["records"] for m in r["memories"]]
    assert all(s is None or math.isfinite(s) for s in scores)
    explorer = page.read_text(encoding="utf-8").split('id="memeval-data">')[1].split("</script>")[0]
    json.loads(explorer, parse_constant=lambda constant: pytest.fail(f"the explorer's data hold {constant}"))


def test_converted_adapter_values_keep_what_can_be_kept() -> None:
    from pytest_memeval.running.adapter_values import checked_memories, checked_stats
    from pytest_memeval.types import Memory

    memories = checked_memories(
        "x", [Memory("a", score=float("nan"), id=7, metadata={"t": (1, float("inf"))}, sources=["m1"])], 10
    )
    assert memories == [Memory("a", score=None, id="7", metadata={"t": [1, None]}, sources=("m1",))]
    plain = Memory("b", score=0.5, id="b", metadata={"k": "v"}, sources=("m2",))
    assert checked_memories("x", [plain], 10)[0] is plain  # nothing to convert: no copy
    assert checked_stats("x", {"n": 3, "rate": float("nan"), "per": (1, 2)}) == {"n": 3, "rate": None, "per": [1, 2]}
    assert checked_stats("x", None) == {}


def test_an_adapter_value_nested_without_end_is_refused_not_recursed() -> None:
    from pytest_memeval.errors import AdapterError
    from pytest_memeval.running.adapter_values import checked_stats

    deep: dict = {}
    for _ in range(100_000):
        deep = {"d": deep}
    with pytest.raises(AdapterError, match="nested more than 32 levels deep"):
        checked_stats("x", deep)


@pytest.mark.slow
def test_a_bad_value_under_xdist_keeps_the_other_systems_records(toy_pytester: pytest.Pytester) -> None:
    """The audit's case: a set among one system's statistics lost 428 of 432 records at -n 2."""
    result, data = _run_toy(toy_pytester, "--memsystem=faulty_adapters:StatsSet,context", "-n", "2")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    counts = {run["key"]["memsystem"]: (run["n_scored"], run["n_errors"]) for run in data["runs"]}
    assert counts == {"faulty_adapters:StatsSet": (0, 12), "context": (12, 0)}
