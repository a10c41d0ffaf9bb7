"""The controller's records on disk (results/record_spool.py): each record spooled as it
arrives and read back whole, in the report's order, while the controller keeps its
statistics view; the reports made from the spool are the reports made from the records in
memory. In this process, in milliseconds."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from harness import make_record, make_settings, suite_options
from msgspec.structs import replace
from toysuite import ToySuite

from pytest_memeval.analysis.session_report import SessionReport
from pytest_memeval.rendering.session_output import write_files
from pytest_memeval.rendering.terminal import overview_lines
from pytest_memeval.results.record_spool import RecordSpool, SpooledRecords, StatisticsViews
from pytest_memeval.results.records import Record, RecordedMemory
from pytest_memeval.running.record_collector import (
    RECORD_PROPERTY,
    RecordCollector,
    group_by_run,
    record_to_wire,
)

NAMES = ("ada", "bob", "cyd")
THINGS = ("pet", "car")


def run_records() -> list[Record]:
    """Two systems on the toy suite's six items, with the texts a reader reads: memories, the
    question, the judge's words, an invalid answer's raw text, an error."""
    records = []
    for system in ("context", "none"):
        for n, (name, thing) in enumerate((name, thing) for name in NAMES for thing in THINGS):
            status = "error" if (system, n) == ("none", 4) else "invalid" if (system, n) == ("none", 5) else "scored"
            scored = status == "scored"
            records.append(
                make_record(
                    f"{name}-{thing}",
                    suite="toy",
                    memsystem=system,
                    context=name,
                    cluster=name,
                    task=thing,
                    status=status,
                    strata={"thing": thing},
                    correct=(n % 3 != 0) if scored else None,
                    answer=f"{thing} of {name}" if scored else None,
                    reason="the adapter timed out" if status == "error" else "",
                    raw="{not json" if status == "invalid" else "",
                    question=f"What is the {thing} of {name}?",
                    judge_reason=f"gold {thing} of {name}",
                    answer_detail={"margin": n / 10, "atoms": {"diary": thing}},
                    memories=tuple(
                        RecordedMemory.of(f"The {t} of {name} is X{m}.", str(m)) for m, t in enumerate(THINGS)
                    ),
                    n_memories=2,
                )
            )
    return records


def teardown_report(record: Record, keywords: dict[str, int] | None = None) -> pytest.TestReport:
    nodeid = f"suites/test_toy.py::test_toy[{record.key.memsystem}-{record.id}]"
    properties = [("extra", 1), (RECORD_PROPERTY, record_to_wire(record))]
    return pytest.TestReport(
        nodeid, ("x", 1, "x"), keywords or {}, "passed", None, "teardown", user_properties=properties
    )


def collected(records: list[Record]) -> RecordCollector:
    """A collector that received `records` on teardown reports, in a shuffled order."""
    collector = RecordCollector()
    for record in random.Random(3).sample(records, len(records)):
        collector.pytest_runtest_logreport(teardown_report(record))
    return collector


def test_a_record_is_taken_off_its_report_and_comes_back_whole_in_the_reports_order() -> None:
    records = run_records()
    collector = RecordCollector()
    report = teardown_report(records[0])
    collector.pytest_runtest_logreport(report)
    assert report.user_properties == [("extra", 1)]  # the rest of the report is as it was
    for record in records[1:]:
        collector.pytest_runtest_logreport(teardown_report(record))

    for view in collector.records:  # what stays in memory: no text for a reader
        assert (view.memories, view.question, view.judge_reason, view.raw) == ((), "", "", "")
    ordered = [view for group in collector.by_run().values() for view in group]
    whole = collector.full_records(ordered)
    expected = [record for group in group_by_run(records).values() for record in group]
    assert isinstance(whole, SpooledRecords) and len(whole) == len(expected) == 12
    assert list(whole) == expected
    assert (whole[0], whole[-1], list(whole[3:5])) == (expected[0], expected[-1], expected[3:5])
    assert [replace(r, memories=(), question="", judge_reason="", raw="") for r in expected] == ordered
    collector.pytest_unconfigure()
    assert list(whole) == []  # the spool is gone with the session


def test_the_reports_made_from_the_spool_equal_those_made_from_the_records_in_memory(tmp_path: Path) -> None:
    records = run_records()
    suite = ToySuite(suite_options(tmp_path))
    settings = make_settings(
        "context", "none", suites=("toy",), report=tmp_path / "run.json", html=tmp_path / "run.html", max_errors=10
    )
    in_memory = SessionReport.build(settings, lambda ref: suite, group_by_run(records))
    write_files(in_memory, lambda ref: suite)
    files = [(tmp_path / name).read_bytes() for name in ("run.json", "run.html")]

    collector = collected(records)
    spooled = SessionReport.build(settings, lambda ref: suite, collector.by_run(), full_records=collector.full_records)
    write_files(spooled, lambda ref: suite)

    assert not in_memory.write_errors and not spooled.write_errors
    assert [(tmp_path / name).read_bytes() for name in ("run.json", "run.html")] == files
    assert b"What is the car of cyd?" in files[0] and b"gold pet of ada" in files[1]  # the texts are there
    assert spooled.report.runs == in_memory.report.runs
    assert spooled.exit_decision(1) == in_memory.exit_decision(1)
    assert overview_lines(spooled.report, {}, [], counted=spooled.counted) == overview_lines(in_memory.report, {}, [])


def test_earlier_records_of_a_resumed_run_are_spooled_unless_this_run_replaced_them() -> None:
    records = run_records()
    collector = RecordCollector()
    collector.earlier = tuple(records[:4])
    replaced = replace(records[1], correct=not records[1].correct)
    collector.pytest_runtest_logreport(teardown_report(replaced))
    kept = collector.kept_earlier()
    assert [r.id for r in kept] == [records[0].id, records[2].id, records[3].id]
    ordered = [view for group in collector.by_run().values() for view in group]
    expected = group_by_run([records[0], replaced, records[2], records[3]])
    assert list(collector.full_records(ordered)) == [record for group in expected.values() for record in group]


def test_statistics_views_share_equal_values_and_keep_json_types_apart() -> None:
    views = StatisticsViews()
    a = views.of(make_record("a", strata={"type": "A"}, gold=True, detail={"x": 1}))
    b = views.of(make_record("b", strata={"type": "A"}, gold=1, detail={"x": True}))
    c = views.of(make_record("c", strata={"type": "A"}, gold=1.0, detail={"x": 1}))
    assert a.key is b.key and a.strata is b.strata is c.strata and a.detail is c.detail
    assert (a.gold, b.gold, c.gold) == (True, 1, 1.0)
    assert (type(a.gold), type(b.gold), type(c.gold)) == (bool, int, float)
    assert b.detail["x"] is True and c.detail["x"] == 1 and type(c.detail["x"]) is int


def test_the_reports_of_an_item_share_one_dict_of_keywords() -> None:
    record = run_records()[0]
    collector = RecordCollector()
    reports = []
    for when in ("setup", "call", "teardown"):
        report = teardown_report(record, {"test_toy[x]": 1, "toy_pet": 1, "suites": 1})
        report.when = when
        collector.pytest_runtest_logreport(report)
        reports.append(report)
    assert reports[0].keywords is reports[1].keywords is reports[2].keywords
    assert reports[2].keywords == {"test_toy[x]": 1, "toy_pet": 1, "suites": 1}


def test_a_spool_reads_back_what_was_appended_and_removes_its_file() -> None:
    spool = RecordSpool()
    assert list(spool.read([])) == [] and len(spool) == 0
    records = run_records()[:3]
    positions = [spool.append(record_to_wire(record)) for record in records]
    assert positions == [0, 1, 2]
    assert list(spool.read([2, 0, 2])) == [records[2], records[0], records[2]]
    spool.remove()
    spool.remove()
    assert list(spool.read([0])) == []
