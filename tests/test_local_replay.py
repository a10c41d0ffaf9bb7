"""The committed real-model recording (`make record-local`): replayed offline it gives the
committed verdicts (no server, no network, no [llm-local] extra); a prompt or schema change
shows as a replay cache miss and, re-recorded against the real model, as a snapshot diff.
The LLM-driven memory systems replay from the same file through the run's gateway: the same
memories stored (in their snapshots) and the same verdicts, each record counting its ingest."""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from live import SMOLLM, plugin_args

from pytest_memeval.memory.letta_server import LettaServer

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "fixtures" / "llm-local.sqlite"
SNAPSHOTS = ROOT / "snapshots"


def _makefile_variables() -> dict[str, str]:
    text = (ROOT / "Makefile").read_text()
    return dict(re.findall(r"^([\w-]+) \??=[ \t]*(.*)$", text, re.M))  # a variable may be empty


def _expand(variables: dict[str, str], value: str) -> str:
    return re.sub(r"\$\(([\w-]+)\)", lambda m: _expand(variables, variables.get(m.group(1), "")), value)


def _makefile_runs() -> dict[str, tuple[str, list[str]]]:
    """Each suite's -k selection and arguments, read from the Makefile that records them."""
    variables = _makefile_variables()

    def expand(value: str) -> str:
        return _expand(variables, value)

    runs = {}
    for suite in expand(variables["LOCAL_SUITES"]).split():
        runs[suite] = (variables[f"LOCAL_SELECT_{suite}"], expand(variables[f"LOCAL_ARGS_{suite}"]).split())
    return runs


def _recorded_suites() -> list[str]:
    runs = _makefile_runs()
    return [s for s in runs if (SNAPSHOTS / f"test_{s}").is_dir()] if CACHE.is_file() else []


def _replay(
    pytester: pytest.Pytester, suite: str, selection: str, args: list[str], *system: str, timeout: int
) -> tuple[pytest.RunResult, list[dict[str, Any]]]:
    """Replays `suite`'s recorded items offline (nothing listens at the base URL) with their
    snapshots; returns the run and its records."""
    shutil.copytree(SNAPSHOTS / f"test_{suite}", pytester.path / "snapshots" / f"test_{suite}")
    report = pytester.path / "report.json"
    result = pytester.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        *system,
        "--memeval-k=3",
        "--memeval-snapshot",
        f"--memeval-llm-cache-file={CACHE}",
        "--memeval-llm-cache=replay",
        "--memeval-max-errors=100000",
        f"--memeval-suite={suite}",
        "-k",
        selection,
        f"--memeval-report={report}",
        "--snapshot-no-colors",
        "--memeval-base-url=http://127.0.0.1:9/v1",  # nothing listens there: replay must not call
        *[a for a in args if not a.startswith("--memeval-local-model")],
        timeout=timeout,
    )
    return result, json.loads(report.read_text())["records"]


@pytest.mark.parametrize(
    "suite",
    _recorded_suites()
    or [pytest.param("none", marks=pytest.mark.skip(reason="no recording committed: make record-local"))],
)
def test_the_committed_recording_replays_offline_with_the_same_verdicts(
    suite: str, suite_pytester: pytest.Pytester
) -> None:
    selection, args = _makefile_runs()[suite]
    result, records = _replay(suite_pytester, suite, selection, args, "--memsystem=chroma", timeout=600)
    snapshots = list((suite_pytester.path / "snapshots" / f"test_{suite}" / "chroma-k3").rglob("*.json"))
    assert len(records) >= len(snapshots) > 0
    misses = [r["id"] for r in records if "replay cache miss" in r["reason"]]
    assert misses == [], f"{len(misses)} items were not recorded (re-record with make record-local): {misses[:3]}"
    assert "differs from its snapshot" not in result.stdout.str(), result.stdout.str()[-3000:]
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)  # wrong answers are findings
    if suite == "locomo":  # the judge audit's probes replay too: SmolLM2 under J as recorded
        (audit,) = json.loads((suite_pytester.path / "report.json").read_text())["judge_audits"]
        (judge,) = audit["judges"]
        assert (audit["probes"], audit["unjudged"], judge["judge"]) == (24, 0, "smollm2-135m@mem0-j")
        assert (judge["false_accept"]["n"], judge["false_accept"]["value"]) == (17, 1.0)
        assert (judge["false_reject"]["n"], judge["false_reject"]["value"]) == (7, 0.0)


EDITED_SCHEMA = """
import pytest_memeval.llm.multisource as multisource

_schema = multisource.MultisourcePrompt.schema


def schema(self, view):
    # an edited answer schema: only the last label of the answer space remains
    out = _schema(self, view)
    out["properties"]["answer"]["enum"] = [view.answer_space[-1]]
    return out


multisource.MultisourcePrompt.schema = schema
"""


@pytest.mark.live_model
@pytest.mark.xdist_group("live_model")
def test_a_schema_change_is_a_cache_miss_then_a_snapshot_diff(local_models, suite_pytester: pytest.Pytester) -> None:
    common = [
        "--memsystem=none",
        "--memeval-suite=multisource",
        f"--memeval-responder=openai:{SMOLLM}",
        "--memeval-max-tokens=48",
        "--memeval-snapshot",
        "--snapshot-no-colors",
        f"--memeval-llm-cache-file={suite_pytester.path / 'llm.sqlite'}",
        "-k",
        "stable_121-A1 or stable_121-A3",
    ]
    recorded = suite_pytester.runpytest_subprocess(
        *plugin_args(local_models, *common, "--snapshot-update"), timeout=600
    )
    # the files, not syrupy's summary: under an outer xdist worker syrupy defers its report
    written = list((suite_pytester.path / "snapshots").rglob("*.json"))
    assert len(written) == 2, recorded.stdout.str()[-2000:]
    # a plugin module, not a conftest: a run of the bundled suites loads no conftest of the
    # directory it starts in (arguments.py), as a user's repository's test conftests stay out
    suite_pytester.makepyfile(edited_schema=EDITED_SCHEMA)
    edited = ["-p", "edited_schema", *common]
    # replayed, the edited schema makes requests the recording never saw: errors naming the items
    missed = suite_pytester.runpytest_subprocess(
        *plugin_args(local_models, *edited, "--memeval-llm-cache=replay"), timeout=600
    )
    assert missed.ret == pytest.ExitCode.TESTS_FAILED
    assert "replay cache miss for gen20260321-stable_121-A1" in missed.stdout.str()
    # recorded against the real model, the new answers show as readable diffs of the verdicts
    changed = suite_pytester.runpytest_subprocess(*plugin_args(local_models, *edited), timeout=600)
    output = changed.stdout.str()
    assert changed.ret == pytest.ExitCode.TESTS_FAILED, output[-3000:]
    assert "the verdict differs from its snapshot" in output, output[-3000:]
    assert '+   "answer": "20_or_more",' in output  # A1's last label, where the snapshot has another


def _snapshot_dir(suite: str, memsystem: str) -> Path:
    run_dir = "".join(c if c.isalnum() or c in "._-" else "_" for c in f"{memsystem}-k3")
    return SNAPSHOTS / f"test_{suite}" / run_dir


#: the suite each system replays in CI, every suite with systems once: the cheapest of each
#: system's replays measured on 2026-11-29
CI_SUITE = {
    "mem0": "behavior",
    "amem": "bayes",
    "langmem": "multisource",
    "graphiti": "bayes",
    "letta": "knowme",
    "memos": "memfail",
}


def _recorded_systems() -> list[tuple[str, str]]:
    """(suite, system): each LLM-driven memory system the Makefile records (LOCAL_SYSTEMS) on
    one suite it is recorded on (SYSTEMS_<suite>): CI_SUITE's, else the first. Each pair must
    replay without a miss.

    One pair per system, not all 30: they took 20 to 60 s each, about 800 s of CI's 38
    minutes. `make replay-local` replays every recorded pair."""
    if not CACHE.is_file():
        return []
    variables = _makefile_variables()
    recorded = {
        suite: _expand(variables, variables.get(f"SYSTEMS_{suite}", "$(LOCAL_SYSTEMS)")).split()
        for suite in _makefile_runs()
    }
    pairs = []
    for system in _expand(variables, variables["LOCAL_SYSTEMS"]).split():
        on = [suite for suite, systems in recorded.items() if system in systems]
        if on:
            pairs.append((CI_SUITE[system] if CI_SUITE.get(system) in on else on[0], system))
    return pairs


def _system_args(variables: dict[str, str], suite: str) -> list[str]:
    """SYSTEM_ARGS_<suite>, the systems' own data of a suite, its paths made absolute."""
    args = _expand(variables, variables.get(f"SYSTEM_ARGS_{suite}", "")).split()
    data = "--memeval-data="
    return [data + str(ROOT / a.removeprefix(data)) if a.startswith(data) else a for a in args]


def _config_for(system: str, into: Path, **overrides: str) -> Path:
    """The system's recording settings, its server command made absolute (pytester runs elsewhere)."""
    tables = tomllib.loads((ROOT / "fixtures" / "local-systems" / f"{system}.toml").read_text())
    lines = []
    for name, table in tables.items():
        lines.append(f"[{json.dumps(name)}]")
        for key, value in {**table, **overrides}.items():
            if key in ("server_command", "python"):  # a system's own environment, in the checkout
                value = str(ROOT / value)
            lines.append(f"{key} = {json.dumps(value)}")
    into.write_text("\n".join(lines) + "\n")
    return into


@pytest.fixture(scope="module")
def letta_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One Letta server for the Letta replays of every suite: its start-up is paid once, not per suite."""
    with LettaServer(str(ROOT / ".letta-venv" / "bin" / "letta"), tmp_path_factory.mktemp("letta")) as server:
        yield server.base_url


@pytest.mark.slow
@pytest.mark.parametrize(
    "suite, system",
    _recorded_systems()
    or [
        pytest.param("none", "none", marks=pytest.mark.skip(reason="no system recording committed: make record-local"))
    ],
)
def test_each_recorded_memory_system_replays_offline_storing_the_same_memories(
    suite: str, system: str, suite_pytester: pytest.Pytester, request: pytest.FixtureRequest
) -> None:
    variables = _makefile_variables()
    memsystem = variables[f"MEMSYSTEM_{system}"]
    overrides = {}
    if system.startswith("letta"):
        if not (ROOT / ".letta-venv" / "bin" / "letta").exists():
            pytest.skip("Letta's server is not installed: make letta-venv")
        overrides["base_url"] = request.getfixturevalue("letta_server")
    if system == "memos" and not (ROOT / ".memos-venv" / "bin" / "python").exists():
        pytest.skip("MemOS's environment is not installed: make memos-venv")
    _, args = _makefile_runs()[suite]
    result, records = _replay(
        suite_pytester,
        suite,
        variables[f"SYSTEM_SELECT_{suite}"],
        [*args, *_system_args(variables, suite)],
        f"--memsystem={memsystem}",
        *(["-p", "no_graphiti_backoff"] if system == "graphiti" else []),
        f"--memeval-adapter-config={_config_for(system, suite_pytester.path / 'systems.toml', **overrides)}",
        "--memeval-adapter-timeout=1800",
        timeout=1800,
    )
    output = result.stdout.str()
    assert records, output[-3000:]
    snapshots = list(_snapshot_dir(suite, memsystem).glob("*.json"))
    assert len(snapshots) == sum(r["status"] != "error" for r in records), "a recorded item has no snapshot"
    misses = [r["reason"] for r in records if "replay cache miss" in r["reason"]]
    assert misses == [], f"not recorded (re-record with make record-local): {misses[:1]}"
    assert "differs from its snapshot" not in output, output[-3000:]
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)  # wrong answers are findings
    # the item that filled a context carries what the system's LLM spent on it, all from the recording
    fills = [tokens for r in records for tokens in r["llm_tokens"].get("ingest", {}).values()]
    assert all(t["cached_calls"] == t["calls"] for t in fills)
    if system != "letta":  # Letta's archival mode writes without an LLM
        assert sum(t["calls"] for t in fills) > 0 and sum(t["prompt_tokens"] for t in fills) > 0
