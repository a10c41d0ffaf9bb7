"""The report's one declared schema (results/schema.py): read typed from the text, written
from the fields, the same bytes after a round trip, and one line for what does not fit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_memeval.errors import ConfigError
from pytest_memeval.results.reading import read_report
from pytest_memeval.results.records import (
    Metric,
    Record,
    Report,
    ReportDocument,
    RunKey,
    RunSummary,
    SuiteSummary,
    report_chunks,
)
from pytest_memeval.results.schema import SchemaError, decode, to_builtins
from pytest_memeval.running.record_collector import record_from_wire, record_to_wire

KEY = RunKey("toy", "context")


def _record(item: str, **fields: object) -> Record:
    values: dict[str, object] = {"correct": True, "score": 1.0, **fields}
    return Record(item, KEY, "toy", "c", "c", "t", "scored", **values)  # type: ignore[arg-type]


def _report(*records: Record) -> Report:
    run = RunSummary.of(KEY, records, SuiteSummary({"accuracy": Metric(1.0, (0.5, 1.0), len(records))}))
    return Report({"seed": 1}, (run,), records)


@pytest.mark.parametrize("count", [0, 1, 3])
def test_the_report_is_written_in_pieces_as_json_dumps_writes_the_whole(count: int) -> None:
    report = _report(*(_record(f"q{i}", answer="é\u2028\ud800", detail={"x": [1, {"y": None}]}) for i in range(count)))
    whole = json.dumps(to_builtins(ReportDocument.of(report)), indent=1, sort_keys=True, allow_nan=False) + "\n"
    assert "".join(report_chunks(report)) == whole


def test_a_report_read_and_written_again_is_the_same_bytes(tmp_path: Path) -> None:
    """An integer score stays an integer (the schema's Number), a lone surrogate of a model's
    answer reads back (msgspec refuses it; the standard library's reader takes it)."""
    path = tmp_path / "report.json"
    path.write_text("".join(report_chunks(_report(_record("a", score=100), _record("b", answer="\ud800")))))
    again = "".join(report_chunks(read_report(path, "--memeval-baseline")))
    assert again == path.read_text()
    record = record_from_wire(record_to_wire(_record("c", score=100)))
    assert record.score == 100 and isinstance(record.score, int)


def test_an_unknown_field_is_one_line_naming_the_field_and_the_record(tmp_path: Path) -> None:
    data = json.loads("".join(report_chunks(_report(_record("a"), _record("b")))))
    data["records"][1]["colour"] = "red"
    path = tmp_path / "report.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ConfigError) as raised:
        read_report(path, "--memeval-baseline")
    assert str(raised.value) == f"--memeval-baseline: {path}: records[1] (id b): unknown field 'colour'"
    del data["records"][1]["colour"]
    data["colour"] = "red"
    path.write_text(json.dumps(data))
    with pytest.raises(ConfigError) as raised:
        read_report(path, "--memeval-baseline")
    assert str(raised.value) == f"--memeval-baseline: {path}: unknown field 'colour'"


@pytest.mark.parametrize(
    "change, message",
    [
        ({"correct": "false"}, "records[0] (id a): correct must be boolean or null, got 'false'"),
        ({"score": "1"}, "records[0] (id a): score must be a number or null, got '1'"),
        ({"status": "maybe"}, "records[0] (id a): status 'maybe' is not one of scored, invalid, error"),
        ({"strata": {"x": 1}}, "records[0] (id a): strata must map names to strings"),
        ({"memories": [{"text": 3}]}, "records[0] (id a): memories[0]: text must be string, got 3"),
        ({"key": None}, "records[0] (id a): key: expected an object, got null"),
    ],
)
def test_a_field_that_does_not_fit_is_one_line_naming_it(change: dict[str, object], message: str) -> None:
    data = json.loads("".join(report_chunks(_report(_record("a")))))
    data["records"][0].update(change)
    with pytest.raises(SchemaError) as raised:
        decode(json.dumps(data), ReportDocument)
    assert str(raised.value) == message


def test_a_missing_field_and_an_unknown_schema_are_named() -> None:
    with pytest.raises(SchemaError, match=r"^records\[0\] \(id a\): lacks 'key'$"):
        decode('{"schema": "memeval-report/2", "records": [{"id": "a"}]}', ReportDocument)
    with pytest.raises(SchemaError, match="schema 'memeval-report/3' is not 'memeval-report/2'"):
        decode('{"schema": "memeval-report/3"}', ReportDocument)


def test_a_report_of_the_first_schema_2_version_still_reads() -> None:
    """tests/data/html_report.json was written when memeval-report/2 began (47df5a9): its runs
    lack the fields added since (sample, incomplete, labels, n_clusters), which read as their
    defaults."""
    path = Path(__file__).parent / "data" / "html_report.json"
    report = read_report(path, "--memeval-baseline")
    assert len(report.records) == 40
    assert all(run.sample == "" and run.incomplete == "" for run in report.runs)
