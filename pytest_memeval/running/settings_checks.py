"""Checks of the run's settings against the suites they select, before anything runs.

Each problem is a ConfigError with one line; the plugin turns it into a usage error.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

from ..config.gate_syntax import can_never_fail
from ..config.judge_specs import JudgeOption, fitting, misfit, panel_members
from ..config.settings import Settings
from ..errors import ConfigError
from ..framework.suite import Suite
from ..llm.cache import check_cache_file
from ..memory.resources import EMBEDDINGS_FILE
from ..results.retrieval import RETRIEVAL_BOUNDS, RETRIEVAL_METRICS
from .registry import load_suite


def check_against_suites(settings: Settings, suites: dict[str, str], bundled_only: bool = True) -> None:
    """`suites` maps every available suite name to its import target; `bundled_only` says
    the run collects the bundled suites (no test paths given), so every suite it can run
    is known now."""
    check_gates(settings, suites, bundled_only)
    _check_suite_params(settings, suites)
    _check_data_options(settings, suites)
    _check_llm_support(settings, suites)
    _check_oracle(settings, suites)


def _check_llm_support(settings: Settings, suites: dict[str, str]) -> None:
    """An LLM responder needs every selected suite to have a prompt; a judge needs one suite graded by rubric."""
    selected = {name: load_suite(suites[name]) for name in settings.suites if name in suites}
    if settings.responder != "reader":
        lacking = [name for name, cls in selected.items() if cls.llm_prompt is Suite.llm_prompt]
        if lacking:
            raise ConfigError(f"--memeval-responder: suite {lacking[0]!r} has no LLM prompt (use reader)")
    if settings.judges and all(cls.llm_judge is Suite.llm_judge for cls in selected.values()):
        names = ", ".join(selected) or "none"
        raise ConfigError(f"--memeval-judge: none of the selected suites ({names}) is graded by an LLM judge")
    judged = judged_suites(settings, suites)
    for spec in settings.judges:
        if not any(misfit(spec, prompts, name) is None for name, prompts in judged.items()):
            first = next(iter(judged))
            elsewhere = [
                name for name, prompts in _judged(suites, suites).items() if misfit(spec, prompts, name) is None
            ]
            applies = f" (it applies to {', '.join(elsewhere)}: select one with --memeval-suite)" if elsewhere else ""
            raise ConfigError(f"{misfit(spec, judged[first], first)}{applies}")
    for name, prompts in judged.items():
        panel_members(fitting(settings.judges, prompts, name), prompts, name)


def judge_fit_notes(settings: Settings, suites: dict[str, str]) -> list[str]:
    """One line per judge of --memeval-judge that fits only some of the selected suites
    graded by an LLM judge: which it judges, and which keep their own judge and why."""
    judged = judged_suites(settings, suites)
    notes = []
    for spec in settings.judges:
        unfit = {name: why for name, prompts in judged.items() if (why := misfit(spec, prompts, name)) is not None}
        if unfit and len(unfit) < len(judged):
            fits = [name for name in judged if name not in unfit]
            one = len(unfit) == 1
            if spec.model is None:
                why = f"{'its protocol names' if one else 'their protocols name'} no judge model: add openai:MODEL"
            else:
                why = next(iter(unfit.values())).removeprefix(f"--memeval-judge: {spec}: ")
            notes.append(
                f"--memeval-judge {spec} judges {', '.join(fits)}; {', '.join(unfit)} "
                f"{'keeps its own judge' if one else 'keep their own judges'} ({why})"
            )
    return notes


def judged_suites(settings: Settings, suites: dict[str, str]) -> dict[str, Mapping[str, JudgeOption]]:
    """The selected suites an LLM judge grades, with the judge prompts each names."""
    return _judged(settings.suites, suites)


def _judged(names: Iterable[str], suites: dict[str, str]) -> dict[str, Mapping[str, JudgeOption]]:
    selected = {name: load_suite(suites[name]) for name in names if name in suites}
    return {name: cls.judge_prompts for name, cls in selected.items() if cls.llm_judge is not Suite.llm_judge}


def _check_data_options(settings: Settings, suites: dict[str, str]) -> None:
    """--memeval-data and --memeval-split must mean something to every selected suite."""
    for name in settings.suites:
        cls = load_suite(suites[name])
        if settings.data_dir is not None and not cls.reads_data_dir:
            readers = ", ".join(n for n in suites if load_suite(suites[n]).reads_data_dir)
            raise ConfigError(
                f"--memeval-data: suite {name!r} generates its own data; select the suites that read a "
                f"released layout with --memeval-suite ({readers})"
            )
        if settings.split is not None and settings.split not in cls.splits:
            raise ConfigError(
                f"--memeval-split: suite {name!r} has no {settings.split!r} split (splits: {', '.join(cls.splits)})"
            )


def _check_oracle(settings: Settings, suites: dict[str, str]) -> None:
    """--memeval-oracle needs suites whose items declare their gold evidence."""
    if not settings.oracle:
        return
    for name in settings.suites:
        if not load_suite(suites[name]).declares_evidence:
            with_evidence = ", ".join(n for n in suites if load_suite(suites[n]).declares_evidence)
            raise ConfigError(
                f"--memeval-oracle: suite {name!r} declares no gold evidence to store; select suites that "
                f"do with --memeval-suite ({with_evidence or 'none available'})"
            )


def _check_suite_params(settings: Settings, suites: dict[str, str]) -> None:
    for suite, params in settings.suite_params.items():
        if suite not in suites:
            raise ConfigError(f"--memeval-suite-option: unknown suite {suite!r} (available: {', '.join(suites)})")
        accepted = load_suite(suites[suite]).parameters
        for key in params:
            if key not in accepted:
                known = ", ".join(sorted(accepted)) or "none"
                raise ConfigError(f"--memeval-suite-option: {suite} has no setting {key!r} (settings: {known})")


def check_gates(settings: Settings, suites: Mapping[str, str], bundled_only: bool) -> None:
    """Suites, systems and metric names of gates are checked now, and a gate that can never
    fail is refused (a run, and a merge of shards). Only when test paths are given can a
    gate name a suite that a test file names by import path; it is then known at the end,
    where a gate that matched no run fails."""
    for gate in settings.gates:
        if gate.system is not None and settings.active and gate.system not in settings.memsystems:
            raise ConfigError(
                f"--memeval-gate: {gate.expression!r}: memory system {gate.system!r} is not in --memsystem "
                f"({', '.join(settings.memsystems)})"
            )
        if gate.suite not in suites:
            if bundled_only and settings.active:
                raise ConfigError(
                    f"--memeval-gate: {gate.expression!r}: unknown suite {gate.suite!r} "
                    f"(this run's suites: {', '.join(settings.suites)})"
                )
            continue
        if bundled_only and settings.active and gate.suite not in settings.suites:
            raise ConfigError(
                f"--memeval-gate: {gate.expression!r}: suite {gate.suite!r} is not selected "
                f"(--memeval-suite: {', '.join(settings.suites)})"
            )
        suite = load_suite(suites[gate.suite])
        retrieval = RETRIEVAL_METRICS if suite.declares_evidence else ()
        if gate.metric not in (*suite.metric_names, *retrieval):
            raise ConfigError(
                f"--memeval-gate: {gate.expression!r}: {gate.suite} has no metric {gate.metric!r} "
                f"(metrics: {', '.join((*suite.metric_names, *retrieval))})"
            )
        if gate.metric in retrieval and gate.needs_baseline:
            raise ConfigError(
                f"--memeval-gate: {gate.expression!r}: runs are not compared pairwise on {gate.metric}, so it has no "
                f"no-regression gate; gate its interval with a threshold (ci:{gate.suite}.{gate.metric}>=0.5)"
            )
        bounds = RETRIEVAL_BOUNDS[gate.metric] if gate.metric in retrieval else suite.metric_bounds.get(gate.metric)
        if bounds is not None and can_never_fail(gate, bounds):
            raise ConfigError(
                f"--memeval-gate: {gate.expression!r} can never fail: {gate.metric} lies in "
                f"[{bounds[0]:g}, {bounds[1]:g}]"
            )


def check_before_run(settings: Settings) -> list[str]:
    """On the controller, before any worker starts: files the run will use. Returns
    warnings to show (a cache that was repaired)."""
    warnings = []
    llm = settings.llm
    if llm is not None and llm.cache_mode != "off" and llm.cache_path is not None:
        warnings.append(check_cache_file("--memeval-llm-cache-file", llm.cache_path, llm.cache_mode))
    warnings.append(repair_embedding_cache(settings.cache_dir / EMBEDDINGS_FILE))
    return [warning for warning in warnings if warning]


def repair_embedding_cache(path: Path) -> str | None:
    """A corrupt embedding cache (a cache only: every vector can be recomputed) is moved
    aside, once, before workers open it, and a fresh one is built; returns the warning."""
    if not path.is_file():
        return None
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            ok = connection.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        finally:
            connection.close()
    except sqlite3.DatabaseError:
        ok = False
    if ok:
        return None
    aside = path.with_name(f"{path.name}.corrupt-{int(time.time())}")
    path.replace(aside)
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return f"memeval: the embedding cache {path} was corrupt; moved to {aside.name}, rebuilding it"


#: what -n above the cores cost, measured (docs/performance.md, "Workers and cores")
OVER_CORES_MEASURED = "memfail smoke on chroma, 2 cores: 89-118 s at -n 8, 28-35 s at -n 2, 13-18 s at -n 0"


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system says)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def workers_note(workers: int | None, cores: int) -> str | None:
    """One line when -n asks for more xdist workers than there are cores: each worker loads
    its own embedder and suites, and they share the cores."""
    if not workers or workers <= cores:
        return None
    return (
        f"-n {workers} starts {workers} workers on {cores} core{'s' if cores != 1 else ''}: each loads its own "
        f"embedder and suites and they share the cores, so the run is slower, not faster ({OVER_CORES_MEASURED}); "
        f"use -n auto ({cores} here)"
    )
