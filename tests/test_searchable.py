"""Time to searchable (--memeval-searchable): a store that indexes D seconds after ingest is
found after D (within 10%); one that never indexes is a counted error at the deadline, not a
hang. The probe's schedule is tested on a simulated clock (milliseconds); the runner, the
session report and the tables with stand-in stores (tests/slow_index.py) in this process,
and one pytest run shows it in the terminal and the JSON report."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from harness import CommandLine, make_record, make_settings, option_defaults, suite_options
from slow_index import IndexesAfter, NeverIndexes
from toysuite import ToySuite

from pytest_memeval.analysis.session_report import SessionReport
from pytest_memeval.analysis.usage_totals import run_usage
from pytest_memeval.config.options import read_settings
from pytest_memeval.protocols import MemorySystem
from pytest_memeval.rendering.usage_table import usage_rows
from pytest_memeval.results.records import Record, Report, RunKey
from pytest_memeval.running.adapter_guard import AdapterGuard
from pytest_memeval.running.evaluation import Components, evaluate_items
from pytest_memeval.running.prefetch import Fill, Prefetcher, Stage
from pytest_memeval.running.runner import ContextFiller
from pytest_memeval.running.searchable import Fact, fact_of, time_to_searchable
from pytest_memeval.types import Memory, Message


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        assert seconds > 0
        self.now += seconds


class SimulatedIndex:
    """Holds the ingested message, searchable `delay_s` after ingest (never with None)."""

    def __init__(self, clock: Clock, message: Message, delay_s: float | None) -> None:
        self.clock, self.message, self.delay_s = clock, message, delay_s
        self.ingested = clock()

    def retrieve(self, query: str) -> Sequence[Memory]:
        if self.delay_s is None or self.clock() - self.ingested < self.delay_s:
            return [Memory("something else")]
        return [Memory(f"[2024-05-01] user:  {self.message.content}")]


MESSAGE = Message("user", "I moved to  Lisbon in May.")


@pytest.mark.parametrize("delay_s", [0.5, 2.0, 30.0, 120.0])
def test_a_store_that_indexes_after_d_seconds_is_found_after_d_within_10_percent(delay_s: float) -> None:
    clock = Clock()
    store = SimulatedIndex(clock, MESSAGE, delay_s)
    found = time_to_searchable(store.retrieve, Fact(MESSAGE), deadline_s=300.0, clock=clock, sleep=clock.sleep)
    assert found.seconds is not None
    assert delay_s <= found.seconds <= delay_s * 1.1
    assert found.polls < 150


def test_a_store_that_never_indexes_is_a_miss_at_the_deadline() -> None:
    clock = Clock()
    store = SimulatedIndex(clock, MESSAGE, None)
    missed = time_to_searchable(store.retrieve, Fact(MESSAGE), deadline_s=60.0, clock=clock, sleep=clock.sleep)
    assert missed.seconds is None
    assert clock.now == pytest.approx(60.0) and missed.polls < 150


def test_the_fact_is_the_last_message_with_text_found_by_its_id_its_text_or_for_a_rewriting_system_as_new() -> None:
    session = [Message("user", "I moved to Lisbon.", id="D1:1"), Message("assistant", "  ", id="D1:2")]
    asked: list[str] = []

    def before(query: str) -> list[Memory]:
        asked.append(query)
        return [Memory("User lives in Porto")]

    kept = fact_of(session, rewrites=False, retrieve=before)
    assert kept == Fact(session[0]) and asked == []  # a store that keeps text needs no look before
    assert kept.held_by([Memory("x"), Memory("user: I moved to\nLisbon. (May)")])
    assert kept.held_by([Memory("moved", sources=("D1:1",))])
    assert not kept.held_by([Memory("I moved to Lisbon")])
    rewritten = fact_of(session, rewrites=True, retrieve=before)
    assert rewritten == Fact(session[0], frozenset({"User lives in Porto"})) and asked == ["I moved to Lisbon."]
    assert not rewritten.held_by([Memory("User lives in Porto")])
    assert rewritten.held_by([Memory("User lives in Porto"), Memory("User moved to Lisbon")])
    assert fact_of([Message("user", " ")], rewrites=False, retrieve=before) is None


KEY = RunKey("toy", "slow", "reader", "deterministic", 10)
ITEMS = ("ada-colour", "ada-city", "ben-pet")  # two contexts of one session each


def _run(system: MemorySystem, deadline_s: float, tmp_path: Path) -> tuple[ToySuite, list[Record]]:
    suite = ToySuite(suite_options(tmp_path))
    parts = Components.offline(suite, system, "slow", suite.reader())
    filler = ContextFiller(AdapterGuard("slow"), system, searchable_deadline_s=deadline_s)
    return suite, list(evaluate_items(dataclasses.replace(parts, filler=filler), ITEMS, KEY))


def _session(suite: ToySuite, records: list[Record]) -> SessionReport:
    return SessionReport.build(make_settings("slow", suites=("toy",)), lambda ref: suite, {KEY: records})


def test_the_runner_measures_the_time_to_searchable_a_store_was_built_with(tmp_path: Path) -> None:
    delay_s = 0.6
    suite, records = _run(IndexesAfter(delay_s), deadline_s=10.0, tmp_path=tmp_path)
    # each context's first item filled it: one session, one timing; the items after it none
    assert [len(r.searchable_ms) for r in records] == [1, 0, 1]
    assert all(r.correct for r in records)  # asked once the store had indexed
    session = _session(suite, records)
    latency = session.report.usage[KEY].latency["searchable"]
    assert latency.n == 2
    assert delay_s * 1000 <= latency.p50 <= latency.p95 <= delay_s * 1000 * 1.1
    assert session.n_errors == 0
    assert dict(usage_rows(session.report, session.report.runs))["searchable ms p50/95/99"][0].endswith("(2)")


def test_a_store_that_never_indexes_is_a_counted_error_within_the_deadline(tmp_path: Path) -> None:
    deadline_s = 0.25
    started = time.monotonic()
    suite, records = _run(NeverIndexes(), deadline_s=deadline_s, tmp_path=tmp_path)
    assert time.monotonic() - started < 2 * deadline_s + 1.0  # two sessions, each given up at its deadline
    assert [r.searchable_ms for r in records] == [(None,), (), (None,)]
    assert all(r.status == "scored" for r in records)  # the items themselves still ran
    session = _session(suite, records)
    usage = session.report.usage[KEY]
    assert usage.not_searchable == 2 and "searchable" not in usage.latency
    assert session.n_errors == 2
    assert session.errors_text() == "2 sessions not searchable by the deadline"
    decision = session.exit_decision(pytest.ExitCode.TESTS_FAILED)
    assert decision.status == pytest.ExitCode.TESTS_FAILED and "not searchable" in decision.why
    assert dict(usage_rows(session.report, session.report.runs))["not searchable by deadline"] == ["2"]
    read = Report.from_json(json.loads(json.dumps(session.report.to_json())))
    assert read.usage[KEY].not_searchable == 2
    assert {r.id: r.searchable_ms for r in read.records}["ben-pet"] == (None,)


class RewritesAfter(IndexesAfter):
    """Stores what it made of each message (its words upper-cased), searchable after 0.2 s."""

    rewrites_messages = True

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        return [Memory(f"NOTE: {memory.text.upper()}") for memory in super().retrieve(namespace, query, k)]


def test_a_system_that_rewrites_what_it_stores_is_found_by_a_memory_new_since_the_ingest(tmp_path: Path) -> None:
    suite = ToySuite(suite_options(tmp_path))
    system = RewritesAfter(0.2)
    parts = Components.offline(suite, system, "slow", suite.reader())
    filler = ContextFiller(AdapterGuard("slow"), system, searchable_deadline_s=10.0)
    (record,) = evaluate_items(dataclasses.replace(parts, filler=filler), ITEMS[:1], KEY)
    (found,) = record.searchable_ms
    assert found is not None and 200 <= found <= 220


def test_without_the_option_nothing_is_probed(tmp_path: Path) -> None:
    suite = ToySuite(suite_options(tmp_path))
    parts = Components.offline(suite, NeverIndexes(), "slow", suite.reader())
    records = list(evaluate_items(parts, ITEMS[:1], KEY))
    assert records[0].searchable_ms == ()
    usage = run_usage(records, {})
    assert usage is not None and usage.not_searchable == 0 and "searchable" not in usage.latency


def test_a_suite_that_writes_while_an_item_runs_is_not_probed() -> None:
    """An interactive suite (bayes, halumem) calls `ingest` itself: its item's answer time
    must not hold the probe's wait."""
    filler = ContextFiller(AdapterGuard("slow"), NeverIndexes(), searchable_deadline_s=30.0)
    memory = filler.bind("ns")
    started = time.monotonic()
    memory.ingest([MESSAGE])
    assert memory.searchable_ms == [] and time.monotonic() - started < 5.0


def test_a_context_filled_ahead_hands_its_timings_to_its_first_item() -> None:
    prefetcher = Prefetcher({})
    stage = Stage("toy", "ada", "slow", 10)
    prefetcher.filled_ahead(stage, "ns", Fill({}, (3.0,), (250.0, None)))
    arrived = prefetcher.arrived(stage)
    assert (arrived.ingest_ms, arrived.searchable_ms) == ((3.0,), (250.0, None))
    assert prefetcher.arrived(stage) == Fill({})  # paid once


def test_the_percentiles_pool_what_each_record_found_and_count_what_it_did_not() -> None:
    records = [
        make_record("a", searchable_ms=(10.0, None, 30.0)),
        make_record("b", searchable_ms=(20.0,)),
        make_record("c", status="error", reason="failed later", searchable_ms=(None,)),
    ]
    usage = run_usage(records, {})
    assert usage is not None
    assert (usage.latency["searchable"].n, usage.latency["searchable"].p50) == (3, 20.0)
    assert usage.not_searchable == 2


def test_the_probe_is_off_unless_asked_and_waits_60_seconds_by_default(
    pytestconfig: pytest.Config, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MEMEVAL_CACHE_DIR", str(tmp_path))
    defaults = option_defaults(pytestconfig)

    def deadline(*args: str) -> float | None:
        return read_settings(CommandLine(defaults, ["--memsystem=context", *args]), ("toy",)).searchable_deadline_s

    assert deadline() is None
    assert deadline("--memeval-searchable") == 60.0
    assert deadline("--memeval-searchable", "--memeval-searchable-deadline=2.5") == 2.5


@pytest.mark.slow
def test_a_run_shows_the_time_to_searchable_in_the_terminal_and_the_json(toy_pytester: pytest.Pytester) -> None:
    report = toy_pytester.path / "report.json"
    systems = "--memsystem=slow_index:IndexesAfter,slow_index:NeverIndexes"
    probe = ("--memeval-searchable", "--memeval-searchable-deadline=1")
    result = toy_pytester.runpytest_subprocess(
        "test_toy.py", "-k", "ada", systems, *probe, f"--memeval-report={report}"
    )
    output = result.stdout.str()
    assert "searchable ms p50/95/99" in output and "not searchable by deadline" in output
    assert "memeval: 1 session not searchable by the deadline (--memeval-max-errors=0): the run fails" in output
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    data = json.loads(report.read_text())
    usage = {entry["key"]["memsystem"]: entry for entry in data["usage"]}
    found = usage["slow_index:IndexesAfter"]["latency"]["searchable"]
    assert found["n"] == 1 and 300 <= found["p50"] <= 330  # the store's default delay, 0.3 s
    assert usage["slow_index:NeverIndexes"]["not_searchable"] == 1
    assert data["settings"]["searchable_deadline_s"] == 1.0
    page = report.with_suffix(".html").read_text(encoding="utf-8")
    assert "searchable ms p50/95/99" in page and "not searchable by deadline" in page
