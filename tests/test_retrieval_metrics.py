"""Recall@k, NDCG@k and MRR: one item's retrieval scored against its gold evidence by hand,
and a run's metrics on LoCoMo's format (the generated sample) for the floor and the ceiling."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest
from harness import make_settings, suite_options
from msgspec.structs import replace

from pytest_memeval.analysis.retrieval_metrics import DIMENSION, retrieval_metrics, with_retrieval
from pytest_memeval.analysis.session_report import SessionReport
from pytest_memeval.framework.suite import ExactLabelJudge, Suite
from pytest_memeval.memory.context import ContextMemory
from pytest_memeval.memory.none import NoMemory
from pytest_memeval.protocols import MemorySystem, ResponseModel
from pytest_memeval.rendering.html import render_html
from pytest_memeval.rendering.terminal import suite_lines
from pytest_memeval.results.records import Record, Report, RunKey, SuiteSummary
from pytest_memeval.results.retrieval import RetrievalScore
from pytest_memeval.results.schema import SchemaError
from pytest_memeval.running.evaluation import Components, evaluate_items
from pytest_memeval.running.record_collector import record_from_wire, record_to_wire
from pytest_memeval.running.registry import available_suites, load_suite
from pytest_memeval.running.retrieval_scoring import score_retrieval, text_covers, words
from pytest_memeval.types import Answer, Evidence, ItemView, Memory, Message

GOLD = Evidence((Message("user", "I moved to Lima in May.", id="e1"), Message("user", "My cat is Nube.", id="e2")))


def sourced(*ids: str) -> Memory:
    return Memory(text="a memory", sources=ids)


def test_a_known_ranking_gives_the_ndcg_and_mrr_computed_by_hand() -> None:
    # ranks: 1 off, 2 e2, 3 e2 again (no new evidence), 4 e1; k = 4, two evidence messages
    ranking = [sourced("x"), sourced("e2"), sourced("e2"), sourced("e1")]
    score = score_retrieval(GOLD, ranking, k=4, keeps_sources=True)
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    ideal = 1 / math.log2(2) + 1 / math.log2(3)
    assert score.ndcg == pytest.approx(dcg / ideal)
    assert score.reciprocal_rank == pytest.approx(1 / 2)
    assert (score.found, score.evidence, score.recall) == (2, 2, 1.0)
    assert (score.memories, score.by_sources) == (4, 4)


def test_a_perfect_ranking_scores_one_and_an_empty_one_zero() -> None:
    perfect = score_retrieval(GOLD, [sourced("e1"), sourced("e2"), sourced("x")], k=3, keeps_sources=True)
    assert (perfect.ndcg, perfect.reciprocal_rank, perfect.recall) == (1.0, 1.0, 1.0)
    nothing = score_retrieval(GOLD, [], k=3, keeps_sources=True)
    assert (nothing.ndcg, nothing.reciprocal_rank, nothing.recall, nothing.memories) == (0.0, 0.0, 0.0, 0)


def test_half_the_evidence_found_at_rank_three() -> None:
    score = score_retrieval(GOLD, [sourced("a"), sourced("b"), sourced("e1")], k=3, keeps_sources=True)
    assert score.recall == 0.5
    assert score.reciprocal_rank == pytest.approx(1 / 3)
    assert score.ndcg == pytest.approx((1 / math.log2(4)) / (1 + 1 / math.log2(3)))


def test_without_provenance_a_memory_maps_by_text_overlap() -> None:
    rewritten = Memory(text="User moved to Lima (May).")  # 'moved', 'lima', 'may' of 'moved', 'lima', 'may'
    unrelated = Memory(text="User likes tea.")
    score = score_retrieval(GOLD, [unrelated, rewritten], k=2, keeps_sources=False)
    assert (score.found, score.reciprocal_rank, score.by_sources) == (1, 0.5, 0)
    # a system that does not declare keeps_sources is not mapped through the sources it sends
    assert score_retrieval(GOLD, [sourced("e1")], k=1, keeps_sources=False).found == 0


def test_the_text_overlap_rule_needs_half_the_messages_words() -> None:
    message = Message("user", "We adopted a grey kitten yesterday", id="m")
    assert words(message.content) == {"adopted", "grey", "kitten", "yesterday"}
    assert text_covers(words("a grey kitten!"), message)  # 2 of 4
    assert not text_covers(words("a kitten"), message)  # 1 of 4
    assert not text_covers(words("ok"), Message("user", "Ok.", id="short"))  # no word to compare


def test_a_score_round_trips_and_refuses_impossible_counts() -> None:
    score = RetrievalScore(evidence=2, found=1, ndcg=0.5, reciprocal_rank=1.0, memories=3, by_sources=3)
    assert RetrievalScore.from_json(score.to_json(), "r") == score
    with pytest.raises(ValueError, match="found <= evidence"):
        RetrievalScore(evidence=1, found=2, ndcg=0.5, reciprocal_rank=1.0, memories=3, by_sources=3)


def records_of(system: MemorySystem, name: str, cache: Path) -> list[Record]:
    return records_of_suite(load_suite(available_suites()["locomo"])(suite_options(cache, bootstrap=50)), system, name)


class Abstains:
    """A responder that reads nothing: for a suite whose reader costs seconds to build
    (multisource's fits its models), when only the retrieval is looked at."""

    def answer(self, view: ItemView, memories: list[Memory]) -> Answer:
        return Answer(label=None, abstained=True)


def records_of_suite(
    suite: Suite, system: MemorySystem, name: str, most: int | None = None, responder: ResponseModel | None = None
) -> list[Record]:
    # the exact-label judge: retrieval is scored before judging, and LoCoMo's F1 imports nltk (seconds)
    offline = Components.offline(suite, system, name, responder or suite.reader())
    parts = dataclasses.replace(offline, judge=ExactLabelJudge())
    ids = [entry.id for entry in suite.index()][:most]
    return list(evaluate_items(parts, ids, RunKey(suite.name, name, k=10)))


@pytest.fixture(scope="module")
def locomo_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Record]]:
    cache = tmp_path_factory.mktemp("cache")
    return {
        "context": records_of(ContextMemory(token_budget=10**9), "context", cache),
        "none": records_of(NoMemory(), "none", cache),
    }


def test_on_locomo_the_ceiling_recalls_all_evidence_and_the_floor_none(locomo_runs: dict[str, list[Record]]) -> None:
    ceiling, floor = (retrieval_metrics(locomo_runs[name], 50) for name in ("context", "none"))
    assert ceiling["recall_at_k"].value == 1.0 and floor["recall_at_k"].value == 0.0
    assert floor["mrr"].value == 0.0 and floor["ndcg_at_k"].value == 0.0
    assert ceiling["memories_mapped"].value == 1.0  # every memory of the ceiling names its turn
    assert floor["memories_mapped"].value is None  # no memory returned: no share
    with_evidence = [r for r in locomo_runs["context"] if r.retrieval is not None]
    assert with_evidence and ceiling["recall_at_k"].n == len(with_evidence)


def test_the_metrics_join_the_summary_per_stratum(locomo_runs: dict[str, list[Record]]) -> None:
    records = [r for r in locomo_runs["context"] if r.is_scored]
    summary = with_retrieval(SuiteSummary(metrics={}), records, 50)
    assert {"recall_at_k", "ndcg_at_k", "mrr", "memories_mapped"} <= set(summary.metrics)
    cells = summary.breakdown[DIMENSION + "category"]
    assert cells and all(cell.metrics["recall_at_k"].value == 1.0 for cell in cells.values())
    assert sum(cell.n for cell in cells.values()) == summary.metrics["recall_at_k"].n
    # the category's name groups the items as its number does: one dimension, not two
    assert DIMENSION + "category_name" not in summary.breakdown
    assert "items with gold evidence" in summary.note
    untouched = SuiteSummary(metrics={})
    assert with_retrieval(untouched, [_without_score(r) for r in records], 50) is untouched


def _without_score(record: Record) -> Record:
    return replace(record, retrieval=None)


def test_a_records_retrieval_travels_to_the_controller_and_back(locomo_runs: dict[str, list[Record]]) -> None:
    record = next(r for r in locomo_runs["context"] if r.retrieval is not None)
    assert record_from_wire(record_to_wire(record)) == record
    assert "retrieval" not in record_to_wire(replace(record, retrieval=None))
    bad = {**record.to_json(), "retrieval": {**record.to_json()["retrieval"], "found": 99}}
    with pytest.raises(SchemaError, match="retrieval"):
        Record.from_json(bad)


def test_the_three_reports_hold_the_metrics_with_their_intervals(
    locomo_runs: dict[str, list[Record]], tmp_path: Path
) -> None:
    suite = load_suite(available_suites()["locomo"])(suite_options(tmp_path, bootstrap=50))
    records = locomo_runs["context"]
    settings = make_settings("context", suites=("locomo",), bootstrap=50)
    report = SessionReport.build(settings, lambda ref: suite, {records[0].key: records}).report
    (run,) = report.runs
    assert run.metrics["recall_at_k"].value == 1.0
    assert run.metrics["recall_at_k"].no_interval.startswith("no variation")  # 1.0 everywhere
    low, mrr = run.metrics["mrr"].ci[0], run.metrics["mrr"].value
    assert low is not None and mrr is not None and low <= mrr
    terminal = "\n".join(suite_lines(report, "locomo", width=200))
    assert "recall_at_k" in terminal and "ndcg_at_k" in terminal and "memories_mapped" in terminal
    assert "retrieval by category" in terminal
    assert Report.from_json(json.loads(json.dumps(report.to_json()))).runs == report.runs
    page = render_html(report)
    assert "recall_at_k" in page and "retrieval by category" in page


def test_on_longmemeval_the_evidence_is_the_users_answer_turns(tmp_path: Path) -> None:
    suite = load_suite(available_suites()["longmemeval"])(suite_options(tmp_path, bootstrap=50))
    records = records_of_suite(suite, ContextMemory(token_budget=10**9), "context")
    items = {r.id: suite.item(r.id) for r in records}
    with_evidence = [r for r in records if items[r.id].evidence is not None]
    assert with_evidence and all(r.retrieval is not None for r in with_evidence)
    for record in with_evidence:
        evidence = items[record.id].evidence
        assert evidence is not None and evidence.ids == set(items[record.id].private["evidence_turns"])
        assert all(m.role == "user" for m in evidence.messages)
    abstentions = [r for r in records if items[r.id].private["abstention"]]
    assert abstentions and all(r.retrieval is None for r in abstentions)  # as the official recall
    assert retrieval_metrics(records, 50)["recall_at_k"].value == 1.0


def test_on_knowme_the_evidence_is_the_questions_units(tmp_path: Path) -> None:
    suite = load_suite(available_suites()["knowme"])(suite_options(tmp_path, bootstrap=50))
    records = records_of_suite(suite, ContextMemory(token_budget=10**9), "context", most=20)
    scored = [r for r in records if r.retrieval is not None]
    assert scored and retrieval_metrics(records, 50)["recall_at_k"].value == 1.0
    item = suite.item(scored[0].id)
    assert item.evidence is not None
    assert [m.content for m in item.evidence.messages] == item.private["evidence_texts"]


def test_on_memfail_the_evidence_is_the_messages_holding_the_facts(tmp_path: Path) -> None:
    suite = load_suite(available_suites()["memfail"])(suite_options(tmp_path, bootstrap=50))
    records = records_of_suite(suite, ContextMemory(token_budget=10**9), "context", most=20)
    assert all(r.retrieval is not None for r in records)
    assert retrieval_metrics(records, 50)["recall_at_k"].value == 1.0
    item = suite.item(records[0].id)
    pieces = [p["text"] for fact in item.private["facts"] for p in fact["pieces"]]
    assert item.evidence is not None
    assert all(any(text in m.content for m in item.evidence.messages) for text in pieces)


def test_on_multisource_the_evidence_is_the_windows_units_of_the_sources_that_answer(tmp_path: Path) -> None:
    suite = load_suite(available_suites()["multisource"])(suite_options(tmp_path, bootstrap=50))
    ceiling = records_of_suite(suite, ContextMemory(token_budget=10**9), "context", most=36, responder=Abstains())
    floor = records_of_suite(suite, NoMemory(), "none", most=36, responder=Abstains())
    assert all(r.retrieval is not None for r in ceiling + floor)
    assert retrieval_metrics(ceiling, 50)["recall_at_k"].value == 1.0
    assert retrieval_metrics(floor, 50)["recall_at_k"].value == 0.0
    week = suite.item(next(r.id for r in ceiling if r.id.endswith("-Ctrl2")))  # the last 7 nights
    assert week.evidence is not None
    days = {m.id.partition(" ")[2] for m in week.evidence.messages if m.id != "profile_ltm"}
    assert days == {f"2026-01-{day}" for day in range(26, 32)} | {"2026-02-01"}
    ref = suite.catalog.ref(week.context_id)
    readable = suite.catalog.facts([ref])[(ref.seed, ref.persona_id)].readable["Ctrl2"]
    assert readable and {m.id.partition(" ")[0] for m in week.evidence.messages} == set(readable)
