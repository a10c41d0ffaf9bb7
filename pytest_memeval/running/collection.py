"""Turning a suite's index into parametrized pytest items, cheaply.

34,560 items must collect about as fast as 34,560 trivial parameters, so this module
builds each marker object once and hands pytest plain ids and values.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import pytest

from ..framework.suite import IndexEntry
from ..results.records import ItemKey

ITEM_ARG = "memeval_item_id"
SYSTEM_ARG = "memeval_memsystem"
K_ARG = "memeval_k"
REPEAT_ARG = "memeval_repeat"
#: the mark carrying an item's context id (scheduling and prefetching group by it)
CONTEXT_MARK = "memeval_context"


def bundled_suites_dir() -> Path:
    """The directory of the bundled test modules (suites/ in a checkout, pytest_memeval/suites when installed)."""
    spec = importlib.util.find_spec("pytest_memeval.suites")
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations))).resolve()
    return Path(__file__).resolve().parents[2] / "suites"  # a checkout's, where the package is not installed


def suite_of_module(path: Path) -> str | None:
    """'multisource' for .../suites/test_multisource.py, None for anything else."""
    if path.parent.resolve() != bundled_suites_dir() or not path.name.startswith("test_"):
        return None
    return path.stem.removeprefix("test_")


@cache
def _mark(name: str, *args: str) -> pytest.MarkDecorator:
    return getattr(pytest.mark, name)(*args) if args else getattr(pytest.mark, name)


def parametrize(
    metafunc: pytest.Metafunc,
    suite: str,
    entries: Sequence[IndexEntry],
    memsystems: Sequence[str],
    ks: Sequence[int],
    repeats: int = 1,
) -> None:
    """One test per item (and per system, depth and repeat when there are several), grouped
    by context; repeats are the innermost axis (ids end in -r0, -r1, ...), so an item's
    repeats run one after another."""
    suite_mark = _mark(suite)
    params = [
        pytest.param(
            entry.id,
            marks=[suite_mark, _mark(CONTEXT_MARK, entry.context_id), *map(_mark, entry.marks)],
            id=entry.id,
        )
        for entry in entries
    ]
    metafunc.parametrize(ITEM_ARG, params)
    if len(memsystems) > 1:
        metafunc.parametrize(SYSTEM_ARG, list(memsystems), ids=list(memsystems))
    if len(ks) > 1:
        metafunc.parametrize(K_ARG, list(ks), ids=[f"k{k}" for k in ks])
    if repeats > 1:
        metafunc.parametrize(REPEAT_ARG, list(range(repeats)), ids=[f"r{r}" for r in range(repeats)])


def context_of(item: pytest.Item) -> tuple[str, str] | None:
    """(suite as the test names it, context id) of a memeval item; None for any other test."""
    suite = item.get_closest_marker("memeval")
    context = item.get_closest_marker(CONTEXT_MARK)
    if suite is None or context is None or not suite.args or not context.args:
        return None
    return suite.args[0], context.args[0]


def item_key(item: pytest.Item, default_system: str, default_k: int) -> ItemKey | None:
    """(suite as the test names it, memory system, k, item id, repeat) of a memeval item, as
    its record will carry them; None for any other test."""
    suite = item.get_closest_marker("memeval")
    callspec = getattr(item, "callspec", None)
    if suite is None or not suite.args or callspec is None or ITEM_ARG not in callspec.params:
        return None
    params = callspec.params
    return (
        suite.args[0],
        params.get(SYSTEM_ARG, default_system),
        params.get(K_ARG, default_k),
        params[ITEM_ARG],
        params.get(REPEAT_ARG, 0),
    )
