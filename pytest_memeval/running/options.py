"""The options that say what to run (memory systems, suites, sizes, seeds, depths, data,
repeats), in their `pytest --help` group; config/options.py reads them into `Settings`."""

from __future__ import annotations

import pytest

GROUP, TITLE = "memeval-run", "memeval: what to run"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup(GROUP, TITLE)
    group.addoption(
        "--memsystem",
        metavar="NAME[,NAME...]",
        help="memory systems to evaluate: none, context, chroma, pkg.mod:Class, or a name from "
        "the 'pytest_memeval.memsystems' entry points; several are compared item by item",
    )
    group.addoption(
        "--memeval-suite",
        metavar="NAME[,NAME...]",
        help="benchmark suites to run (default: all available): a bundled suite, a name from the "
        "'pytest_memeval.suites' entry points, or pkg.mod:Class (run by a test module that names it)",
    )
    group.addoption(
        "--memeval-size",
        default="smoke",
        metavar="SIZE",
        help="smoke (a few hundred items, for CI), small or full (default: smoke)",
    )
    group.addoption(
        "--memeval-suite-option",
        action="append",
        default=[],
        metavar="SUITE.KEY=VALUE",
        help="a setting of one suite, repeatable (e.g. bayes.probe_every=5); `pytest --markers` "
        "lists the suites; each suite's settings are on its page of the docs (docs/suites/)",
    )
    group.addoption(
        "--memeval-split",
        metavar="SPLIT",
        help="train, dev, calibration, test or all (default: test; all for --memeval-size=full)",
    )
    group.addoption(
        "--memeval-seed",
        metavar="N[,N...]",
        help="generator seeds (default: each suite's published seeds)",
    )
    group.addoption(
        "--memeval-k",
        default="10",
        metavar="K[,K...]",
        help="retrieval depth; several (e.g. 5,10,15) sweep every item over them (default: 10)",
    )
    group.addoption(
        "--memeval-data",
        metavar="DIR",
        help="load a released benchmark layout from DIR instead of generating items",
    )
    group.addoption(
        "--memeval-oracle",
        action="store_true",
        help="also run every item of a suite that declares gold evidence on a store of only the sessions "
        "holding that evidence (the run SYSTEM+oracle, paired with SYSTEM's): the ceiling that separates "
        "retrieval from reading",
    )
    group.addoption(
        "--memeval-token-budget",
        metavar="N",
        help="hand the responder the retrieved memories cut to N tokens (the plugin's word-and-punctuation "
        "tokenizer, memeval-words/1), best first, the last one that fits cut at a token boundary: systems "
        "compared at equal context (default: no budget)",
    )
    group.addoption(
        "--memeval-searchable",
        action="store_true",
        help="after each session is stored, time until its last message is retrievable (the adapter's "
        "retrieve polled with the message as the query): time to searchable p50/p95 per system in the "
        "reports; a message not found by the deadline is an error",
    )
    group.addoption(
        "--memeval-searchable-deadline",
        metavar="SECONDS",
        help="how long --memeval-searchable waits for each session's message (default: 60)",
    )
    group.addoption(
        "--memeval-repeat",
        default="1",
        metavar="N",
        help="run each item N times (ids end in -r0 .. -rN-1) to measure how often verdicts change between "
        "repeats (sampling responders and judges, nondeterministic systems); LLM calls are cached per "
        "repeat (default: 1)",
    )
