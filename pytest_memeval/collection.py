"""Turning a suite's index into parametrized pytest items, cheaply.

34,560 items must collect about as fast as 34,560 trivial parameters, so this module
builds each marker object once and hands pytest plain ids and values.
"""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import pytest

from .benchmarks.base import IndexEntry

ITEM_ARG = "memeval_item_id"
SYSTEM_ARG = "memeval_memsystem"
K_ARG = "memeval_k"


def bundled_suites_dir() -> Path:
    """The directory of the bundled test modules (suites/ in a checkout, pytest_memeval/suites when installed)."""
    spec = importlib.util.find_spec("pytest_memeval.suites")
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations))).resolve()
    return Path(__file__).resolve().parent.parent / "suites"


def suite_of_module(path: Path) -> str | None:
    """'multisource' for .../suites/test_multisource.py, None for anything else."""
    if path.parent.resolve() != bundled_suites_dir() or not path.name.startswith("test_"):
        return None
    return path.stem.removeprefix("test_")


@lru_cache(maxsize=None)
def _mark(name: str, *args: str) -> pytest.MarkDecorator:
    return getattr(pytest.mark, name)(*args) if args else getattr(pytest.mark, name)


def parametrize(
    metafunc: pytest.Metafunc, suite: str, entries: Sequence[IndexEntry], memsystems: Sequence[str], ks: Sequence[int]
) -> None:
    """One test per item (and per system and depth when several are given), grouped by context."""
    suite_mark = _mark(suite)
    params = [
        pytest.param(
            entry.id,
            marks=[suite_mark, _mark("xdist_group", entry.context_id), *map(_mark, entry.marks)],
            id=entry.id,
        )
        for entry in entries
    ]
    metafunc.parametrize(ITEM_ARG, params)
    if len(memsystems) > 1:
        metafunc.parametrize(SYSTEM_ARG, list(memsystems), ids=list(memsystems))
    if len(ks) > 1:
        metafunc.parametrize(K_ARG, list(ks), ids=[f"k{k}" for k in ks])


def add_missing_group_suffixes(items: Sequence[pytest.Item]) -> None:
    """Give each memeval item the '@<group>' nodeid suffix that xdist's loadgroup schedules by.

    pytest-xdist <= 3.8 appends it by assigning `item._nodeid`, which pytest 9 no longer
    reads (node ids became `NodeId` objects in `item._id`), so every item would be its own
    group and each context would be filled on every worker. A `NodeId` renders its params
    in trailing brackets, while xdist wants the '@' after the last ']', so the suffixed
    last segment is stored as a name. Items that already carry a suffix are left alone,
    so this is a no-op once xdist handles pytest 9.
    """
    for item in items:
        mark = item.get_closest_marker("xdist_group")
        if mark is None or item.get_closest_marker("memeval") is None or "@" in item.nodeid:
            continue
        if hasattr(item, "_id"):
            import dataclasses

            node_id = item._id
            last = node_id.names[-1] + (f"[{node_id.params}]" if node_id.params is not None else "")
            names = (*node_id.names[:-1], f"{last}@{mark.args[0]}")
            item._id = dataclasses.replace(node_id, names=names, params=None)
        else:
            item._nodeid = f"{item.nodeid}@{mark.args[0]}"
