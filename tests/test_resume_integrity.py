"""A resumed journal holds this run's items only, of this run's shard, in this process.

The audit's cases: `--memeval-resume` took a journal line of another memory system, another
k or an unknown item id as one more record (a phantom run, `n_items 31` of 30), and a shard
resumed from an unsharded journal reported 26 records instead of its 24. Each is now a
refusal of one line that names the journal's line and changes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from harness import make_record, make_settings
from msgspec.structs import replace

from pytest_memeval.campaigns.campaign import Campaign
from pytest_memeval.config.outputs import journal_path
from pytest_memeval.config.shard_syntax import Shard
from pytest_memeval.errors import ConfigError
from pytest_memeval.results.records import Record
from pytest_memeval.running.record_collector import record_to_wire
from pytest_memeval.running.state import RunState

SUITE = "toysuite:ToySuite"


def _state(tmp_path: Path, **changes: Any) -> RunState:
    settings = make_settings("context", "none", report=tmp_path / "run.json", cache_dir=tmp_path / "cache", **changes)
    return RunState.from_settings(settings)


def _record(item: str = "ada-colour", **changes: Any) -> Record:
    return make_record(item, suite="toy", memsystem="context", suite_ref=SUITE, context=item.split("-")[0], **changes)


def _with_key(record: Record, **key: Any) -> Record:
    return replace(record, key=replace(record.key, **key))


def _interrupted_run(tmp_path: Path, *records: Any, **changes: Any) -> Path:
    """The journal of a run that received `records` and was stopped."""
    campaign = Campaign.open(_state(tmp_path, **changes), collect_only=False, bundled=False)
    for record in records:
        campaign.record_arrived(record)
    campaign.finish(complete=False)
    return journal_path(tmp_path / "run.json")


def _resume(tmp_path: Path, **changes: Any) -> Campaign:
    return Campaign.open(_state(tmp_path, resume=True, **changes), collect_only=False, bundled=False)


def test_a_journal_of_this_run_resumes(tmp_path: Path) -> None:
    records = [_record("ada-colour", correct=True), _record("ben-pet", correct=False)]
    _interrupted_run(tmp_path, *records)
    assert _resume(tmp_path).resumed == tuple(records)


@pytest.mark.parametrize(
    "foreign, reason",
    [
        (_with_key(_record(), memsystem="other"), "memory system 'other' is not in --memsystem (context, none)"),
        (_with_key(_record(), k=5), "k=5 is not in --memeval-k (10)"),
        (_record("zed-pet"), f"{SUITE} has no item 'zed-pet' in this run's selection of data"),
        (_record(repeat=1), "repeat 1 is beyond --memeval-repeat 1"),
    ],
    ids=["another-system", "another-k", "unknown-item", "another-repeat"],
)
def test_a_record_of_another_run_is_refused_naming_its_line(tmp_path: Path, foreign: Any, reason: str) -> None:
    path = _interrupted_run(tmp_path, _record("ada-colour", correct=True))
    with open(path, "a", encoding="utf-8") as journal:
        journal.write('{"record":' + record_to_wire(foreign) + "}\n")  # as Journal.append_record writes it
    before = path.read_bytes()
    with pytest.raises(ConfigError) as raised:
        _resume(tmp_path)
    number = len(before.decode().splitlines())
    assert str(raised.value) == (
        f"{path}: line {number}: a record of another run: {reason} (remove the journal to start over)"
    )
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    "written, resumed, words",
    [
        (None, Shard(1, 2), "was written by an unsharded run, this run is shard 1/2"),
        (Shard(1, 2), None, "was written by shard 1/2, this run is an unsharded run"),
        (Shard(1, 2), Shard(2, 2), "was written by shard 1/2, this run is shard 2/2"),
        (Shard(1, 2), Shard(1, 3), "was written by shard 1/2, this run is shard 1/3"),
    ],
)
def test_a_journal_of_another_shard_is_refused(
    tmp_path: Path, written: Shard | None, resumed: Shard | None, words: str
) -> None:
    path = _interrupted_run(tmp_path, _record(correct=True), shard=written)
    with pytest.raises(ConfigError) as raised:
        _resume(tmp_path, shard=resumed)
    assert str(raised.value) == (
        f"{path} {words}: resume with the same --memeval-shard, or remove the journal to start over"
    )


def test_a_shard_resumes_its_own_journal(tmp_path: Path) -> None:
    _interrupted_run(tmp_path, _record(correct=True), shard=Shard(2, 3))
    assert len(_resume(tmp_path, shard=Shard(2, 3)).resumed) == 1
