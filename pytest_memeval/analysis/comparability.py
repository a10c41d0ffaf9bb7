"""Whether two runs ran one protocol: a run's fingerprint (results/fingerprint.py holds the
value) computed from its settings and suites, another's read in the same terms, and the
note a comparison with a baseline of another protocol keeps (`protocol_note`).

Each value enters in one form per meaning, so that two spellings of one protocol give one
fingerprint: a suite's settings, seeds and split as the suite reads them (its
`protocol_params`, `protocol_seeds`, `protocol_split`), the judges as each suite's records
name them (`default` is the model its protocol names), the depths k sorted. Another
report's or a journal's fingerprint is read in the same terms before it is compared
(`in_terms_of`), which also reads a format-1 fingerprint, written with values as spelled.

Data files are hashed once per content: their sha256 is kept in the cache directory keyed
by path, size and modification time, so a 2 GB release is read once, not on every run.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..config.judge_specs import JudgeSpec, panel_members, parse_judge
from ..config.settings import Settings
from ..errors import ConfigError
from ..framework.suite import Suite
from ..memory.tokens import TOKENIZER
from ..results.baseline import Baseline
from ..results.fingerprint import Fingerprint, SuiteProtocol, public_settings
from ..running.registry import Resolved

ANY_PROTOCOL = "--memeval-any-protocol"
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
        llm=llm,
        ks=tuple(sorted(settings.ks)),  # every item runs at each depth: the order means nothing
        systems=systems,
        embedder=settings.embedder,
        token_budget={} if settings.token_budget is None else {"tokens": settings.token_budget, "tokenizer": TOKENIZER},
    )
    for suite in suites:
        fingerprint = fingerprint.with_suite(suite_protocol(suite, settings))
    return fingerprint


def suite_protocol(suite: Suite, settings: Settings) -> SuiteProtocol:
    """What the suite contributes: its version, data files, settings, judges and (with an
    LLM) prompts."""
    options = suite.options
    return SuiteProtocol(
        suite=suite.name,
        version=suite.protocol_version,
        size=options.size,
        split=suite.protocol_split(options.split),
        seeds=suite.protocol_seeds(options.seeds),
        params=suite.protocol_params(options.params),
        data=file_digests(suite.data_files(), options.data_dir, settings.cache_dir),
        prompts={path.stem: sha256_of(path) for path in suite.prompt_files()} if settings.uses_llm else {},
        judges=suite_judges(suite, settings.judges),
        errata=settings.errata.digest(suite.name) if settings.errata is not None else "",
    )


def suite_judges(suite: Suite, judges: Sequence[JudgeSpec]) -> tuple[str, ...]:
    """The judges that grade `suite`, as its records name them: MODEL@PROMPT where the suite
    names its judge prompts (`default` resolved to the protocol's model, a prompt left out
    to the suite's own), else MODEL; none for a suite graded deterministically."""
    if not judges or type(suite).llm_judge is Suite.llm_judge:
        return ()
    return tuple(member.name for member in panel_members(judges, suite.judge_prompts, suite.name))


def in_terms_of(fingerprint: Fingerprint, suites: Iterable[Suite]) -> Fingerprint:
    """`fingerprint` (another report's, a journal's) with the part of each of `suites` it
    holds read by that suite as this run reads its own: settings, seeds and split in one form,
    judges resolved; the depths sorted. A value this version refuses is kept as written, and
    so differs. Compare a fingerprint of this run with another only in these terms."""
    for suite in suites:
        protocol = fingerprint.suite(suite.name)
        if protocol is None:
            continue
        read = replace(
            protocol,
            split=suite.protocol_split(protocol.split),
            seeds=suite.protocol_seeds(protocol.seeds),
            params=suite.protocol_params(protocol.params),
            judges=tuple(_judge_name(name, suite) for name in protocol.judges)
            if type(suite).llm_judge is not Suite.llm_judge
            else (),
        )
        fingerprint = fingerprint.with_suite(read)
    return replace(fingerprint, ks=tuple(sorted(fingerprint.ks)))


def _judge_name(written: str, suite: Suite) -> str:
    """A judge as `suite`'s records name it, from a spec a format-1 fingerprint kept
    (`default`, `openai:MODEL@PROMPT`); a name already resolved is kept."""
    try:
        (member,) = panel_members((parse_judge(written),), suite.judge_prompts, suite.name)
    except ConfigError:
        return written
    return member.name


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


def protocol_note(
    baseline: Baseline, fingerprint: Fingerprint, any_protocol: bool, suites: Iterable[Suite] = ()
) -> str | None:
    """None when the baseline was run under this run's protocol (on the suites both ran);
    otherwise, with `any_protocol`, the one line the report keeps; without it a ConfigError
    naming the first difference. A report without a fingerprint is compared, and says so.
    `suites`: this run's, which read the baseline's part of each as they read this run's
    (`in_terms_of`: a spelled-out default is the default, also in a report of format 1)."""
    name = baseline.path.name
    if baseline.fingerprint is None:
        return f"--memeval-baseline: {name} has no protocol fingerprint (written before fingerprints): not checked"
    difference = fingerprint.protocol_difference(
        in_terms_of(baseline.fingerprint, suites), ("in this run", f"in {name}"), shared_suites_only=True
    )
    if difference is None:
        return None
    if not any_protocol:
        raise ConfigError(
            f"--memeval-baseline: {name} was run under another protocol: {difference} ({ANY_PROTOCOL} compares anyway)"
        )
    return f"--memeval-baseline: compared across protocols ({ANY_PROTOCOL}): {difference}"
