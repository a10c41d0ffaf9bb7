"""Checks of the run's settings against the suites they select, before anything runs.

Each problem is a ConfigError with one line; the plugin turns it into a usage error.
"""

from __future__ import annotations

from .benchmarks.base import Suite
from .errors import ConfigError
from .options import Settings
from .registry import load_object


def check_against_suites(settings: Settings, suites: dict[str, str]) -> None:
    """`suites` maps every available suite name to its import target."""
    _check_gates(settings, suites)
    _check_suite_params(settings, suites)
    _check_data_options(settings, suites)
    _check_llm_support(settings, suites)


def _check_llm_support(settings: Settings, suites: dict[str, str]) -> None:
    """An LLM responder needs every selected suite to have a prompt; a judge needs one suite graded by rubric."""
    selected = {name: load_object(suites[name]) for name in settings.suites if name in suites}
    if settings.responder != "reader":
        lacking = [name for name, cls in selected.items() if cls.llm_prompt is Suite.llm_prompt]
        if lacking:
            raise ConfigError(f"--memeval-responder: suite {lacking[0]!r} has no LLM prompt (use reader)")
    if settings.judges and all(cls.llm_judge is Suite.llm_judge for cls in selected.values()):
        names = ", ".join(selected) or "none"
        raise ConfigError(f"--memeval-judge: none of the selected suites ({names}) is graded by an LLM judge")


def _check_data_options(settings: Settings, suites: dict[str, str]) -> None:
    """--memeval-data and --memeval-split must mean something to every selected suite."""
    for name in settings.suites:
        cls = load_object(suites[name])
        if settings.data_dir is not None and not cls.reads_data_dir:
            readers = ", ".join(n for n in suites if load_object(suites[n]).reads_data_dir)
            raise ConfigError(
                f"--memeval-data: suite {name!r} generates its own data; select the suites that read a "
                f"released layout with --memeval-suite ({readers})"
            )
        if settings.split is not None and settings.split not in cls.splits:
            raise ConfigError(
                f"--memeval-split: suite {name!r} has no {settings.split!r} split (splits: {', '.join(cls.splits)})"
            )


def _check_suite_params(settings: Settings, suites: dict[str, str]) -> None:
    for suite, params in settings.suite_params.items():
        if suite not in suites:
            raise ConfigError(f"--memeval-suite-option: unknown suite {suite!r} (available: {', '.join(suites)})")
        accepted = load_object(suites[suite]).parameters
        for key in params:
            if key not in accepted:
                known = ", ".join(sorted(accepted)) or "none"
                raise ConfigError(f"--memeval-suite-option: {suite} has no setting {key!r} (settings: {known})")


def _check_gates(settings: Settings, suites: dict[str, str]) -> None:
    """Metric names of known suites are checked now; a suite named only by a test file's
    import path is known at the end, where a gate that matched no run fails."""
    for gate in settings.gates:
        if gate.suite not in suites:
            continue
        names = load_object(suites[gate.suite]).metric_names
        if gate.metric not in names:
            raise ConfigError(
                f"--memeval-gate: {gate.expression!r}: {gate.suite} has no metric {gate.metric!r} "
                f"(metrics: {', '.join(names)})"
            )
