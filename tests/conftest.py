"""Helpers shared by the plugin's own tests."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness import TEST_API_KEY
from local_model import LocalModel


def pytest_configure(config: pytest.Config) -> None:
    # Timing deadlines measure the machine, not the code: a CI runner shared with other jobs
    # (or xdist's other worker) makes a fast example slow now and then. hypothesis is a test
    # dependency (the [dev] extra); a checkout installed for the main job alone has none.
    if importlib.util.find_spec("hypothesis") is not None:
        from hypothesis import settings

        settings.register_profile("memeval", deadline=None)
        settings.load_profile("memeval")


#: what every pytest run these tests start adds to its options: it loads none of the plugins
#: installed beside this one that no such run uses (hypothesis's; langsmith's, which langmem
#: brings). Loading those two was two thirds of the start-up of such a run: 8.5 s of CPU on
#: this project's loaded 2-core machine for a one-test run, 2.9 s without them.
CHILD_RUN_OPTIONS = "-p no:hypothesispytest -p no:langsmith_plugin"


@pytest.fixture(scope="session", autouse=True)
def child_runs_without_unused_plugins() -> Iterator[None]:
    """A pytest run a test starts (`python -m pytest`, `pytest.main`) reads PYTEST_ADDOPTS
    from this process's environment; pytester's runs get them from the `pytester` fixture."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTEST_ADDOPTS", f"{os.environ.get('PYTEST_ADDOPTS', '')} {CHILD_RUN_OPTIONS}".strip())
        yield


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """On an xdist worker, the slow tests (pytest runs, servers, real models: seconds to
    minutes each) first, then the millisecond ones, each tier in collection order: `make
    test`'s `--dist loadgroup` hands tests out one at a time in this order, so that the two
    workers end together on fast tests instead of one running a long test alone at the end.
    Both workers sort alike, as xdist requires."""
    if os.environ.get("PYTEST_XDIST_WORKER") is not None:
        items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(scope="session")
def numpy_loaded_once() -> None:
    """pytester's in-process runs restore sys.modules afterwards, and numpy's C extensions
    cannot be imported twice in one process: what the plugin imports lazily (scipy pulls in
    numpy.fft) is loaded once, outside every in-process run, by the tests that make one."""
    import scipy.stats  # noqa: F401


@pytest.fixture
def pytester(numpy_loaded_once: None, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """pytester, whose runs write no report (nor journal) unless the test names one: a run
    writes both by default (config/report_files.py), which only the tests of that default
    want (they call `default_reports`); the others stay as fast, and independent of each
    other's journals, as before. (pytester empties PYTEST_ADDOPTS: CHILD_RUN_OPTIONS again.)"""
    addopts = os.environ.get("PYTEST_ADDOPTS", "")
    monkeypatch.setenv("PYTEST_ADDOPTS", f"{addopts} {CHILD_RUN_OPTIONS} --memeval-report=none".strip())
    return pytester


@pytest.fixture
def default_reports(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """pytester's runs write their reports by default, as a user's run does."""
    addopts = os.environ.get("PYTEST_ADDOPTS", "").replace("--memeval-report=none", "").strip()
    monkeypatch.setenv("PYTEST_ADDOPTS", addopts)


TESTS_DIR = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def smollm2(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalModel]:
    """SmolLM2-135M on llama.cpp's server, one per test module (skips when it cannot be had)."""
    with LocalModel.smollm2(log=tmp_path_factory.mktemp("llama") / "server.log") as model:
        yield model


@pytest.fixture
def suite_pytester(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> pytest.Pytester:
    """A pytester project for pytest runs of the plugin: the tests' helper modules importable
    (also by xdist workers), one memeval cache per test session (item indexes and readers are
    built once) but an LLM call cache per test (a scripted server's answers must not be
    replayed to another test's), a test API key and no endpoint from the environment."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(TESTS_DIR), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("MEMEVAL_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "memeval-cache"))
    monkeypatch.setenv("MEMEVAL_LLM_CACHE_FILE", str(pytester.path / "llm-calls.sqlite"))
    monkeypatch.setenv("OPENAI_API_KEY", TEST_API_KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    pytester.syspathinsert(TESTS_DIR)
    return pytester


@pytest.fixture
def toy_pytester(suite_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.Pytester:
    """A pytester project with a test module of the toy suite and a cache of its own."""
    pytester = suite_pytester
    monkeypatch.setenv("MEMEVAL_CACHE_DIR", str(tmp_path / "memeval-cache"))
    pytester.makepyfile(
        test_toy="""
        import pytest
        from pytest_memeval import check

        @pytest.mark.memeval("toysuite:ToySuite")
        def test_toy(memeval_result):
            check(memeval_result)
        """
    )
    return pytester


@pytest.fixture(scope="session")
def local_models():
    """One real llama.cpp server for the session's live tests, serving smollm2-135m (chat) and
    gemma3-270m (base); skipped with the reason when the [llm-local] extra is not installed.
    Live tests carry `@pytest.mark.live_model` and `xdist_group("live_model")`, meant to keep
    them on one worker; with the locked pytest (9.2) and xdist (3.8) the mark reaches no node id
    (a group's tests ran on both workers), so each worker that runs one starts its own server."""
    import importlib.util

    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip('the [llm-local] extra is not installed (pip install "pytest-memeval[llm-local]")')
    from pytest_memeval.config.model_specs import parse_specs
    from pytest_memeval.config.option_values import cache_dir
    from pytest_memeval.llm.local_model import LocalServer

    server = LocalServer(parse_specs("local_models", "smollm2-135m,gemma3-270m"), cache_dir=cache_dir(None), n_ctx=8192)
    server.start()
    try:
        yield server
    finally:
        server.stop()
