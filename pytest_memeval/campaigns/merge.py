"""Merging the reports of --memeval-shard jobs into the report of one run.

    python -m pytest_memeval merge SHARD.json... --memeval-report=run.json
        [--memeval-html=run.html] [--memeval-gate=EXPR]... [--memeval-baseline=PATH]

Every metric, interval, paired test, Holm family and gate is computed again from the union
of the shards' records, exactly as the run would have computed them (the shards' summaries
are never averaged); its gates are checked as the run checks its own, before anything is
written. The shards must be every shard 1/N .. N/N of one protocol, each once, each
record of an item and a run its fingerprint lists, with no item twice; each refusal is
one line. The options are the run's, by the same names. The suites are built from the
shards' settings to summarise (a suite that read --memeval-data needs that directory here,
or its copy's, with --memeval-data).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

from ..analysis.comparability import protocol_note
from ..analysis.session_report import SessionReport, SuiteLookup
from ..config.gate_syntax import parse_gates
from ..config.judge_specs import parse_judge
from ..config.option_values import cache_dir, readable_dir, readable_file, writable_file
from ..config.outputs import check_outputs, run_outputs
from ..config.prices import prices_from
from ..config.settings import Settings
from ..config.shard_syntax import Shard
from ..errors import ConfigError
from ..results.baseline import load_baseline
from ..results.fingerprint import Fingerprint
from ..results.reading import read_report
from ..results.records import ItemKey, Record, Report
from ..running.record_collector import group_by_run
from ..running.settings_checks import check_gates
from ..running.state import RunState, suite_target

WHERE = "merge"
#: the options a merge shares with the run, by the run's names
REPORT, HTML, GATE, BASELINE, DATA = (
    "--memeval-report",
    "--memeval-html",
    "--memeval-gate",
    "--memeval-baseline",
    "--memeval-data",
)


@dataclass(frozen=True)
class ShardReport:
    path: Path
    report: Report
    shard: Shard
    fingerprint: Fingerprint


def read_shards(paths: Sequence[Path]) -> list[ShardReport]:
    """The shards, checked: one protocol, every shard of N once, each record of a run its
    shard's fingerprint lists, no item twice."""
    shards = [_shard(path, read_report(path, WHERE)) for path in paths]
    first = shards[0]
    for other in shards[1:]:
        names = (f"in {first.path.name}", f"in {other.path.name}")
        difference = first.fingerprint.difference(other.fingerprint, names, shared_suites_only=True)
        if difference is not None:
            raise ConfigError(
                f"{WHERE}: {first.path} and {other.path} were run under different protocols: {difference}"
            )
        if other.shard.count != first.shard.count:
            raise ConfigError(f"{WHERE}: {first.path} is shard {first.shard}, {other.path} shard {other.shard}")
    by_index: dict[int, ShardReport] = {}
    for shard in shards:
        if shard.shard.index in by_index:
            twin = by_index[shard.shard.index]
            raise ConfigError(f"{WHERE}: {twin.path} and {shard.path} are both shard {shard.shard}")
        by_index[shard.shard.index] = shard
    missing = [str(Shard(i, first.shard.count)) for i in range(1, first.shard.count + 1) if i not in by_index]
    if missing:
        raise ConfigError(
            f"{WHERE}: shard {', '.join(missing)} missing (given: {', '.join(str(s.shard) for s in shards)})"
        )
    owners: dict[ItemKey, Path] = {}
    for shard in shards:
        _check_records(shard)
        for record in shard.report.records:
            owner = owners.setdefault(record.item_key, shard.path)
            if owner != shard.path:
                raise ConfigError(
                    f"{WHERE}: {owner} and {shard.path} both hold item {record.id} "
                    f"({record.key.label()}, repeat {record.repeat}): the shards overlap"
                )
    return sorted(shards, key=lambda s: s.shard.index)


def _check_records(shard: ShardReport) -> None:
    """Each record of a shard is of a suite, memory system and k its fingerprint lists, and
    of an item the shard holds once."""
    fingerprint = shard.fingerprint
    suites = {protocol.suite for protocol in fingerprint.suites}
    seen: set[ItemKey] = set()
    for record in shard.report.records:
        where = f"{WHERE}: {shard.path}: item {record.id} ({record.key.label()}, repeat {record.repeat})"
        if record.item_key in seen:
            raise ConfigError(f"{where} is there twice: the report was edited or damaged")
        seen.add(record.item_key)
        if record.key.memsystem not in fingerprint.systems:
            listed = ", ".join(fingerprint.systems) or "none"
            raise ConfigError(f"{where}: its fingerprint lists no memory system {record.key.memsystem!r} ({listed})")
        if record.key.suite not in suites:
            raise ConfigError(f"{where}: its fingerprint lists no suite {record.key.suite!r} ({', '.join(suites)})")
        if record.key.k not in fingerprint.ks:
            raise ConfigError(
                f"{where}: its fingerprint lists no k={record.key.k} ({', '.join(map(str, fingerprint.ks))})"
            )


def _shard(path: Path, report: Report) -> ShardReport:
    raw = report.settings.get("shard")
    if not isinstance(raw, str):
        raise ConfigError(f"{WHERE}: {path} is not the report of a shard (run it with --memeval-shard I/N)")
    if report.fingerprint is None:
        raise ConfigError(f"{WHERE}: {path} has no protocol fingerprint")
    try:
        shard = Shard.parse(raw)
    except ConfigError:
        raise ConfigError(f"{WHERE}: {path}: shard {raw!r} is not I/N") from None
    return ShardReport(path, report, shard, report.fingerprint)


def merged_settings(shards: Sequence[ShardReport], args: argparse.Namespace) -> Settings:
    """The run's settings as the shards recorded them, with the merge's files and gates."""
    return replace(
        recorded_settings(shards[0].report.settings, args.memeval_data, WHERE),
        report=writable_file(REPORT, args.memeval_report),
        baseline=readable_file(BASELINE, args.memeval_baseline),
        gates=parse_gates(args.memeval_gate, args.memeval_baseline),
        html=writable_file(HTML, args.memeval_html),
        any_protocol=bool(args.memeval_any_protocol),
    )


def recorded_settings(recorded: Mapping[str, Any], data: str | None, where: str) -> Settings:
    """A run's settings as its report recorded them (`settings_json`), without its output
    files and gates; `data`: this machine's copy of the run's --memeval-data (default: the
    directory it recorded, which must be here)."""
    data_dir = readable_dir(DATA, data) if data else _recorded_dir(recorded.get("data_dir"), where)
    seeds = recorded.get("seeds")
    return Settings(
        memsystems=tuple(recorded.get("memsystems") or ()),
        suites=tuple(recorded.get("suites") or ()),
        size=str(recorded.get("size", "smoke")),
        split=recorded.get("split"),
        seeds=tuple(seeds) if seeds else None,
        ks=tuple(recorded.get("k") or (10,)),
        responder=str(recorded.get("responder", "reader")),
        report=None,
        data_dir=data_dir,
        embedder=str(recorded.get("embedder", "")),
        cache_dir=cache_dir(None),
        bootstrap=int(recorded.get("bootstrap", 2000)),
        max_errors=int(recorded.get("max_errors", 0)),
        judges=tuple(parse_judge(str(judge)) for judge in recorded.get("judges") or ()),
        suite_params=recorded.get("suite_params") or {},
        repeats=int(recorded.get("repeat", 1)),
        record_memories=int(recorded.get("record_memories", 10)),
        gate_subset=str(recorded.get("gate_subset", "allow")),
        prices=prices_from(recorded["prices"], f"{where}: the report's prices") if recorded.get("prices") else {},
    )


def _recorded_dir(raw: Any, where: str) -> Path | None:
    if raw is None:
        return None
    path = Path(str(raw))
    if not path.is_dir():
        raise ConfigError(
            f"{where}: the run read --memeval-data {raw}, which is not here: give its copy with {DATA}=DIR"
        )
    return path


class Merged(NamedTuple):
    """The merged report, and the suites that summarised it (their figures go into the page)."""

    report: SessionReport
    suite: SuiteLookup


def merge(args: argparse.Namespace) -> Merged:
    """The merged report, before its files are written (rendering.session_output)."""
    shards = read_shards([Path(p) for p in args.shards])
    settings = merged_settings(shards, args)
    check_outputs(
        [
            *(("SHARD.json", f"the shard {shard.path}", shard.path) for shard in shards),
            *run_outputs(settings.report, settings.html, None, None),
        ]
    )
    targets = {record.key.suite: suite_target(record.suite_ref) for shard in shards for record in shard.report.records}
    check_gates(replace(settings, suites=tuple(targets)), targets, bundled_only=True)  # as the run checks its own
    fingerprint = shards[0].fingerprint
    for shard in shards[1:]:
        fingerprint = fingerprint.union(shard.fingerprint)
    notes = list(dict.fromkeys(note for shard in shards for note in shard.report.protocol_notes))
    baseline_records = None
    state = RunState(settings, {})
    if settings.baseline is not None:
        baseline = load_baseline(settings.baseline)
        suites = [state.suite(ref) for ref in sorted({r.suite_ref for s in shards for r in s.report.records})]
        note = protocol_note(baseline, fingerprint, settings.any_protocol, suites)
        notes += [note] if note is not None and note not in notes else []
        baseline_records = baseline.records
    records: list[Record] = [record for shard in shards for record in shard.report.records]
    report = SessionReport.build(
        settings,
        state.suite,
        group_by_run(records),
        baseline_records,
        list(dict.fromkeys(error for shard in shards for error in shard.report.session_errors)),
        (),
        suite_sizes([shard.report for shard in shards]),
        fingerprint,
        notes,
        {key: str(value) for key, value in (shards[0].report.settings.get("selection") or {}).items()},
    )
    return Merged(report, state.suite)


def suite_sizes(reports: Sequence[Report]) -> Any:
    """Items of each suite in the run's selection of data, as its reports recorded them
    (every report that covered part of a suite says of how many)."""
    names = {r.suite_ref: r.key.suite for report in reports for r in report.records}
    sizes: dict[str, int] = {}
    for report in reports:
        for run in report.runs:
            if run.subset is not None:
                sizes[run.key.suite] = max(sizes.get(run.key.suite, 0), run.subset.of)

    def size(suite_ref: str) -> int | None:
        return sizes.get(names.get(suite_ref, suite_ref))

    return size


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The run's options that a merge takes, by the run's names."""
    parser.add_argument("shards", nargs="+", metavar="SHARD.json", help="the JSON reports of every shard")
    parser.add_argument(REPORT, required=True, metavar="PATH", help="write the merged JSON report here")
    parser.add_argument(HTML, metavar="PATH", help="write the merged HTML report here")
    parser.add_argument(GATE, action="append", default=[], metavar="EXPR", help="a gate on the merged run, repeatable")
    parser.add_argument(BASELINE, metavar="PATH", help="an earlier report to pair the merged run with")
    parser.add_argument(
        "--memeval-any-protocol", action="store_true", help=f"compare with a {BASELINE} run under another protocol"
    )
    parser.add_argument(DATA, metavar="DIR", help="this machine's copy of the shards' --memeval-data")
