"""--memeval-oracle: each item answered from a store of the sessions holding its gold evidence,
a run of its own ("SYSTEM+oracle") paired with the system's on the same items."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from harness import make_settings, suite_options

from pytest_memeval.analysis.session_report import SessionReport
from pytest_memeval.framework.suite import ExactLabelJudge, Suite
from pytest_memeval.memory.context import ContextMemory
from pytest_memeval.results.records import Record, RunKey
from pytest_memeval.running.evaluation import Components, evaluate_items
from pytest_memeval.running.oracle import oracle_context, oracle_namespace
from pytest_memeval.running.registry import available_suites, load_suite
from pytest_memeval.running.scheduling import groups_by_params
from pytest_memeval.types import Context, Evidence, Item, ItemView, Message

SESSIONS = tuple(tuple(Message("user", f"turn {s}.{t}", id=f"D{s}:{t}") for t in range(3)) for s in range(4))


def item(*evidence_ids: str) -> Item:
    by_id = {m.id: m for session in SESSIONS for m in session}
    evidence = Evidence(tuple(by_id[i] for i in evidence_ids)) if evidence_ids else None
    return Item("q", "conv", "conv", ItemView("s", "open", "?"), gold="x", evidence=evidence)


def test_the_oracle_stores_the_sessions_holding_the_evidence_in_their_order() -> None:
    context = Context("conv", SESSIONS)
    held = oracle_context(context, item("D3:0", "D1:2").evidence)
    assert held.sessions == (SESSIONS[1], SESSIONS[3])
    assert oracle_context(context, None).sessions == ()


def test_items_with_the_same_evidence_share_a_store_and_no_other() -> None:
    same = oracle_namespace("s", item("D1:0", "D3:0")), oracle_namespace("s", item("D3:0", "D1:0"))
    other = oracle_namespace("s", item("D1:0"))
    assert same[0] == same[1] and other != same[0]
    assert "D1" not in same[0] and "conv" not in same[0]  # opaque, as every namespace


def test_the_settings_add_each_systems_oracle_run() -> None:
    assert make_settings("chroma", "context", oracle=True).systems == (
        "chroma",
        "context",
        "chroma+oracle",
        "context+oracle",
    )
    assert make_settings("chroma").systems == ("chroma",)


def test_oracle_items_of_a_context_are_scheduled_together_apart_from_the_systems(tmp_path: Path) -> None:
    suite = load_suite(available_suites()["locomo"])(suite_options(tmp_path))
    index = suite.index()
    groups = groups_by_params({"locomo": index}, ("context", "context+oracle"), (10,), lambda ref: True)
    first = index[0]
    same_context = [e for e in index if e.context_id == first.context_id]
    oracle_groups = {groups[f"{e.id}-context+oracle"] for e in same_context}
    assert len(oracle_groups) == 1 and oracle_groups != {groups[f"{first.id}-context"]}


def locomo_records(suite: Suite, oracle: bool) -> list[Record]:
    offline = Components.offline(suite, ContextMemory(token_budget=10**9), "context", suite.reader())
    parts = dataclasses.replace(offline, judge=ExactLabelJudge(), oracle=oracle)
    name = "context+oracle" if oracle else "context"
    return list(evaluate_items(parts, [e.id for e in suite.index()], RunKey("locomo", name, k=10)))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Suite, list[Record], list[Record]]:
    suite = load_suite(available_suites()["locomo"])(suite_options(tmp_path_factory.mktemp("c"), bootstrap=50))
    return suite, locomo_records(suite, False), locomo_records(suite, True)


def test_an_oracle_item_retrieves_from_its_evidence_sessions_alone(
    runs: tuple[Suite, list[Record], list[Record]],
) -> None:
    suite, normal, oracle = runs
    assert [r.id for r in normal] == [r.id for r in oracle]
    for whole, only in zip(normal, oracle, strict=True):
        item = suite.item(only.id)
        expected = oracle_context(suite.context(item.context_id), item.evidence)
        assert only.n_memories == sum(len(session) for session in expected.sessions)
        assert only.n_memories < whole.n_memories
        assert only.retrieval is not None and only.retrieval.recall == 1.0


def test_the_oracle_run_is_paired_with_the_systems_run(
    runs: tuple[Suite, list[Record], list[Record]],
) -> None:
    suite, normal, oracle = runs
    settings = make_settings("context", suites=("locomo",), bootstrap=50, oracle=True)
    grouped = {normal[0].key: normal, oracle[0].key: oracle}
    report = SessionReport.build(settings, lambda ref: suite, grouped).report
    (comparison,) = report.comparisons
    assert {comparison.a.memsystem, comparison.b.memsystem} == {"context", "context+oracle"}
    assert comparison.n_paired == len(normal) and comparison.metrics
    assert report.settings["oracle"] is True
