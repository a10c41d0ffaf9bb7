"""`python -m pytest_memeval verify BUNDLE [--memeval-data DIR] [--memeval-public-key FILE]`:
a published run checked and run again offline.

1. The bundle is read (bundle.py): every part against its manifest, the signature against
   the key in the bundle and, given --memeval-public-key, against that key.
2. The data files the run read (their sha256 are in the report's fingerprint) are found
   under --memeval-data and hashed; generated data needs nothing (it regenerates).
3. The run is run again with pytest, with the arguments it was run with (those its ini
   file's addopts and PYTEST_ADDOPTS gave included, and no others), in the current
   directory, offline: the recorded LLM calls go into a cache file of their own, replayed
   (`--memeval-llm-cache=replay`: nothing is forwarded, no key is read), the recorded
   embeddings into an embedding cache of their own (nothing is embedded), the memory
   systems' settings come from the fingerprint. Outputs of the original run (reports,
   bundle, snapshots, a baseline, a journal) are left out.
4. The rerun's report is compared with the bundle's: the first call the recording does not
   hold, a protocol that differs, then record by record every field but the timings, then
   every metric of every run. The first difference is one line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..analysis.comparability import sha256_of
from ..errors import MemevalError
from ..files import json_input
from ..files.user_files import read_text
from ..llm.cache import CallCache
from ..memory.embedding_cache import store_embedding_rows
from ..memory.resources import EMBEDDINGS_FILE
from ..results.fingerprint import first_difference
from .bundle import Bundle, BundleError
from .run_bundle import installed_packages

#: how long the rerun may take, unless told (--memeval-rerun-timeout)
DEFAULT_RERUN_TIMEOUT_S = 3600.0
#: options of the original run that name its outputs (value-taking options, written
#: `--opt=value` or `--opt value`), and flags that would write or compare files no bundle holds
OUTPUT_OPTIONS = (
    "--memeval-report",
    "--memeval-html",
    "--memeval-bundle",
    "--memeval-sign",
    "--memeval-baseline",
    "--junitxml",
    "--junit-xml",
)
OUTPUT_FLAGS = ("--memeval-resume", "--memeval-snapshot", "--snapshot-update")
#: options naming the original run's caches and inputs: a verifying rerun has its own
INPUT_OPTIONS = (
    "--memeval-llm-cache",
    "--memeval-llm-cache-file",
    "--memeval-cache-dir",
    "--memeval-data",
    "--memeval-adapter-config",
)
#: record fields that hold measured durations or what a cache answered: they differ between runs
_VOLATILE = ("llm_tokens", "context_fill")
#: the name of a replay miss in a record's reason (llm/caller.py, llm/gateway.py)
REPLAY_MISS = "replay cache miss"


class VerifyError(MemevalError):
    """The rerun does not reproduce the bundle, or could not be made: one line."""


@dataclass(frozen=True)
class Reproduced:
    records: int

    def line(self) -> str:
        return f"reproduced: {self.records} records, every metric equal"


def check_data(report: Mapping[str, Any], data_dir: Path | None) -> int:
    """Every data file the run read, found under `data_dir` with its recorded sha256; the
    number checked. A VerifyError names the first missing or changed file."""
    suites = ((report.get("fingerprint") or {}).get("protocol") or {}).get("suites") or {}
    files = {
        relative: digest
        for suite in suites.values()
        if isinstance(suite.get("data"), dict)
        for relative, digest in suite["data"].items()
    }
    if files and data_dir is None:
        raise VerifyError(
            f"the run read {len(files)} released data file{'s' if len(files) != 1 else ''} "
            f"({next(iter(sorted(files)))}, ...): give their directory with --memeval-data DIR"
        )
    for relative, digest in sorted(files.items()):
        assert data_dir is not None
        path = data_dir / relative
        if not path.is_file():
            raise VerifyError(f"data file {relative} is missing from {data_dir}")
        found = sha256_of(path)
        if found != digest:
            raise VerifyError(
                f"data file {relative} has changed: sha256 {found[:16]}..., the run read {digest[:16]}..."
            )
    return len(files)


def rerun_arguments(args: Sequence[str], dropped: Sequence[str], flags: Sequence[str] = OUTPUT_FLAGS) -> list[str]:
    """The original run's pytest arguments without the `dropped` options and the `flags`."""
    kept: list[str] = []
    skip_value = False
    for arg in args:
        if skip_value:
            skip_value = False
            continue
        name = arg.split("=", 1)[0]
        if name in flags:
            continue
        if name in dropped:
            skip_value = "=" not in arg
            continue
        kept.append(arg)
    return kept


def adapter_config_toml(adapter_settings: str) -> str:
    """The memory systems' settings a bundle keeps (JSON text), as an --memeval-adapter-config
    file; "" when there are none."""
    try:
        systems = json.loads(adapter_settings or "{}")
    except ValueError:
        raise BundleError("the bundle's adapter settings are not JSON") from None
    if not isinstance(systems, dict):
        raise BundleError("the bundle's adapter settings are not a JSON object")
    lines: list[str] = []
    for name, settings in sorted(systems.items()):
        lines.append(f"[{json.dumps(name)}]")
        lines += [f"{json.dumps(key)} = {_toml(value)}" for key, value in sorted(settings.items()) if value is not None]
    return "\n".join(lines) + "\n" if lines else ""


def _toml(value: Any) -> str:
    """A JSON value as TOML (a JSON string, number or boolean is one already)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items() if v is not None) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value)


def replay_bundle(bundle: Bundle, data_dir: Path | None, workdir: Path, timeout_s: float) -> dict[str, Any]:
    """Run the bundle's run again offline in the current directory, from its recording
    alone; the rerun's report."""
    cache_dir = workdir / "cache"
    calls = CallCache(workdir / "llm-calls.sqlite")
    try:
        calls.put_rows(bundle.calls)
    finally:
        calls.close()
    store_embedding_rows(cache_dir / EMBEDDINGS_FILE, bundle.embeddings)
    args = [
        *rerun_arguments([str(arg) for arg in bundle.run.get("args", [])], (*OUTPUT_OPTIONS, *INPUT_OPTIONS)),
        "--memeval-llm-cache=replay",
        f"--memeval-llm-cache-file={workdir / 'llm-calls.sqlite'}",
        f"--memeval-cache-dir={cache_dir}",
    ]
    if data_dir is not None:
        args.append(f"--memeval-data={data_dir}")
    config = adapter_config_toml(str(bundle.run.get("adapter_settings", "")))
    if config:
        (workdir / "adapters.toml").write_text(config, encoding="utf-8")
        args.append(f"--memeval-adapter-config={workdir / 'adapters.toml'}")
    return run_again(args, workdir, timeout_s)


def run_again(args: Sequence[str], workdir: Path, timeout_s: float) -> dict[str, Any]:
    """pytest with `args` in the current directory, its report written into `workdir`,
    without an API key in its environment and with Hugging Face offline; the report's JSON."""
    report = workdir / "rerun.json"
    log = workdir / "rerun.log"
    command = rerun_command(args, report)
    with open(log, "wb") as output:
        try:
            status = subprocess.run(
                command,
                stdout=output,
                stderr=subprocess.STDOUT,
                env=rerun_environment(),
                timeout=timeout_s,
                check=False,
            ).returncode
        except subprocess.TimeoutExpired:
            raise VerifyError(f"the rerun did not finish within {timeout_s:g} s (--memeval-rerun-timeout)") from None
    if not report.is_file():
        raise VerifyError(f"the rerun wrote no report (pytest exit status {status}): {_last_line(log)}")
    try:
        data = json_input.loads(read_text(report))
    except ValueError as exc:
        raise VerifyError(f"the rerun's report cannot be read: {exc}") from None
    if not isinstance(data, dict):
        raise VerifyError("the rerun's report is not a JSON object")
    return data


def rerun_command(args: Sequence[str], report: Path) -> list[str]:
    """The rerun's command line. The run's arguments already hold what its ini file's addopts
    and PYTEST_ADDOPTS gave (pytest's parsed arguments): `-o addopts=` keeps the ini file
    where verify runs from adding its own, rerun_environment() drops PYTEST_ADDOPTS."""
    return [
        sys.executable,
        "-m",
        "pytest",
        "-o",
        "addopts=",
        *args,
        f"--memeval-report={report}",
        "--memeval-html=none",
    ]


def rerun_environment() -> dict[str, str]:
    """This process's environment without an API key and PYTEST_ADDOPTS, with Hugging Face offline."""
    env = {name: value for name, value in os.environ.items() if name not in ("OPENAI_API_KEY", "PYTEST_ADDOPTS")}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    return env


def package_differences(run: Mapping[str, Any]) -> list[str]:
    """The installed packages whose version differs from the run's, `name here / there`."""
    recorded = run.get("packages") or {}
    here = installed_packages()
    return [
        f"{name} {here.get(name, 'absent')} here, {version} in the bundle"
        for name, version in sorted(recorded.items())
        if here.get(name) != version
    ]


def compare(published: Mapping[str, Any], rerun: Mapping[str, Any]) -> Reproduced:
    """The rerun against the bundle's report: a VerifyError for the first difference."""
    names = ("in the rerun", "in the bundle")
    records = {_identity(r): r for r in _list(published, "records")}
    again = {_identity(r): r for r in _list(rerun, "records")}
    for identity, record in again.items():
        if REPLAY_MISS in str(record.get("reason", "")):
            raise VerifyError(f"the recording misses a call of record {identity}: {record['reason']}")
    for error in _list(rerun, "session_errors"):
        if REPLAY_MISS in str(error):
            raise VerifyError(f"the recording misses a call: {error}")
    found = first_difference(rerun.get("fingerprint"), published.get("fingerprint"), names, "fingerprint")
    if found is not None:
        raise VerifyError(f"the rerun ran another protocol: {found}")
    for identity in records:
        if identity not in again:
            raise VerifyError(f"record {identity} is in the bundle, not in the rerun")
    for identity in again:
        if identity not in records:
            raise VerifyError(f"record {identity} is in the rerun, not in the bundle")
    for identity, record in records.items():
        found = first_difference(_lasting(again[identity]), _lasting(record), names)
        if found is not None:
            raise VerifyError(f"record {identity}: {found}")
    runs = {_run_name(r): r for r in _list(published, "runs")}
    runs_again = {_run_name(r): r for r in _list(rerun, "runs")}
    for name, run in runs.items():
        if name not in runs_again:
            raise VerifyError(f"run {name} is in the bundle, not in the rerun")
        metrics, metrics_again = run.get("metrics") or {}, runs_again[name].get("metrics") or {}
        for metric in [*metrics, *(m for m in metrics_again if m not in metrics)]:
            found = first_difference(metrics_again.get(metric), metrics.get(metric), names)
            if found is not None:
                raise VerifyError(f"run {name}, metric {metric}: {found}")
        found = first_difference(_lasting(runs_again[name]), _lasting(run), names)
        if found is not None:
            raise VerifyError(f"run {name}: {found}")
    return Reproduced(len(records))


def verify(bundle: Bundle, data_dir: Path | None, timeout_s: float = DEFAULT_RERUN_TIMEOUT_S) -> Reproduced:
    """Data files checked, the run rerun offline and compared (the bundle was read, so its
    manifest and signature hold)."""
    check_data(bundle.report, data_dir)
    with tempfile.TemporaryDirectory(prefix="memeval-verify-") as workdir:
        again = replay_bundle(bundle, data_dir, Path(workdir), timeout_s)
    return compare(bundle.report, again)


def _identity(record: Any) -> str:
    if not isinstance(record, dict):
        raise BundleError("a record of the report is not a JSON object")
    key = record.get("key") or {}
    label = " | ".join(str(key.get(part)) for part in ("suite", "memsystem", "responder", "judge"))
    repeat = f", repeat {record.get('repeat')}" if record.get("repeat") else ""
    return f"{record.get('id')} ({label} | k={key.get('k')}{repeat})"


def _run_name(run: Any) -> str:
    key = run.get("key") or {} if isinstance(run, dict) else {}
    return (
        " | ".join(str(key.get(part)) for part in ("suite", "memsystem", "responder", "judge")) + f" | k={key.get('k')}"
    )


def _lasting(value: Any, within: str = "") -> Any:
    """`value` without what differs between runs of one protocol: durations (`*_ms`,
    `latency`), what the caches answered, and the ids a memory system gives the memories it
    stores (mem0's are random UUIDs)."""
    if isinstance(value, dict):
        return {
            key: _lasting(item, key)
            for key, item in value.items()
            if not (
                key.endswith("_ms") or key == "latency" or key in _VOLATILE or (within == "memories" and key == "id")
            )
        }
    if isinstance(value, list):
        return [_lasting(item, within) for item in value]
    return value


def _list(report: Mapping[str, Any], name: str) -> list[Any]:
    value = report.get(name) or []
    if not isinstance(value, list):
        raise BundleError(f"the report's {name} is not a list")
    return value


def _last_line(log: Path) -> str:
    lines = [line for line in log.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
    return lines[-1].strip() if lines else "(no output)"
