"""The journal: appended and fsynced line by line, resumed, and every refusal one line that
changes nothing."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from harness import bounded, make_record

from pytest_memeval.campaigns.journal import SYNC_EVERY_S, Journal, Resumed
from pytest_memeval.config.outputs import journal_path
from pytest_memeval.errors import ConfigError
from pytest_memeval.results.fingerprint import Fingerprint

FINGERPRINT = Fingerprint(responder="reader", ks=(10,), embedder="hashing")


def _accept(resumed: Resumed) -> None:
    return None


def _journal(tmp_path: Path, *records: object) -> Path:
    path = journal_path(tmp_path / "run.json")
    journal = Journal.start(path, FINGERPRINT)
    for record in records:
        journal.append_record(record)  # type: ignore[arg-type]
    journal.close()
    return path


def test_the_journal_sits_beside_the_report() -> None:
    assert journal_path(Path("/r/run.json")) == Path("/r/run.journal.jsonl")


def test_a_resumed_journal_gives_back_every_record_and_skips_only_finished_items(tmp_path: Path) -> None:
    scored = make_record("a", suite="toy", correct=True)
    invalid = make_record("b", suite="toy", status="invalid")
    failed = make_record("c", suite="toy", status="error", reason="rate limited")
    path = _journal(tmp_path, scored, invalid, failed)
    journal, resumed = Journal.resume(path, _accept)
    journal.close()
    assert resumed.fingerprint == FINGERPRINT
    assert resumed.records == (scored, invalid, failed)
    assert resumed.done() == {scored.item_key, invalid.item_key}  # the error runs again
    assert resumed.torn == ""


def test_a_later_record_of_an_item_replaces_the_earlier_one(tmp_path: Path) -> None:
    first = make_record("a", suite="toy", status="error", reason="rate limited")
    second = make_record("a", suite="toy", correct=True)
    journal, resumed = Journal.resume(_journal(tmp_path, first, second), _accept)
    journal.close()
    assert resumed.records == (second,)


def test_a_torn_last_line_is_set_aside_and_the_journal_goes_on(tmp_path: Path) -> None:
    kept = make_record("a", suite="toy", correct=True)
    path = _journal(tmp_path, kept)
    whole = path.read_bytes()
    with open(path, "ab") as handle:
        handle.write(b'{"record":{"id":"b","ke')
    journal, resumed = Journal.resume(path, _accept)
    assert resumed.records == (kept,)
    assert "last line was cut short (23 bytes" in resumed.torn and "\n" not in resumed.torn
    assert path.read_bytes() == whole
    assert (path.parent / "run.journal.jsonl.torn").read_bytes() == b'{"record":{"id":"b","ke\n'
    journal.append_record(make_record("b", suite="toy", correct=False))
    journal.close()
    assert [r.id for r in Journal.resume(path, _accept)[1].records] == ["a", "b"]


def test_a_damaged_line_before_the_last_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    path = _journal(tmp_path, make_record("a", suite="toy"))
    with open(path, "ab") as handle:
        handle.write(b"garbage\n")
        handle.write(path.read_bytes().splitlines(keepends=True)[1])
    before = path.read_bytes()
    with pytest.raises(ConfigError, match=r"line 3 is not JSON; the journal is damaged"):
        Journal.resume(path, _accept)
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    "line, message",
    [
        (b'{"record":{"id":"a","score":NaN}}', "line 2, column 29: NaN is not a number JSON allows"),
        (b'{"record":{"id":"a","score":-Infinity}}', "line 2, column 29: -Infinity is not a number JSON allows"),
        (b"[" * 200_000 + b"]" * 200_000, "line 2, column 200000: nested 200,000 levels deep, too deep to read"),
    ],
    ids=["NaN", "Infinity", "deep"],
)
def test_a_line_no_json_reader_takes_is_refused_naming_it(tmp_path: Path, line: bytes, message: str) -> None:
    """A NaN score resumed would fail the report at the end of every later run; nesting too
    deep was a RecursionError (pytest's INTERNALERROR)."""
    path = journal_path(tmp_path / "run.json")
    Journal.start(path, FINGERPRINT).close()
    with open(path, "ab") as handle:
        handle.write(line + b"\n")
    before = path.read_bytes()
    with pytest.raises(ConfigError) as refused:
        Journal.resume(path, _accept)
    assert str(refused.value) == f"{path}: {message}; the journal is damaged (remove it to start over)"
    assert path.read_bytes() == before


@pytest.mark.parametrize("resume", [False, True], ids=["start", "resume"])
def test_a_fifo_at_the_journals_path_is_refused_at_once(tmp_path: Path, resume: bool) -> None:
    path = journal_path(tmp_path / "run.json")
    os.mkfifo(path)
    error = bounded(10, lambda: Journal.resume(path, _accept) if resume else Journal.start(path, FINGERPRINT))
    assert isinstance(error, ConfigError), error
    assert str(error) == f"cannot open the journal {path}: not a regular file (a FIFO)"


def test_a_journal_of_another_protocol_is_refused_before_anything_changes(tmp_path: Path) -> None:
    path = _journal(tmp_path, make_record("a", suite="toy"))
    with open(path, "ab") as handle:
        handle.write(b'{"record":{"id":"b"')  # torn: would be set aside if the protocol matched
    before = path.read_bytes()

    def refuse(resumed: Resumed) -> None:
        raise ConfigError("another protocol")

    with pytest.raises(ConfigError, match="another protocol"):
        Journal.resume(path, refuse)
    assert path.read_bytes() == before
    assert not (path.parent / "run.journal.jsonl.torn").exists()


def test_a_journal_a_live_run_holds_is_refused_in_one_line(tmp_path: Path) -> None:
    path = journal_path(tmp_path / "run.json")
    live = Journal.start(path, FINGERPRINT)
    try:
        with pytest.raises(ConfigError) as held:
            Journal.resume(path, _accept)
        message = str(held.value)
        assert message.startswith(f"{path} is held by another live run (pid ") and "\n" not in message
        with pytest.raises(ConfigError, match="is held by another live run"):
            Journal.start(path, FINGERPRINT)
    finally:
        live.close()


def test_a_new_run_does_not_overwrite_an_unfinished_journal(tmp_path: Path) -> None:
    path = _journal(tmp_path, make_record("a", suite="toy"), make_record("b", suite="toy"))
    before = path.read_bytes()
    with pytest.raises(ConfigError) as refused:
        Journal.start(path, FINGERPRINT)
    assert str(refused.value) == (
        f"{path} holds 2 records of an unfinished run: pass --memeval-resume to continue it, "
        "or remove the file to start over"
    )
    assert path.read_bytes() == before


def test_a_finished_run_removes_its_journal(tmp_path: Path) -> None:
    path = journal_path(tmp_path / "run.json")
    journal = Journal.start(path, FINGERPRINT)
    journal.remove()
    assert not path.exists()
    Journal.start(path, FINGERPRINT).close()  # and the next run starts afresh


def test_records_are_fsynced_at_most_a_second_apart_and_on_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    syncs: list[float] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (syncs.append(time.monotonic()), real_fsync(fd)))
    path = journal_path(tmp_path / "run.json")
    journal = Journal.start(path, FINGERPRINT)
    assert len(syncs) == 1  # the header at once
    started = time.monotonic()
    for n in range(100):  # records written together do not wait for the disk one by one
        journal.append_record(make_record(f"r{n}", suite="toy"))
    assert time.monotonic() - started < SYNC_EVERY_S and len(syncs) == 1
    time.sleep(SYNC_EVERY_S)
    journal.append_record(make_record("late", suite="toy"))  # SYNC_EVERY_S after the last fsync
    assert len(syncs) == 2
    journal.close()
    assert len(syncs) == 3
    reopened, resumed = Journal.resume(path, _accept)
    reopened.close()
    assert len(resumed.records) == 101
