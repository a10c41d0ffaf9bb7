"""Computing a run's fingerprint (fingerprint.py) from its settings and suites.

Data files are hashed once per content: their sha256 is kept in the cache directory keyed
by path, size and modification time, so a 2 GB release is read once, not on every run.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..config.registry import Resolved
from ..config.settings import Settings
from ..suites.base import Suite
from .fingerprint import Fingerprint, SuiteProtocol, public_settings

DIGESTS_FILE = "data-sha256.json"
_CHUNK = 1 << 20


def run_fingerprint(
    settings: Settings, memsystems: Mapping[str, Resolved], suites: Iterable[Suite] = ()
) -> Fingerprint:
    """The fingerprint of a run with these settings, holding the protocol of each suite given
    (more are added with `Fingerprint.with_suite` as the run meets them)."""
    llm: dict[str, Any] = {}
    if settings.uses_llm and settings.llm is not None:
        llm = dict(settings.llm.output_params(), structured=settings.llm.structured)
    systems = {
        name: {
            "target": memsystems[name].target if name in memsystems else name,
            "settings": public_settings(settings.memsystem_config.get(name, {})),
        }
        for name in settings.memsystems
    }
    fingerprint = Fingerprint(
        responder=settings.responder,
        judges=tuple(str(judge) for judge in settings.judges),
        llm=llm,
        ks=settings.ks,
        systems=systems,
        embedder=settings.embedder,
    )
    for suite in suites:
        fingerprint = fingerprint.with_suite(suite_protocol(suite, settings))
    return fingerprint


def suite_protocol(suite: Suite, settings: Settings) -> SuiteProtocol:
    """What the suite contributes: its version, data files, settings and (with an LLM) prompts."""
    options = suite.options
    return SuiteProtocol(
        suite=suite.name,
        version=suite.protocol_version,
        size=options.size,
        split=options.split,
        seeds=options.seeds,
        params=dict(options.params),
        data=file_digests(suite.data_files(), options.data_dir, settings.cache_dir),
        prompts={path.stem: sha256_of(path) for path in suite.prompt_files()} if settings.uses_llm else {},
    )


def file_digests(paths: Sequence[Path], root: Path | None, cache_dir: Path) -> dict[str, str]:
    """sha256 of each file, keyed by its path under `root` (its name when outside it)."""
    if not paths:
        return {}
    known = _read_known(cache_dir)
    digests, changed = {}, False
    for path in paths:
        resolved = path.resolve()
        stat = resolved.stat()
        stamp = [stat.st_size, stat.st_mtime_ns]
        entry = known.get(str(resolved))
        if isinstance(entry, list) and entry[:2] == stamp and len(entry) == 3:
            digest = str(entry[2])
        else:
            digest = sha256_of(resolved)
            known[str(resolved)] = [*stamp, digest]
            changed = True
        digests[_relative(resolved, root)] = digest
    if changed:
        _write_known(cache_dir, known)
    return digests


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _relative(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return path.relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return path.name


def _read_known(cache_dir: Path) -> dict[str, Any]:
    try:
        data = json.loads((cache_dir / DIGESTS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):  # no cache yet, or a broken one: hash again
        return {}
    return data if isinstance(data, dict) else {}


def _write_known(cache_dir: Path, known: Mapping[str, Any]) -> None:
    """Atomically (several runs may share the cache); a cache that cannot be written only costs time."""
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        handle, partial = tempfile.mkstemp(dir=cache_dir, prefix=".data-sha256-")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(known, out)
        os.replace(partial, cache_dir / DIGESTS_FILE)
    except OSError:
        pass
