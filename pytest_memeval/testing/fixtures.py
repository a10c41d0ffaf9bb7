"""Fixtures of the conformance kit: fresh adapters of the --memsystem under test.

Test modules of the kit import these names explicitly (rather than relying on a
conftest.py) so that the kit works wherever pytest finds it, from a checkout or from
site-packages through `--pyargs pytest_memeval.testing`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest

from ..errors import ConfigError
from ..memory.resources import LazyEmbedder, Resources
from ..protocols import MemorySystem
from ..running.fixtures import STATE_KEY, run_state
from ..running.registry import build_memsystem
from ..running.state import RunState

#: build() shares the kit's embedder; build(own_embedder=True) gives the adapter one of its own
MemsystemFactory = Callable[..., MemorySystem]
NamespaceFactory = Callable[[str], str]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """One run of every check per memory system named by --memsystem."""
    if "memsystem_name" not in metafunc.fixturenames:
        return
    names = list(_state(metafunc.config).settings.memsystems)
    if not names:
        skip = pytest.mark.skip(reason="pass --memsystem=NAME (or pkg.mod:Class) to check an adapter")
        metafunc.parametrize("memsystem_name", [pytest.param("", marks=skip, id="no-memsystem")])
        return
    metafunc.parametrize("memsystem_name", names, ids=names)


@pytest.fixture(scope="session")
def conformance_embedder(request: pytest.FixtureRequest) -> Iterator[LazyEmbedder]:
    """One embedder for the whole kit run (adapters built with own_embedder=True get theirs)."""
    settings = _state(request.config).settings
    shared = LazyEmbedder(settings.embedder, settings.cache_dir)
    yield shared
    shared.close()


@pytest.fixture
def memsystem_factory(
    request: pytest.FixtureRequest,
    memsystem_name: str,
    conformance_embedder: LazyEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[MemsystemFactory]:
    """Builds fresh adapters, each with its own work directory, as xdist workers would.

    Adapters share the kit's embedder unless built with `own_embedder=True`, as the
    concurrency check does: an xdist worker has an embedder (and cache connection) of its own.
    """
    state = _state(request.config)
    settings = state.settings.memsystem_config.get(memsystem_name, {})
    built: list[tuple[MemorySystem, LazyEmbedder | None]] = []

    def build(own_embedder: bool = False) -> MemorySystem:
        own = LazyEmbedder(conformance_embedder.name, state.settings.cache_dir) if own_embedder else None
        embedder = own if own is not None else conformance_embedder
        resources = Resources(tmp_path_factory.mktemp("adapter"), embedder.get, embedder.name)
        system = build_memsystem(state.memsystems[memsystem_name], settings, resources)
        built.append((system, own))
        return system

    yield build
    for system, own in built:
        system.close()
        if own is not None:
            own.close()


@pytest.fixture
def memsystem(memsystem_factory: MemsystemFactory) -> MemorySystem:
    """A fresh adapter for this test."""
    return memsystem_factory()


@pytest.fixture
def namespace(memsystem: MemorySystem) -> Iterator[NamespaceFactory]:
    """Makes namespace names unique to this test, and resets them afterwards.

    Unique names keep runs apart on a shared server (several xdist workers, or the
    leftovers of an earlier run); resetting leaves a shared store as it was found.
    """
    used: list[str] = []

    def make(label: str) -> str:
        name = f"kit-{label}-{uuid.uuid4().hex[:12]}"
        used.append(name)
        return name

    yield make
    for name in used:
        memsystem.reset(name)


def _state(config: pytest.Config) -> RunState:
    if STATE_KEY not in config.stash:
        raise ConfigError("the conformance kit needs the pytest-memeval plugin (is it disabled with -p no:memeval?)")
    return run_state(config)
