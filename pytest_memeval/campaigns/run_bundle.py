"""The bundle of the run that just ended (--memeval-bundle), made on the controller once its
report is built: the report, the calls and embeddings the run's processes logged (llm/call_log.py)
copied out of the cache files, and what a rerun needs to run the same way."""

from __future__ import annotations

import hashlib
import json
import platform
import sys
from collections.abc import Mapping, Sequence
from importlib.metadata import distributions
from pathlib import Path
from typing import Any

from ..config.settings import Settings
from ..config.signing_keys import read_private_key
from ..errors import MemevalError
from ..llm.cache import CallCache
from ..llm.call_log import read_call_log
from ..memory.embedding_cache import embedding_rows
from ..memory.resources import EMBEDDINGS_FILE
from .bundle import Bundle, write_bundle

#: lock files a project may keep beside its tests; the sha256 of each present is recorded
LOCK_FILES = ("requirements.lock", "uv.lock", "poetry.lock", "pdm.lock", "Pipfile.lock")


def run_info(args: Sequence[str], rootdir: Path, report: Mapping[str, Any]) -> dict[str, Any]:
    """How the run was made: pytest's arguments as it parsed them (addopts included), its
    memory systems' settings, Python, every installed distribution's version, and the sha256
    of the lock files in the rootdir."""
    locks = {
        name: hashlib.sha256((rootdir / name).read_bytes()).hexdigest()
        for name in LOCK_FILES
        if (rootdir / name).is_file()
    }
    return {
        "args": list(args),
        "adapter_settings": adapter_settings_text(report),
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
        "platform": platform.platform(terse=True),
        "packages": installed_packages(),
        "locks": locks,
    }


def adapter_settings_text(report: Mapping[str, Any]) -> str:
    """Each memory system's settings (--memeval-adapter-config, secrets never included) as
    the report's fingerprint holds them, as JSON text: canonical JSON writes 600.0 as 600, and
    a memory system given an integer where its run had a float may send another request."""
    systems = ((report.get("fingerprint") or {}).get("systems") or {}).get("memsystems") or {}
    settings = {name: system.get("settings") or {} for name, system in systems.items()}
    return json.dumps({name: value for name, value in settings.items() if value}, sort_keys=True)


def installed_packages() -> dict[str, str]:
    """Every installed distribution's version, by its name in lower case."""
    found = {dist.metadata["Name"].lower(): dist.version for dist in distributions() if dist.metadata["Name"]}
    return dict(sorted(found.items()))


def make_bundle(report: dict[str, Any], settings: Settings, run: dict[str, Any], call_log: Path) -> Bundle:
    """The run's bundle: of the cache files, the rows its processes logged, and only those."""
    used = read_call_log(call_log)
    calls: list[Any] = []
    llm = settings.gateway
    if llm is not None and llm.cache_path is not None and used.llm:
        cache = CallCache(llm.cache_path, readonly=True)
        try:
            calls = cache.rows(used.llm)
        finally:
            cache.close()
    embeddings_path = settings.cache_dir / EMBEDDINGS_FILE
    embeddings = embedding_rows(embeddings_path, used.embeddings) if used.embeddings else []
    return Bundle(report, run, tuple(calls), tuple(embeddings))


def write_run_bundle(report: dict[str, Any], settings: Settings, run: dict[str, Any], call_log: Path) -> str | None:
    """Write --memeval-bundle (signed with --memeval-sign); a failure is one line, returned."""
    assert settings.bundle is not None
    try:
        bundle = make_bundle(report, settings, run, call_log)
        if settings.sign_key is not None:
            bundle = bundle.signed(read_private_key("--memeval-sign", settings.sign_key))
        write_bundle(settings.bundle, bundle)
    except OSError as exc:
        return f"--memeval-bundle: cannot write {settings.bundle}: {exc.strerror or exc}"
    except ValueError as exc:
        return f"--memeval-bundle: not written, {exc}"
    except MemevalError as exc:
        return str(exc)
    return None
