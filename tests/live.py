"""Helpers of the live tests: real small models behind llama.cpp's server (conftest's
`local_models` fixture), a handful of items each, bounded times."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.memory.resources import LazyEmbedder, Resources
from pytest_memeval.running.registry import build_memsystem, load_suite, resolve_memsystem
from pytest_memeval.running.state import suite_target
from pytest_memeval.types import Item, Memory

#: every live test: real models, one shared server (one xdist worker), skippable with -m
LIVE = [pytest.mark.live_model, pytest.mark.slow, pytest.mark.xdist_group("live_model")]
SMOLLM, GEMMA = "smollm2-135m", "gemma3-270m"


def plugin_args(server: Any, *args: str) -> list[str]:
    """Options of a pytest run against the shared server: its window, timeouts sized to a
    small model on a loaded machine, one call in flight (the server answers one at a time)."""
    return [
        f"--memeval-base-url={server.base_url}",
        f"--memeval-context-window={server.n_ctx}",
        "--memeval-timeout=120",
        "--memeval-timeout-per-1k-tokens=60",
        "--memeval-concurrency=1",
        "--memeval-embedder=hashing",
        "-p",
        "no:cacheprovider",
        *args,
    ]


def run_suite(pytester: pytest.Pytester, server: Any, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    report = pytester.path / "report.json"
    report.unlink(missing_ok=True)
    result = pytester.runpytest_subprocess(
        *plugin_args(
            server, f"--memeval-report={report}", f"--memeval-llm-cache-file={pytester.path / 'llm.sqlite'}", *args
        ),
        timeout=900,
    )
    return result, json.loads(report.read_text()) if report.exists() else {}


def suite_items(name: str, cache: Path, context: int = 0, size: str = "smoke") -> tuple[Any, list[Item]]:
    """A suite and the items of its `context`-th context."""
    options = SuiteOptions(
        size=size, split=None, seeds=None, k=3, data_dir=None, cache_dir=cache, bootstrap=200, params={}
    )
    suite = load_suite(suite_target(name))(options)
    entries = suite.index()
    contexts = list(dict.fromkeys(entry.context_id for entry in entries))
    return suite, [suite.item(entry.id) for entry in entries if entry.context_id == contexts[context]]


def retrieved(suite: Any, items: Sequence[Item], workdir: Path, k: int = 3) -> list[list[Memory]]:
    """What chroma (hashing embedder) returns for each item after storing its context."""
    (workdir / "cache").mkdir(parents=True, exist_ok=True)
    embedder = LazyEmbedder("hashing", workdir / "cache")
    system = build_memsystem(resolve_memsystem("chroma"), {}, Resources(workdir, embedder.get, embedder.name))
    try:
        out = []
        for namespace in dict.fromkeys(item.context_id for item in items):
            system.reset(namespace)
            for session in suite.context(namespace).sessions:
                system.ingest(namespace, session)
        for item in items:
            query = str(item.view.extra.get("query", item.view.question))
            out.append(system.retrieve(item.context_id, query, k))
        return out
    finally:
        system.close()
