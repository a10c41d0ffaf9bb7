"""pytest hooks of pytest-memeval (loaded through the `pytest11` entry point).

Hooks only: options, collection of the bundled suites, parametrization, xdist grouping,
and on the controller the aggregation of records into the reports and the exit status.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from . import collection
from .errors import ConfigError, MemevalError
from .fixtures import (  # noqa: F401  (fixtures are found by pytest through this module)
    STATE_KEY,
    memeval_item_id,
    memeval_k,
    memeval_memsystem,
    memeval_prefetcher,
    memeval_result,
    memeval_state,
)
from .local_session import attach_local_model
from .options import add_options, read_settings
from .registry import available_suites, load_object
from .report.baseline import load_baseline
from .report.collector import RecordCollector
from .report.session_report import SessionReport
from .settings_checks import check_against_suites
from .state import RunState

COLLECTOR_NAME = "memeval-collector"
REPORT_KEY = pytest.StashKey[SessionReport]()
REPORT_ERROR_KEY = pytest.StashKey[str]()
GROUPED_BY_CONTEXT = "memeval_grouped_by_context"


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "memeval(suite): run this test once per item of the named memeval suite"
    )
    try:
        suites = available_suites()
        settings = read_settings(config, tuple(suites))
        state = RunState.from_settings(settings)
        for name in suites:
            _register_suite_markers(config, name, suites[name])
        check_against_suites(settings, suites)
        if settings.baseline is not None and not hasattr(config, "workerinput"):
            state.baseline = load_baseline(settings.baseline)
        if settings.active:
            # Index the selected suites now: a broken data file is a usage error rather
            # than a collection error, and under xdist the controller warms the on-disk
            # caches before the workers start.
            for name in settings.suites:
                state.index(name)
        state.settings = attach_local_model(config, settings)  # last: nothing after it can fail
    except MemevalError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.stash[STATE_KEY] = state
    _group_contexts_on_one_worker(config)
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(RecordCollector(), COLLECTOR_NAME)
    if settings.active and config.args_source != pytest.Config.ArgsSource.ARGS:
        config.args = [str(collection.bundled_suites_dir())]


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Skip bundled suite modules that --memeval-suite did not select."""
    suite = collection.suite_of_module(collection_path)
    if suite is None or STATE_KEY not in config.stash:
        return None
    settings = config.stash[STATE_KEY].settings
    return True if settings.active and suite not in settings.suites else None


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marker = metafunc.definition.get_closest_marker("memeval")
    if marker is None:
        return
    if not marker.args:
        raise pytest.UsageError(f"{metafunc.definition.nodeid}: @pytest.mark.memeval needs a suite name")
    state = metafunc.config.stash[STATE_KEY]
    if not state.settings.active:
        skip = pytest.mark.skip(reason="no memory system: pass --memsystem=NAME to evaluate one")
        metafunc.parametrize(collection.ITEM_ARG, [pytest.param("", marks=skip, id="no-memsystem")])
        return
    try:
        suite = state.suite(marker.args[0])
        if ":" in marker.args[0]:  # a suite named by import path registers its markers now
            _register_suite_markers(metafunc.config, suite.name, marker.args[0])
        entries = state.index(marker.args[0])
    except MemevalError as exc:
        raise pytest.UsageError(str(exc)) from None
    collection.parametrize(metafunc, suite.name, entries, state.settings.memsystems, state.settings.ks)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """On the controller: aggregate once, write the files, and let gates set the exit status."""
    config = session.config
    collector = config.pluginmanager.get_plugin(COLLECTOR_NAME)
    if collector is None or STATE_KEY not in config.stash or not config.stash[STATE_KEY].settings.active:
        return
    try:
        report = SessionReport.build(config.stash[STATE_KEY], collector)
    except ConfigError as exc:  # e.g. an unreadable baseline: one line, and the run fails
        config.stash[REPORT_ERROR_KEY] = str(exc)
        session.exitstatus = pytest.ExitCode.USAGE_ERROR
        return
    config.stash[REPORT_KEY] = report
    report.write_files(config.stash[STATE_KEY])
    session.exitstatus = report.exit_status(session.exitstatus)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    if REPORT_ERROR_KEY in config.stash:
        terminalreporter.write_line(f"ERROR: {config.stash[REPORT_ERROR_KEY]}", red=True)
    if REPORT_KEY in config.stash:
        config.stash[REPORT_KEY].write_terminal(terminalreporter)






def _register_suite_markers(config: pytest.Config, name: str, target: str) -> None:
    suite_class = load_object(target)
    config.addinivalue_line("markers", f"{name}: an item of the memeval suite '{name}'")
    for marker, description in suite_class.markers.items():
        config.addinivalue_line("markers", f"{marker}: {description}")


def _group_contexts_on_one_worker(config: pytest.Config) -> None:
    """Make `-n N` send each context to one worker (xdist's loadgroup) unless --dist was chosen.

    xdist turns `-n N` into `--dist load` in pytest_cmdline_main, before any
    pytest_configure, so this is the first point where the choice can be refined. Workers
    parse the command line again and would not know; `pytest_configure_node` tells them.
    """
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        if workerinput.get(GROUPED_BY_CONTEXT):
            config.option.loadgroup = True
        return
    if getattr(config.option, "dist", "no") != "load":
        return
    args = config.invocation_params.args
    if not any(a in ("--dist", "-d", "--distload") or a.startswith("--dist=") for a in args):
        config.option.dist = "loadgroup"


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller hook: tell each worker that items are grouped by context."""
    node.workerinput[GROUPED_BY_CONTEXT] = node.config.getvalue("dist") == "loadgroup"


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if getattr(config.option, "loadgroup", False):  # set on xdist workers only
        collection.add_missing_group_suffixes(items)
