"""The options of the memory-system adapters, the embedder and the caches, in their
`pytest --help` group; config/options.py reads them into `Settings`."""

from __future__ import annotations

import pytest

from ..config.settings import DEFAULT_ADAPTER_TIMEOUT, DEFAULT_EMBEDDING_BATCH

GROUP, TITLE = "memeval-memsystems", "memeval: memory-system adapters, embeddings and caches"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup(GROUP, TITLE)
    group.addoption(
        "--memeval-adapter-config",
        metavar="PATH",
        help="TOML file with one table of adapter settings per memory system, named by its --memsystem entry: "
        '[chroma], ["mymem:MyMemory"] (quoted: an import path)',
    )
    group.addoption(
        "--memeval-adapter-timeout",
        default=f"{DEFAULT_ADAPTER_TIMEOUT:g}",
        metavar="SECONDS",
        help="seconds one memory-system call (ingest, retrieve, ...) may take; a call that takes longer "
        f"ends its item as an error and retires the system for this worker (default: {DEFAULT_ADAPTER_TIMEOUT:g})",
    )
    group.addoption(
        "--memeval-embedder",
        default="minilm",
        metavar="NAME",
        help="embedder for built-in vector stores: minilm (all-MiniLM-L6-v2, offline) or "
        "hashing (fast, dependency-free) (default: minilm)",
    )
    group.addoption(
        "--memeval-embedding-batch",
        default=str(DEFAULT_EMBEDDING_BATCH),
        metavar="N",
        help=f"texts per forward pass of the minilm embedder (default: {DEFAULT_EMBEDDING_BATCH})",
    )
    group.addoption(
        "--memeval-cache-dir",
        metavar="DIR",
        help="cache for embeddings, item indexes and fitted readers "
        "(default: $MEMEVAL_CACHE_DIR or ~/.cache/pytest-memeval)",
    )
