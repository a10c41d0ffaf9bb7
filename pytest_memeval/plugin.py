"""pytest hooks of pytest-memeval (loaded through the `pytest11` entry point).

Hooks only: options, collection of the bundled suites, parametrization, xdist scheduling,
the catch-all that gives every memeval item a record, and on the controller the
aggregation of records into the reports and the exit status.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Generator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from . import collection, scheduling
from .adapter_guard import describe
from .errors import ConfigError, DataError, MemevalError
from .extras import check_extras
from .fixtures import (  # noqa: F401  (fixtures are found by pytest through this module)
    RECORDED_KEY,
    STATE_KEY,
    attach,
    memeval_item_id,
    memeval_k,
    memeval_memsystem,
    memeval_prefetcher,
    memeval_repeat,
    memeval_result,
    memeval_state,
    teardown_properties,
)
from .local_session import attach_local_model
from .options import add_options, read_settings
from .progress import PROGRESS_DIR, ProgressTracker
from .registry import available_suites, load_object
from .report.collector import SESSION_ERRORS, RecordCollector
from .report.failures import WrongAnswerSummary, mark_wrong_answer
from .report.progress_display import ProgressDisplay
from .report.session_report import SessionReport
from .runner import error_record
from .settings_checks import check_against_suites, check_before_run
from .state import RunState

COLLECTOR_NAME = "memeval-collector"
WRONG_ANSWERS_NAME = "memeval-wrong-answers"
REPORT_KEY = pytest.StashKey[SessionReport]()
REPORT_ERROR_KEY = pytest.StashKey[str]()
GROUPS_DIR_KEY = pytest.StashKey[str]()
PROGRESS_DIR_KEY = pytest.StashKey[str]()


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "memeval(suite): run this test once per item of the named memeval suite")
    config.addinivalue_line("markers", f"{collection.CONTEXT_MARK}(context): the memeval context of an item")
    controller = not hasattr(config, "workerinput")
    try:
        suites = available_suites()
        settings = read_settings(config, tuple(suites))
        check_extras(settings)
        state = RunState.from_settings(settings)
        for name in suites:
            _register_suite_markers(config, name, suites[name])
        check_against_suites(settings, suites, bundled_only=config.args_source != pytest.Config.ArgsSource.ARGS)
        if settings.active and controller:
            for warning in check_before_run(settings):
                config.issue_config_time_warning(pytest.PytestConfigWarning(warning), stacklevel=2)
        if settings.baseline is not None and controller:
            from .report.baseline import load_baseline

            state.baseline = load_baseline(settings.baseline)
        if settings.active:
            # Index the selected suites now: a broken data file is a usage error rather
            # than a collection error, and under xdist the controller warms the on-disk
            # caches before the workers start.
            for name in settings.suites:
                if not _index(state, name):
                    raise ConfigError(
                        f"suite {name} has no items in this selection (size {settings.size}, split "
                        f"{settings.split or 'default'}{', data ' + str(settings.data_dir) if settings.data_dir else ''})"
                    )
        state.rebind(attach_local_model(config, settings))
        if settings.active and not config.option.collectonly and not (controller and scheduling.is_distributed(config)):
            config.add_cleanup(state.stop_gateway)
            state.start_gateway()  # one per process that runs items (each xdist worker has its own)
    except MemevalError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.stash[STATE_KEY] = state
    if settings.active and controller and scheduling.is_distributed(config) and not config.option.collectonly:
        warm_shared_caches(state)
    if controller:
        config.pluginmanager.register(RecordCollector(), COLLECTOR_NAME)
        config.pluginmanager.register(WrongAnswerSummary(), WRONG_ANSWERS_NAME)
        if settings.active and scheduling.uses_context_scheduler(config):
            config.stash[GROUPS_DIR_KEY] = scheduling.make_groups_dir()
        if settings.active and settings.progress_s > 0:
            _register_progress(config, state)
    elif PROGRESS_DIR in config.workerinput:  # type: ignore[attr-defined]
        worker = config.workerinput["workerid"]  # type: ignore[attr-defined]
        state.progress = ProgressTracker(worker, Path(config.workerinput[PROGRESS_DIR]) / f"{worker}.json")  # type: ignore[attr-defined]
    if settings.active and config.args_source != pytest.Config.ArgsSource.ARGS:
        config.args = [str(collection.bundled_suites_dir())]


def _register_progress(config: pytest.Config, state: RunState) -> None:
    """Progress lines: from the workers' files under xdist, from this process otherwise."""
    interval = state.settings.progress_s
    if getattr(config.option, "numprocesses", None) or getattr(config.option, "tx", None):
        directory = config.stash[PROGRESS_DIR_KEY] = tempfile.mkdtemp(prefix="memeval-progress-")
        display = ProgressDisplay.from_directory(config, interval, directory)
    else:
        display = ProgressDisplay(config, interval, lambda: [state.progress.snapshot()], threaded=False)
        state.progress.listener = display.maybe_print
    config.pluginmanager.register(display, "memeval-progress")


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Where the run's LLM calls go: the gateway, and each memory system whose own LLM it
    cannot reach (one line each)."""
    state = config.stash.get(STATE_KEY, None)
    if state is None or not state.settings.active:
        return []
    lines = [f"memeval: {line}" for line in state.outside_gateway()]
    gateway = state.settings.gateway
    if gateway is not None:
        where = f", {gateway.cache_path}" if gateway.cache_path is not None else ""
        lines.insert(
            0,
            "memeval: every LLM call goes through a loopback gateway in each process that runs items "
            f"(cache {gateway.cache_mode}{where})",
        )
    return lines


def pytest_unconfigure(config: pytest.Config) -> None:
    if GROUPS_DIR_KEY in config.stash:
        scheduling.remove_groups_dir(config.stash[GROUPS_DIR_KEY])
    if PROGRESS_DIR_KEY in config.stash:
        shutil.rmtree(config.stash[PROGRESS_DIR_KEY], ignore_errors=True)


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
    collection.parametrize(
        metafunc, suite.name, entries, state.settings.memsystems, state.settings.ks, state.settings.repeats
    )


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Schedule by (suite, context, memory system) instead of rewriting node ids."""
    if GROUPS_DIR_KEY not in config.stash:
        return None
    state: RunState = config.stash[STATE_KEY]
    settings = state.settings

    def by_params() -> dict[str, str]:
        indexes = {name: state.index(name) for name in settings.suites}
        return scheduling.groups_by_params(indexes, settings.memsystems, settings.ks, _splits_by_k(state))

    return scheduling.make_scheduler(config, log, config.stash[GROUPS_DIR_KEY], by_params)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller hook: tell each worker where its group table and progress file go."""
    config = node.config
    if GROUPS_DIR_KEY in config.stash:
        node.workerinput[scheduling.GROUPS_DIR] = config.stash[GROUPS_DIR_KEY]
    if PROGRESS_DIR_KEY in config.stash:
        node.workerinput[PROGRESS_DIR] = config.stash[PROGRESS_DIR_KEY]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """On an xdist worker, before it reports its collection: the node id -> group table."""
    config = session.config
    if hasattr(config, "workerinput") and STATE_KEY in config.stash and config.stash[STATE_KEY].settings.active:
        state = config.stash[STATE_KEY]
        scheduling.write_groups(config, session.items, state.settings.memsystems[0], _splits_by_k(state))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    """A memeval item that fails before its record exists (a fixture, a plugin) still ends
    as an error record: no item leaves the denominator. The record travels once, on the
    teardown report; a wrong answer's report is made cheap to ship and to summarise."""
    report = yield
    if report.failed and not item.stash.get(RECORDED_KEY, False) and item.get_closest_marker("memeval"):
        record = _fallback_record(item, call)
        if record is not None:
            attach(item, record)
    if report.when == "teardown":
        properties = teardown_properties(item)
        if properties is not None:
            report.user_properties = properties
    mark_wrong_answer(report, call)
    return report


def _fallback_record(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    callspec = getattr(item, "callspec", None)
    marker = item.get_closest_marker("memeval")
    if (
        callspec is None
        or marker is None
        or collection.ITEM_ARG not in callspec.params
        or STATE_KEY not in item.config.stash
    ):
        return None
    state: RunState = item.config.stash[STATE_KEY]
    item_id = callspec.params[collection.ITEM_ARG]
    system = callspec.params.get(collection.SYSTEM_ARG, state.settings.memsystems[0])
    k = callspec.params.get(collection.K_ARG, state.settings.k)
    repeat = callspec.params.get(collection.REPEAT_ARG, 0)
    reason = describe(call.excinfo.value) if call.excinfo is not None else "failed outside the plugin"
    try:
        key = state.run_key(state.suite(marker.args[0]), system, k)
    except Exception:  # the suite itself cannot be built: there is no run to count it in
        return None
    return replace(error_record(key, marker.args[0], item_id, f"{item_id}: {reason}"), repeat=repeat)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """On a worker: hand session errors to the controller. On the controller: aggregate
    once, write the files, and let gates and errors set the exit status."""
    config = session.config
    if STATE_KEY not in config.stash or not config.stash[STATE_KEY].settings.active:
        return
    state: RunState = config.stash[STATE_KEY]
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput[SESSION_ERRORS] = list(state.session_errors)
        return
    collector: RecordCollector | None = config.pluginmanager.get_plugin(COLLECTOR_NAME)
    if collector is None:
        return
    try:
        report = SessionReport.build(
            state.settings,
            state.suite,
            collector.by_run(),
            state.baseline,
            [*collector.session_errors, *state.session_errors],
            collector.snapshot_changes,
            lambda suite_ref: _suite_size(state, suite_ref),
        )
        report.write_files(state.suite)
    except MemevalError as exc:
        config.stash[REPORT_ERROR_KEY] = str(exc)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        return
    config.stash[REPORT_KEY] = report
    session.exitstatus = report.exit_status(session.exitstatus)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    wrong: WrongAnswerSummary | None = config.pluginmanager.get_plugin(WRONG_ANSWERS_NAME)
    collector: RecordCollector | None = config.pluginmanager.get_plugin(COLLECTOR_NAME)
    if wrong is not None and collector is not None:
        wrong.write(terminalreporter, collector.records)
    if REPORT_ERROR_KEY in config.stash:
        terminalreporter.write_line(f"ERROR: {config.stash[REPORT_ERROR_KEY]}", red=True)
    if REPORT_KEY in config.stash:
        config.stash[REPORT_KEY].write_terminal(terminalreporter)


def _suite_size(state: RunState, suite_ref: str) -> int | None:
    """Items of the suite in this run's selection of data (None when it cannot be indexed here)."""
    try:
        return len(state.index(suite_ref))
    except Exception:  # the items ran, so their records count; only the subset note is lost
        return None


def warm_shared_caches(state: RunState) -> None:
    """Before xdist starts its workers: build once, on the controller, what every worker
    would otherwise build for itself on a cold cache (the offline readers: multisource
    fits one NBF model per seed and caches it on disk with an atomic write)."""
    if state.settings.responder != "reader":
        return
    for name in state.settings.suites:
        try:
            state.responder(state.suite(name))
        except Exception:
            pass


def _splits_by_k(state: RunState) -> scheduling.SplitsByK:
    return lambda suite_ref: bool(getattr(state.suite(suite_ref), "splits_by_k", True))


def _index(state: RunState, name: str) -> Any:
    try:
        return state.index(name)
    except DataError as exc:
        option = "--memeval-data: " if state.settings.data_dir is not None else ""
        raise ConfigError(f"{option}{exc}") from None


def _register_suite_markers(config: pytest.Config, name: str, target: str) -> None:
    suite_class = load_object(target)
    config.addinivalue_line("markers", f"{name}: an item of the memeval suite '{name}'")
    for marker, description in suite_class.markers.items():
        config.addinivalue_line("markers", f"{marker}: {description}")
