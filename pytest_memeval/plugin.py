"""pytest hooks of pytest-memeval (loaded through the `pytest11` entry point).

Hooks only: options, collection of the bundled suites, parametrization, xdist scheduling,
the catch-all that gives every memeval item a record, and on the controller the
aggregation of records into the reports and the exit status.
"""

from __future__ import annotations

import shlex
import shutil
import sys
import tempfile
from collections.abc import Collection, Generator
from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import replace

from .analysis.errata import with_errata
from .analysis.judge_audit import with_judge_audit
from .analysis.partial import INTERRUPTED, ItemRepeat, RunItems, SessionEnd
from .analysis.session_report import SessionReport
from .campaigns.campaign import PLUGIN_NAME as CAMPAIGN_NAME
from .campaigns.campaign import Campaign, done_on_worker, stop_on_worker
from .campaigns.journal import RESUME
from .campaigns.run_bundle import run_info, write_run_bundle
from .config import arguments
from .config.report_files import report_paths
from .config.settings import Settings
from .errors import MemevalError
from .framework.suite import Suite
from .llm.local_session import attach_local_model
from .llm.run_slots import remove_run_slots
from .protocols import Closes, Judge
from .rendering.failures import WrongAnswerSummary
from .rendering.progress_line import ProgressDisplay
from .rendering.session_output import write_files, write_terminal
from .rendering.terminal import write_line
from .running import collection, crashes, frozen_heap, scheduling, shards
from .running.adapter_guard import describe
from .running.context_sizes import group_sizes
from .running.exit_watch import thread_idents, watch_exit
from .running.fixtures import (  # noqa: F401  (fixtures are found by pytest through this module)
    RECORDED_KEY,
    STATE_KEY,
    ComparedRuns,
    attach,
    compares_runs,
    memeval_item_id,
    memeval_k,
    memeval_memsystem,
    memeval_prefetcher,
    memeval_repeat,
    memeval_result,
    memeval_state,
    teardown_properties,
)
from .running.prefetch import STAGES_AHEAD, pending_limit
from .running.progress_tracking import PROGRESS_DIR, ProgressTracker
from .running.record_collector import SESSION_ERRORS, RecordCollector
from .running.registry import load_suite
from .running.run_setup import prepare_run
from .running.runner import error_record
from .running.settings_checks import available_cores, workers_note
from .running.state import RunState
from .running.worker_share import RUN_SLOTS, run_slots_for, shared_settings, worker_share
from .running.wrong_answers import mark_wrong_answer, trim_wrong_answer

COLLECTOR_NAME = "memeval-collector"
COMPARED_RUNS_NAME = "memeval-compared-runs"
CLOSING_NAME = "memeval-closing-lines"
WRONG_ANSWERS_KEY = pytest.StashKey[WrongAnswerSummary]()
REPORT_KEY = pytest.StashKey[SessionReport]()
REPORT_ERROR_KEY = pytest.StashKey[str]()
GROUPS_DIR_KEY = pytest.StashKey[str]()
PROGRESS_DIR_KEY = pytest.StashKey[str]()
ITEMS_DIR_KEY = pytest.StashKey[str]()
RUN_SLOTS_KEY = pytest.StashKey[Path]()
#: the threads running when the plugin was configured, and the session (for its exit status)
THREADS_KEY = pytest.StashKey[frozenset[int]]()
SESSION_KEY = pytest.StashKey[pytest.Session]()
COLLECTION_KEY = pytest.StashKey[arguments.Collection]()
#: pytest's arguments as it parsed them: the ini file's addopts, PYTEST_ADDOPTS, the command line
PARSED_ARGS_KEY = pytest.StashKey[tuple[str, ...]]()
#: the workerinput key carrying the bundled selections of pasted ids to xdist workers
SELECTIONS = "memeval_bundled_selections"
#: the directory where a run with --memeval-bundle logs the calls its processes use
CALL_LOG = "memeval_call_log"
CALL_LOG_KEY = pytest.StashKey[Path]()
SHARD_SECONDS_KEY = pytest.StashKey[dict[shards.Unit, float]]()
ESTIMATE_KEY = pytest.StashKey[list[str]]()
#: what the run does with its options that a user may not expect (PreparedRun.notes)
NOTES_KEY = pytest.StashKey[tuple[str, ...]]()

#: each feature declares its own options (its `pytest_addoption`), in the order of the groups
#: `pytest --help` shows and docs/options.md documents
pytest_plugins = (
    "pytest_memeval.running.options",
    "pytest_memeval.memory.options",
    "pytest_memeval.llm.options",
    "pytest_memeval.analysis.options",
    "pytest_memeval.campaigns.options",
)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, args: list[str]) -> None:
    """Before pytest decides what to collect: the bundled suites when --memsystem names no
    path, and pasted ids of bundled modules resolved (see `arguments`). Here, and only here,
    `args` holds what pytest inserted from the ini file's addopts and PYTEST_ADDOPTS
    (invocation_params.args is the command line alone): a bundle's rerun needs them."""
    early_config.stash[PARSED_ARGS_KEY] = tuple(str(arg) for arg in args)
    namespace = early_config.known_args_namespace
    given = list(getattr(namespace, "file_or_dir", None) or [])
    resolved = arguments.resolve(
        given,
        getattr(namespace, "memsystem", None),
        early_config.invocation_params.dir,
        collection.bundled_suites_dir(),
    )
    early_config.stash[COLLECTION_KEY] = resolved
    if list(resolved.args) != given:
        for gone in (arg for arg in given if arg not in resolved.args):
            del args[len(args) - 1 - args[::-1].index(gone)]  # the last occurrence: the positional one
        args.extend(arg for arg in resolved.args if arg not in given)
        namespace.file_or_dir = list(resolved.args)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "memeval(suite): run this test once per item of the named memeval suite")
    config.addinivalue_line("markers", f"{collection.CONTEXT_MARK}(context): the memeval context of an item")
    controller = not hasattr(config, "workerinput")
    campaign: Campaign | None = None
    option = config.option
    if option.memsystem:  # a memeval run writes its reports unless told not to
        option.memeval_report, option.memeval_html = report_paths(
            option.memeval_report, option.memeval_html, config.rootpath, bool(option.collectonly)
        )
    try:
        bundled = _collection(config).bundled_only
        prepared = prepare_run(
            config,
            bundled,
            controller,
            junitxml=config.getoption("xmlpath", None),
            probe_llm=controller and not config.option.collectonly,
        )
        state, settings = prepared.state, prepared.state.settings
        for name, target in _suites_to_register(config, prepared.suites, settings.suites, bundled).items():
            _register_suite_markers(config, name, target)
        for warning in prepared.warnings:
            config.issue_config_time_warning(pytest.PytestConfigWarning(warning), stacklevel=2)
        if prepared.shard_seconds is not None:
            config.stash[SHARD_SECONDS_KEY] = prepared.shard_seconds
        over_cores = (
            workers_note(getattr(config.option, "numprocesses", None), available_cores()) if controller else None
        )
        config.stash[NOTES_KEY] = (*prepared.notes, *([over_cores] if over_cores and settings.active else []))
        if settings.active and controller:
            campaign = Campaign.open(state, bool(config.option.collectonly), bundled)
        settings = settings.with_args(config.stash.get(PARSED_ARGS_KEY, _command_line(config)))
        call_log = _call_log(config, settings, controller)
        if call_log is not None:
            settings = settings.with_call_log(call_log)
        state.rebind(shared_settings(attach_local_model(config, settings), getattr(config, "workerinput", None)))
        if settings.active and not config.option.collectonly and not (controller and scheduling.is_distributed(config)):
            config.add_cleanup(state.stop_gateway)
            state.start_gateway()  # one per process that runs items (each xdist worker has its own)
    except MemevalError as exc:
        if campaign is not None:
            campaign.abandon()
        raise pytest.UsageError(str(exc)) from None
    config.stash[STATE_KEY] = state
    if settings.active and compares_runs(settings):
        config.pluginmanager.register(ComparedRuns(), COMPARED_RUNS_NAME)
    if settings.active:
        config.stash[THREADS_KEY] = thread_idents()
        # the last of pytest's cleanups (the first registered): after its final collections
        config.add_cleanup(lambda: frozen_heap.thaw(config))
    if settings.active and controller and scheduling.is_distributed(config) and not config.option.collectonly:
        warm_shared_caches(state)
        config.stash[ITEMS_DIR_KEY] = crashes.make_items_dir()
        slots = run_slots_for(state.settings)
        if slots is not None:
            config.stash[RUN_SLOTS_KEY] = slots
    if controller:
        collector = RecordCollector()
        if campaign is not None:
            collector.earlier, collector.listener = campaign.resumed, campaign.record_arrived
            config.pluginmanager.register(campaign, CAMPAIGN_NAME)
        config.pluginmanager.register(collector, COLLECTOR_NAME)
        config.pluginmanager.register(ClosingLines(), CLOSING_NAME)
        config.stash[WRONG_ANSWERS_KEY] = WrongAnswerSummary()
        if settings.active and scheduling.uses_context_scheduler(config):
            config.stash[GROUPS_DIR_KEY] = scheduling.make_groups_dir()
        if settings.active and settings.progress_s > 0 and not config.option.collectonly:
            _register_progress(config, state)  # sized from the contexts: nothing to show a collection
    else:
        workerinput = config.workerinput  # type: ignore[attr-defined]
        if PROGRESS_DIR in workerinput:
            worker = workerinput["workerid"]
            state.progress = ProgressTracker(worker, Path(workerinput[PROGRESS_DIR]) / f"{worker}.json")
        if workerinput.get(SELECTIONS):
            selections = tuple(arguments.BundledSelection(*pair) for pair in workerinput[SELECTIONS])
            config.stash[COLLECTION_KEY] = arguments.Collection(tuple(config.args), selections=selections)


def _call_log(config: pytest.Config, settings: Settings, controller: bool) -> Path | None:
    """Where the processes of a run with --memeval-bundle log the calls they use: made by the
    controller, handed to each xdist worker."""
    if not controller:
        directory = config.workerinput.get(CALL_LOG)  # type: ignore[attr-defined]
        return Path(directory) if directory else None
    if settings.bundle is None or not settings.active or config.option.collectonly:
        return None
    config.stash[CALL_LOG_KEY] = Path(tempfile.mkdtemp(prefix="memeval-calls-"))
    return config.stash[CALL_LOG_KEY]


def _collection(config: pytest.Config) -> arguments.Collection:
    """What the run collects (as the plugin resolved it; as given when the plugin was loaded too late)."""
    return config.stash.get(COLLECTION_KEY, None) or arguments.Collection(tuple(config.args))


def _register_progress(config: pytest.Config, state: RunState) -> None:
    """Progress lines: from the workers' files under xdist, from this process otherwise."""
    interval = state.settings.progress_s

    def groups() -> dict[str, str]:
        return _groups_by_params(state)

    def sizes(wanted: Collection[str]) -> dict[str, int]:
        return group_sizes(state, wanted)

    if scheduling.is_distributed(config):
        directory = config.stash[PROGRESS_DIR_KEY] = tempfile.mkdtemp(prefix="memeval-progress-")
        display = ProgressDisplay.from_directory(config, interval, directory, groups, sizes)
    else:
        display = ProgressDisplay(
            config, interval, lambda: [state.progress.snapshot()], threaded=False, groups=groups, sizes=sizes
        )
        state.progress.listener = display.maybe_print
    config.pluginmanager.register(display, "memeval-progress")


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Where the run's LLM calls go: the gateway, and each memory system whose own LLM it
    cannot reach (one line each)."""
    state = config.stash.get(STATE_KEY, None)
    if state is None or not state.settings.active:
        return []
    lines = [f"memeval: {line}" for line in (*config.stash.get(NOTES_KEY, ()), *state.outside_gateway())]
    gateway = state.settings.gateway
    if gateway is not None:
        where = f", {gateway.cache_path}" if gateway.cache_path is not None else ""
        lines.insert(
            0,
            "memeval: every LLM call goes through a loopback gateway in each process that runs items "
            f"(cache {gateway.cache_mode}{where})",
        )
    return lines


@pytest.hookimpl(wrapper=True)
def pytest_runtestloop(session: pytest.Session) -> Generator[None, Any, Any]:
    """A memeval run's loop, with what is alive when it starts left out of the garbage
    collector's full collections (`frozen_heap`)."""
    state = session.config.stash.get(STATE_KEY, None)
    if state is not None and state.settings.active:
        frozen_heap.freeze(session.config)
    return (yield)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    if GROUPS_DIR_KEY in config.stash:
        scheduling.remove_groups_dir(config.stash[GROUPS_DIR_KEY])
    if PROGRESS_DIR_KEY in config.stash:
        shutil.rmtree(config.stash[PROGRESS_DIR_KEY], ignore_errors=True)
    if ITEMS_DIR_KEY in config.stash:
        crashes.remove_items_dir(config.stash[ITEMS_DIR_KEY])
    if RUN_SLOTS_KEY in config.stash:
        remove_run_slots(config.stash[RUN_SLOTS_KEY])
    if CALL_LOG_KEY in config.stash:
        shutil.rmtree(config.stash[CALL_LOG_KEY], ignore_errors=True)
    if THREADS_KEY in config.stash and SESSION_KEY in config.stash:
        # the last hook of the run: nothing is left to do but wait for what adapters started
        before: frozenset[int] = config.stash[THREADS_KEY]
        watch_exit(before, config.stash[SESSION_KEY].exitstatus)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Skip bundled suite modules that --memeval-suite did not select, or that no pasted id names."""
    suite = collection.suite_of_module(collection_path)
    if suite is None or STATE_KEY not in config.stash:
        return None
    settings = config.stash[STATE_KEY].settings
    if settings.active and suite not in settings.suites:
        return True
    selections = _collection(config).selections
    if selections and not any(s.module == collection_path.name for s in selections):
        return True
    return None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """After -k and -m: of the bundled modules, only the items that pasted ids name; then
    this shard's contexts (--memeval-shard); then, in a resumed run, the items the journal
    holds are left out (their records come from it)."""
    kept, dropped = _pasted(config, items)
    state: RunState | None = config.stash.get(STATE_KEY, None)
    if state is not None and state.settings.active:
        settings = state.settings
        if settings.shard is not None:
            kept, other_shards = shards.split(kept, settings.shard, config.stash.get(SHARD_SECONDS_KEY, None))
            dropped += other_shards
        campaign: Campaign | None = config.pluginmanager.get_plugin(CAMPAIGN_NAME)
        done = campaign.done if campaign is not None else done_on_worker(config)
        if done:
            keys = [collection.item_key(item, settings.memsystems[0], settings.k) for item in kept]
            dropped += [item for item, key in zip(kept, keys) if key in done]
            kept = [item for item, key in zip(kept, keys) if key not in done]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def _pasted(config: pytest.Config, items: list[pytest.Item]) -> tuple[list[pytest.Item], list[pytest.Item]]:
    """(kept, dropped): of the bundled modules, only the items that pasted ids name."""
    resolved = _collection(config)
    if not resolved.selections:
        return list(items), []
    bundled = collection.bundled_suites_dir()
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        within = item.nodeid.partition(arguments.SEP)[2]
        outside = item.path.parent != bundled
        (kept if outside or resolved.selects(item.path.name, within) else dropped).append(item)
    return kept, dropped


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
        metafunc, suite.name, entries, state.settings.systems, state.settings.ks, state.settings.repeats
    )


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Schedule by (suite, context, memory system) instead of rewriting node ids."""
    if GROUPS_DIR_KEY not in config.stash:
        return None
    state: RunState = config.stash[STATE_KEY]
    # a run with an LLM responder keeps contexts queued on each worker, which fills them ahead
    llm, workers = state.settings.llm, int(getattr(config.option, "numprocesses", 0) or 1)
    pending = 0
    if llm is not None and state.settings.responder != "reader":
        pending = pending_limit(worker_share(llm.concurrency, workers, workers - 1))
    return scheduling.make_scheduler(
        config,
        log,
        config.stash[GROUPS_DIR_KEY],
        lambda: _groups_by_params(state),
        pending_per_worker=pending,
        most_ahead=STAGES_AHEAD,
    )


def _groups_by_params(state: RunState) -> dict[str, str]:
    """Parameter id of each item of the selected suites -> its (suite, context, system[, k]) group."""
    settings = state.settings
    indexes = {name: state.index(name) for name in settings.suites}
    return scheduling.groups_by_params(indexes, settings.systems, settings.ks, _splits_by_k(state))


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller hook: tell each worker where its group table and progress file go,
    and which items of the bundled modules pasted ids name."""
    config = node.config
    if GROUPS_DIR_KEY in config.stash:
        node.workerinput[scheduling.GROUPS_DIR] = config.stash[GROUPS_DIR_KEY]
    if PROGRESS_DIR_KEY in config.stash:
        node.workerinput[PROGRESS_DIR] = config.stash[PROGRESS_DIR_KEY]
    if ITEMS_DIR_KEY in config.stash:
        node.workerinput[crashes.ITEMS_DIR] = config.stash[ITEMS_DIR_KEY]
    if RUN_SLOTS_KEY in config.stash:
        node.workerinput[RUN_SLOTS] = str(config.stash[RUN_SLOTS_KEY])
    if CALL_LOG_KEY in config.stash:
        node.workerinput[CALL_LOG] = str(config.stash[CALL_LOG_KEY])
    selections = _collection(config).selections
    if selections:
        node.workerinput[SELECTIONS] = [[s.module, s.within] for s in selections]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """On an xdist worker, before it reports its collection: the node id -> group table."""
    config = session.config
    if hasattr(config, "workerinput") and STATE_KEY in config.stash and config.stash[STATE_KEY].settings.active:
        state = config.stash[STATE_KEY]
        scheduling.write_groups(config, session.items, state.settings.memsystems[0], _splits_by_k(state))
        if crashes.ITEMS_DIR in config.workerinput:
            directory = config.workerinput[crashes.ITEMS_DIR]
            crashes.write_items(directory, session.items, state.settings.memsystems[0], state.settings.k)
    elif config.option.collectonly and STATE_KEY in config.stash and config.stash[STATE_KEY].settings.uses_llm:
        config.stash[ESTIMATE_KEY] = _estimate(config.stash[STATE_KEY], session.items)


def _estimate(state: RunState, items: list[pytest.Item]) -> list[str]:
    """--collect-only with an LLM: the calls and tokens the run would make, per phase."""
    from .campaigns.estimate import estimate, estimate_lines

    try:
        return estimate_lines(*estimate(state, items), state.settings.prices)
    except Exception as exc:  # an estimate is advice: its failure must not fail the collection
        return [f"memeval estimate: not available ({describe(exc)})"]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    """A memeval item that fails before its record exists (a fixture, a plugin) still ends
    as an error record: no item leaves the denominator. The record travels once, on the
    teardown report; a wrong answer's report is made cheap to make, ship and summarise."""
    trim_wrong_answer(call)
    report = yield
    if report.failed and not item.stash.get(RECORDED_KEY, False) and item.get_closest_marker("memeval"):
        record = _fallback_record(item, call)
        if record is not None:
            attach(item, record)
    if report.when == "teardown":
        properties = teardown_properties(item, item.config.pluginmanager.get_plugin(COLLECTOR_NAME))
        if properties is not None:
            report.user_properties = properties
    mark_wrong_answer(report, call)
    return report


def pytest_runtest_teardown(item: pytest.Item) -> None:
    stop_on_worker(item)


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
    identity = crashes.identity_of(item, state.settings.memsystems[0], state.settings.k)
    reason = describe(call.excinfo.value) if call.excinfo is not None else "failed outside the plugin"
    return None if identity is None else _error_record_of(state, identity, reason)


def _error_record_of(state: RunState, identity: crashes.ItemIdentity, reason: str) -> Any:
    """An error record of an item that has none; None when its suite cannot be built (there
    is no run to count it in)."""
    try:
        key = state.run_key(state.suite(identity.suite_ref), identity.memsystem, identity.k)
    except Exception:
        return None
    message = f"{identity.item_id}: {reason}"
    return replace(error_record(key, identity.suite_ref, identity.item_id, message), repeat=identity.repeat)


def _crash_records(session: pytest.Session, state: RunState, collector: RecordCollector) -> list[Any]:
    """Error records of the items a dead xdist worker held and that never ran again, and,
    when the run ended because its workers died, of the items that never ran."""
    crashed = collector.unrecorded_crashes()
    stopped = session.exitstatus == pytest.ExitCode.INTERRUPTED or session.shouldstop or session.shouldfail
    lost = 0 if stopped else collector.workers_lost
    items_dir = session.config.stash.get(ITEMS_DIR_KEY, None)
    if not (crashed or lost) or items_dir is None:
        return []
    table = crashes.read_items(items_dir)
    reasons = crashes.missing_records(list(table), collector.recorded, collector.started, crashed, lost)
    records = (_error_record_of(state, table[nodeid], reason) for nodeid, reason in reasons.items())
    return [record for record in records if record is not None]


def pytest_sessionfinish(session: pytest.Session) -> None:
    """On a worker: hand session errors to the controller. On the controller: aggregate
    once, write the files, and let gates and errors set the exit status."""
    config = session.config
    if STATE_KEY not in config.stash or not config.stash[STATE_KEY].settings.active:
        return
    state: RunState = config.stash[STATE_KEY]
    config.stash[SESSION_KEY] = session
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput[SESSION_ERRORS] = list(state.session_errors)
        return
    collector: RecordCollector | None = config.pluginmanager.get_plugin(COLLECTOR_NAME)
    campaign: Campaign | None = config.pluginmanager.get_plugin(CAMPAIGN_NAME)
    if collector is None or campaign is None:
        return
    for record in _crash_records(session, state, collector):
        collector.add(record)
    end = SessionEnd(_stopped(session, campaign), _selected(config, session, state), _resume_command(config, state))
    try:
        report = SessionReport.build(
            state.settings,
            state.suite,
            collector.by_run(),
            campaign.baseline_records(state.baseline),
            [*collector.session_errors, *collector.crash_errors(), *state.session_errors, *campaign.errors],
            collector.snapshot_changes,
            lambda suite_ref: _suite_size(state, suite_ref),
            campaign.fingerprint,
            campaign.protocol_notes,
            _selection(config),
            end,
            collector.full_records,
        )
        report = _judged_again(report, state)
        write_files(report, state.suite)
        if state.settings.bundle is not None and CALL_LOG_KEY in config.stash:
            written = report.report.to_json()
            run = run_info(state.settings.args, config.rootpath, written)
            problem = write_run_bundle(written, state.settings, run, config.stash[CALL_LOG_KEY])
            report.write_errors.extend([problem] if problem else [])
    except MemevalError as exc:
        config.stash[REPORT_ERROR_KEY] = str(exc)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        campaign.finish(complete=False)
        return
    config.stash[REPORT_KEY] = report
    complete = _complete(session, collector) and not report.write_errors and report.report.incomplete is None
    campaign.finish(complete=complete)
    session.exitstatus = report.decide(campaign.status_with_resumed(session.exitstatus, collector.kept_earlier()))


class ClosingLines:
    """On the controller: after pytest's own last line (its count), the exit status and
    why, and for an incomplete run what ran and the command that resumes it, so that the
    last lines say how the run ended."""

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> Generator[None, Any, Any]:
        result = yield
        report = session.config.stash.get(REPORT_KEY, None)
        terminal = session.config.pluginmanager.get_plugin("terminalreporter")
        if report is not None and terminal is not None:
            for line in report.closing_lines():
                write_line(terminal, line, red=session.exitstatus != pytest.ExitCode.OK)
        return result


def _judged_again(report: SessionReport, state: RunState) -> SessionReport:
    """The report with --memeval-errata's corrected metrics and --memeval-judge-audit's
    calibration, graded by judges built anew (the run's own are closed by now)."""
    if state.settings.errata is None and not state.settings.judge_audit:
        return report
    judges: dict[str, Judge] = {}

    def judge_of(suite: Suite) -> Judge:
        if suite.name not in judges:
            judges[suite.name] = state.fresh_judge(suite)
        return judges[suite.name]

    try:
        if state.settings.errata is not None:
            report = with_errata(report, state.settings.errata, state.suite, judge_of)
        if state.settings.judge_audit:
            report = with_judge_audit(report, state.settings.judge_audit, state.suite, judge_of, state.judge_name)
    finally:
        for judge in judges.values():
            if isinstance(judge, Closes):
                judge.close()
    return report


def _stopped(session: pytest.Session, campaign: Campaign) -> str:
    """Why the session stopped before running every selected item ("" when it ran them all)."""
    if campaign.stopped:
        return f"--memeval-max-cost {campaign.state.settings.max_cost:g} reached"
    if session.shouldfail or session.shouldstop:
        return str(session.shouldfail or session.shouldstop)
    if session.exitstatus == pytest.ExitCode.INTERRUPTED:
        return INTERRUPTED
    return ""


def _selected(
    config: pytest.Config, session: pytest.Session, state: RunState
) -> dict[RunItems, frozenset[ItemRepeat]] | None:
    """The memeval items the session collected, per (suite, memory system, k): from the
    table the first xdist worker wrote, or from this process's collection; None where
    neither holds them (workers on other machines)."""
    settings = state.settings
    if ITEMS_DIR_KEY in config.stash:
        identities = list(crashes.read_items(config.stash[ITEMS_DIR_KEY]).values())
    elif scheduling.is_distributed(config):
        return None
    else:
        identities = [
            identity
            for item in session.items
            if (identity := crashes.identity_of(item, settings.memsystems[0], settings.k)) is not None
        ]
    if not identities and session.testscollected:
        return None
    selected: dict[RunItems, set[ItemRepeat]] = {}
    for identity in identities:
        key = (identity.suite_ref, identity.memsystem, identity.k)
        selected.setdefault(key, set()).add((identity.item_id, identity.repeat))
    return {key: frozenset(items) for key, items in selected.items()}


def _resume_command(config: pytest.Config, state: RunState) -> str:
    """The command that continues this run from its journal ("" without one): the same
    arguments, with --memeval-resume."""
    if state.settings.report is None:
        return ""
    args = list(config.invocation_params.args)
    if RESUME not in args:
        args.append(RESUME)
    return shlex.join([_program(), *args])


def _command_line(config: pytest.Config) -> tuple[str, ...]:
    """The command line alone: for a plugin registered after pytest parsed its arguments
    (a conftest's pytest_plugins), which never saw pytest_load_initial_conftests."""
    return tuple(str(arg) for arg in config.invocation_params.args)


def _program() -> str:
    """How pytest was started: `pytest` when that is the one on PATH, `python -m pytest`
    for the module, else the script's path as given."""
    script = sys.argv[0]
    if Path(script).name == "__main__.py":
        return "python -m pytest"
    name = Path(script).name
    return name if shutil.which(name) == script else script


def _complete(session: pytest.Session, collector: RecordCollector) -> bool:
    """Whether every selected item ran: not interrupted, not stopped, no worker died."""
    finished = session.exitstatus in (
        pytest.ExitCode.OK,
        pytest.ExitCode.TESTS_FAILED,
        pytest.ExitCode.NO_TESTS_COLLECTED,
    )
    return finished and not session.shouldstop and not session.shouldfail and not collector.workers_lost


def _selection(config: pytest.Config) -> dict[str, str]:
    """pytest's own selection of items, as the report records it (not part of the fingerprint)."""
    chosen = {"-k": config.option.keyword, "-m": config.option.markexpr}
    return {flag: expression for flag, expression in chosen.items() if expression}


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> Generator[None, Any, Any]:
    """Around pytest's own summary (its failures, warnings and short summary, without the
    wrong answers): then the wrong answers, one line each, and the memeval summary, last."""
    wrong = config.stash.get(WRONG_ANSWERS_KEY, None)
    if wrong is None:
        return (yield)
    with wrong.held_out(terminalreporter):
        result = yield
        collector: RecordCollector | None = config.pluginmanager.get_plugin(COLLECTOR_NAME)
        if collector is not None:
            wrong.write(terminalreporter, collector.records)
        if REPORT_ERROR_KEY in config.stash:
            write_line(terminalreporter, f"ERROR: {config.stash[REPORT_ERROR_KEY]}", red=True)
        _write_lingering(terminalreporter, config)
        if REPORT_KEY in config.stash:
            write_terminal(config.stash[REPORT_KEY], terminalreporter, wrong.printed)
        for line in config.stash.get(ESTIMATE_KEY, []):
            terminalreporter.write_line(line)
    return result


def _write_lingering(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """Adapter calls that timed out and never returned: they are left behind, and said so."""
    lingering = config.stash[STATE_KEY].lingering_calls() if STATE_KEY in config.stash else []
    if lingering:
        write_line(
            terminalreporter,
            f"memeval: left behind {len(lingering)} adapter call{'s' if len(lingering) != 1 else ''} that never "
            f"returned: {', '.join(lingering)} (on daemon threads, which end with the process)",
            yellow=True,
        )


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
    return lambda suite_ref: state.suite(suite_ref).splits_by_k


def _suites_to_register(
    config: pytest.Config, available: dict[str, str], selected: tuple[str, ...], bundled_only: bool
) -> dict[str, str]:
    """The suites whose markers this run registers: every available suite's, except in a
    run of the bundled modules alone, where only the selected suites' items are collected
    and so only their markers are applied. Registering a suite imports it, and there the
    others' modules would be imported for nothing; `pytest --markers` still lists all."""
    if bundled_only and not config.option.markers:
        return {name: target for name, target in available.items() if name in selected}
    return available


def _register_suite_markers(config: pytest.Config, name: str, target: str) -> None:
    suite_class = load_suite(target)
    config.addinivalue_line("markers", f"{name}: an item of the memeval suite '{name}'")
    for marker, description in suite_class.markers.items():
        config.addinivalue_line("markers", f"{marker}: {description}")
