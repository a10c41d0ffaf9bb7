"""From the command line's options to a checked `RunState`, before anything runs.

Every bad input (an option's value, a file of the wrong content, a gate, adapter settings,
a baseline, a data directory) ends here as a `ConfigError` of one line, which the plugin
reports as a usage error (exit status 4). Nothing here needs a pytest session, so the
tests check each case in milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..config.extras import check_extras
from ..config.judge_specs import with_protocol_model
from ..config.options import OptionSource, read_settings
from ..config.outputs import check_outputs, run_outputs
from ..errors import ConfigError, DataError
from .registry import available_suites, imported_suites
from .settings_checks import check_against_suites, check_before_run, judge_fit_notes, judged_suites
from .shards import Unit, check_shard_count, durations
from .state import RunState


@dataclass(frozen=True)
class PreparedRun:
    state: RunState
    #: the suites this installation offers, name -> import target
    suites: dict[str, str]
    #: problems that do not stop the run, one line each (the plugin shows them as warnings)
    warnings: tuple[str, ...] = ()
    #: seconds per context in --memeval-shard-durations' report (None: shards balance item counts)
    shard_seconds: dict[Unit, float] | None = None
    #: what the run does with its options that a user may not expect, one line each (the
    #: plugin shows them in the header): a judge that fits only some of the suites
    notes: tuple[str, ...] = ()


def prepare_run(
    options: OptionSource,
    bundled_only: bool,
    controller: bool = True,
    junitxml: str | None = None,
    probe_llm: bool = False,
) -> PreparedRun:
    """Settings read and checked against the suites they select; on the controller also the
    files the run will use and write (`junitxml`: pytest's --junitxml) and the baseline.
    `bundled_only`: the run collects the bundled suites alone, so every suite it runs is
    known now. `probe_llm`: the run is about to call its responder's or judges' endpoint,
    which is asked once, last (`check_endpoint`)."""
    suites = available_suites()
    settings = read_settings(options, tuple(suites))
    if controller:
        llm_cache = settings.gateway.cache_path if settings.gateway is not None else None
        check_outputs(run_outputs(settings.report, settings.html, junitxml, llm_cache, settings.bundle))
    check_extras(settings)
    state = RunState.from_settings(settings)
    targets = {**suites, **imported_suites(settings.suites)}
    if bundled_only and settings.active:
        _check_bundled_runs(settings.suites, suites)
    check_against_suites(settings, targets, bundled_only=bundled_only)
    settings = with_protocol_model(settings, judged_suites(settings, targets))
    state.rebind(settings)
    warnings = tuple(check_before_run(settings)) if settings.active and controller else ()
    notes = tuple(judge_fit_notes(settings, targets)) if settings.active else ()
    if settings.baseline is not None and controller:
        from ..results.baseline import load_baseline

        state.baseline = load_baseline(settings.baseline)
    if settings.active:
        # Index the selected suites now: a broken data file is a usage error rather than a
        # collection error, and under xdist the controller warms the on-disk caches before
        # the workers start.
        for name in settings.suites:
            if not _index(state, name):
                raise ConfigError(
                    f"suite {name} has no items in this selection (size {settings.size}, split "
                    f"{settings.split or 'default'}{', data ' + str(settings.data_dir) if settings.data_dir else ''})"
                )
    if settings.active and settings.shard is not None and bundled_only:
        check_shard_count(
            settings.shard, {(name, entry.context_id) for name in settings.suites for entry in state.index(name)}
        )
    seconds = durations(settings.shard_durations) if settings.shard_durations is not None else None
    llm = settings.llm
    if probe_llm and settings.active and llm is not None and llm.cache_mode != "replay" and not settings.local_models:
        from ..llm.preflight import check_endpoint  # httpx: imported by the runs that ask

        asking = f"--memeval-responder={settings.responder}" if settings.responder != "reader" else "--memeval-judge"
        check_endpoint(llm, asking)
    return PreparedRun(state, suites, warnings, seconds, notes)


def _check_bundled_runs(selected: tuple[str, ...], available: dict[str, str]) -> None:
    """A run of the bundled modules alone runs no suite named by import path: a test module
    that names it does."""
    for name in selected:
        if name not in available:
            raise ConfigError(
                f'--memeval-suite: {name} runs from a test module that names it (@pytest.mark.memeval("{name}")): '
                "give that module's path"
            )


def _index(state: RunState, name: str) -> object:
    try:
        return state.index(name)
    except DataError as exc:
        option = "--memeval-data: " if state.settings.data_dir is not None else ""
        raise ConfigError(f"{option}{exc}") from None
