"""memfail's staged attribution, verdicts, metrics and figures on hand-worked cases."""

from __future__ import annotations

import pytest
from harness import make_record
from pytest_memeval.suites.memfail.attribution import attribute
from pytest_memeval.suites.memfail.figures import memfail_figures
from pytest_memeval.suites.memfail.judge import MemfailJudge
from pytest_memeval.suites.memfail.model import Fact, Piece
from pytest_memeval.suites.memfail.summary import clustered_wilson, compare, summarize

from pytest_memeval.framework.figures import LineChart, StackedBarChart
from pytest_memeval.results.records import Metric, Record, Report, RunKey, RunSummary, SuiteSummary
from pytest_memeval.stats import wilson_interval
from pytest_memeval.types import Answer, Item, ItemView, Memory, Trace

RULE = Fact(
    "rule",
    (
        Piece(
            "Mira sketches floor plans only when it is raining.",
            ("Mira", "sketches floor plans"),
            ("only when", "it is raining"),
        ),
    ),
)
STORED = "Mira is a baker. Mira sketches floor plans only when it is raining."
UNCONDITIONAL = "Mira sketches floor plans."


@pytest.mark.parametrize(
    ("retrieved", "stored", "stage"),
    [
        ([], [], "storage"),  # nothing holds the anchor
        ([UNCONDITIONAL], [UNCONDITIONAL], "summary"),  # the condition was lost
        (["Mira is a baker."], [STORED, "Mira is a baker."], "retrieval"),  # intact but not in the top-k
        ([STORED], [STORED], "ok"),
        ([UNCONDITIONAL], [UNCONDITIONAL, STORED], "retrieval"),  # an intact copy exists, the top-k holds a damaged one
        ([STORED], None, "ok"),  # an intact retrieved copy needs no dump
        (["Mira is a baker."], None, "unknown"),  # cannot tell storage from retrieval
    ],
)
def test_the_first_failing_stage_labels_a_fact(retrieved, stored, stage):
    result = attribute([RULE], retrieved, stored)
    assert result.stage == stage
    if stage == "summary":
        assert "'only when', 'it is raining'" in result.reason


def test_a_rule_may_be_spread_over_memories_and_the_earliest_stage_wins():
    hard = Fact(
        "rule",
        (
            Piece("Gideon has a habit of painting.", ("Gideon", "painting")),
            Piece("Gideon often finds himself out in the rain.", ("Gideon", "out in the rain")),
            Piece("That's when Gideon's quirk tends to appear.", ("Gideon", "quirk tends to appear")),
        ),
    )
    texts = [p.text for p in hard.pieces]
    assert attribute([hard], texts, texts).stage == "ok"
    assert attribute([hard], texts[:2], texts).stage == "retrieval"
    other = Fact("preference 'sushi'", (Piece("I love sushi.", ("sushi",)),))
    result = attribute([hard, other], texts[:2], texts)  # other is not stored at all
    assert result.stage == "storage" and [f.stage for f in result.facts] == ["retrieval", "storage"]


def test_a_failed_overwrite_is_a_storage_failure():
    update = Fact(
        "overwrite",
        (
            Piece(
                "My cousin Tariq gave up the cello and switched to the piano.",
                ("Tariq", "piano"),
                ("gave up the cello",),
                stale=("Tariq", "cello"),
            ),
        ),
    )
    old, new = "My cousin Tariq plays the cello.", "My cousin Tariq gave up the cello and switched to the piano."
    assert attribute([update], [new], [old, new]).stage == "ok"  # history kept, the update says what changed
    assert (
        attribute([update], ["Tariq plays the piano."], ["Tariq plays the piano."]).stage == "ok"
    )  # a clean overwrite
    result = attribute([update], ["Tariq plays the piano."], [old, "Tariq plays the piano."])
    assert result.stage == "storage" and result.reason.startswith("failed overwrite")
    assert (
        attribute([update], [old, "Tariq plays the piano."], [old, new, "Tariq plays the piano."]).stage == "retrieval"
    )


def _item(task: str, gold, facts, grading=None) -> Item:
    view = ItemView("memfail", task, "question?")
    private = {"facts": [f.to_json() for f in facts], "grading": grading or {}}
    return Item("s42-x-000", "s42-x", "s42-x-000", view, gold, {"dataset": task}, private)


def test_a_verdict_is_correct_only_when_every_stage_passes():
    judge = MemfailJudge()
    item = _item("conditional", "yes", [RULE])
    right = judge.score(item, Answer("yes"), Trace((Memory(STORED),), lambda: [Memory(STORED)]))
    assert right.correct and right.stage == "correct" and right.reason == ""
    lucky = judge.score(item, Answer("yes"), Trace((Memory(UNCONDITIONAL),), lambda: [Memory(UNCONDITIONAL)]))
    assert not lucky.correct and lucky.stage == "summary" and lucky.detail["answer_correct"]
    assert lucky.reason.startswith("summary: rule is stored without") and "the answer is right" in lucky.reason
    wrong = judge.score(item, Answer("no"), Trace((Memory(STORED),), lambda: [Memory(STORED)]))
    assert wrong.stage == "reasoning" and wrong.reason.startswith("reasoning:")


def test_a_misleading_question_needs_no_memory_only_an_abstention():
    item = _item("persona", "I don't have information about Noah Brooks.", [], {"distractor": "Noah Brooks"})
    no_dump = Trace((), lambda: pytest.fail("a question without facts must not list the store"))
    assert (
        MemfailJudge()
        .score(item, Answer("I don't have information about Noah Brooks.", abstained=True), no_dump)
        .correct
    )
    wrong = MemfailJudge().score(item, Answer("kiwi"), no_dump)
    assert wrong.stage == "abstention" and "Noah Brooks" in wrong.reason


def _record(dataset: str, stage: str, cluster: str, tokens: int = 10, memories: int = 2) -> Record:
    return make_record(
        f"{cluster}-{dataset}",
        suite="memfail",
        correct=stage == "correct",
        cluster=cluster,
        strata={"dataset": dataset},
        stage=stage,
        retrieved_tokens=tokens,
        n_memories=memories,
        retrieve_ms=1.0,
        answer_ms=1.0,
    )


def test_wilson_intervals_match_the_paper_and_widen_for_shared_essays():
    assert clustered_wilson([True] * 35 + [False] * 65, [str(i) for i in range(100)]).ci == pytest.approx(
        wilson_interval(35, 100), abs=1e-6
    )
    assert clustered_wilson([True] * 35 + [False] * 65, [str(i) for i in range(100)]).ci == pytest.approx(
        (0.264, 0.447), abs=1e-3
    )
    # three questions per essay, answered alike within an essay: the effective n is a third
    outcomes = [i < 15 for i in range(30) for _ in range(3)]
    clustered = clustered_wilson(outcomes, [str(i) for i in range(30) for _ in range(3)])
    assert clustered.ci == pytest.approx(wilson_interval(15, 30), abs=1e-6)


def test_summary_reports_success_per_dataset_stage_shares_and_tokens():
    records = [
        _record("coexisting", s, f"c{i}") for i, s in enumerate(["correct", "retrieval", "retrieval", "storage"])
    ]
    records += [_record("longhop", "correct", "h0", tokens=30, memories=2)]
    summary = summarize(records, n_resamples=200)
    metrics = summary.metrics
    assert metrics["success"].value == 0.4 and metrics["success_coexisting"].value == 0.25
    assert metrics["success_longhop"].value == 1.0 and "success_persona" not in metrics
    assert metrics["share_retrieval"].value == 0.4 and metrics["share_storage"].value == 0.2
    assert metrics["tokens_per_memory"].value == 7.0 and metrics["tokens_per_question"].value == 14.0
    assert summary.extra["stages"]["coexisting"] == {
        "correct": 0.25,
        "storage": 0.25,
        "summary": 0.0,
        "retrieval": 0.5,
        "reasoning": 0.0,
        "abstention": 0.0,
        "unknown": 0.0,
        "unattributed": 0.0,
    }
    assert summary.breakdown["failure_stage"]["retrieval"].n == 2
    assert summary.extra["latency_ms"]["retrieve"] == {"p50": 1.0, "p95": 1.0}
    differences = compare(records, [_record(r.strata["dataset"], "correct", r.cluster) for r in records], 200)
    assert (
        differences["success"].difference == pytest.approx(-0.6) and differences["success"].test == "cluster_sign_flip"
    )
    assert "success_coexisting" in differences and "success_longhop" not in differences  # one pair is too few


def test_figures_stack_stages_per_dataset_and_plot_success_against_k():
    def run(system: str, k: int, success: float) -> RunSummary:
        stages = {"correct": success, "retrieval": 1 - success}
        summary = SuiteSummary(
            {"success_coexisting": Metric(success, (0, 1))}, extra={"stages": {"coexisting": stages}}
        )
        return RunSummary(RunKey("memfail", system, k=k), 1, 1, 0, 0, summary)

    def report_of(*runs: RunSummary) -> Report:
        return Report({}, runs, ())

    report = report_of(run("chroma", 5, 0.2), run("chroma", 15, 0.6), run("context", 5, 1.0), run("context", 15, 1.0))
    figures = memfail_figures(report, "memfail")
    stacked = [f for f in figures if isinstance(f, StackedBarChart)]
    lines = [f for f in figures if isinstance(f, LineChart)]
    assert len(stacked) == 2 and stacked[0].categories == ("Coexisting-Facts | chroma", "Coexisting-Facts | context")
    assert stacked[0].values[0][stacked[0].segments.index("retrieval")] == pytest.approx(0.8)
    assert len(lines) == 1 and dict((s.name, s.points) for s in lines[0].series)["chroma"] == ((5.0, 0.2), (15.0, 0.6))
    assert memfail_figures(report_of(run("chroma", 5, 0.2)), "memfail")[1:] == []  # one k: no line chart


def test_free_text_answers_are_checked_by_what_they_name():
    from pytest_memeval.suites.memfail.judge import answer_correct

    def item(task: str, gold, grading=None) -> Item:
        return Item("i", "c", "i", ItemView("memfail", task, "q?"), gold, {}, {"facts": [], "grading": grading or {}})

    assert answer_correct(item("persona", "the cello"), Answer("She plays cello on Thursdays."))
    assert not answer_correct(item("persona", "the cello"), Answer("I don't know anything about her."))
    assert answer_correct(item("coexisting", ["fedoras", "beanies"]), Answer("A fedora and a beanie, plus sunglasses."))
    assert not answer_correct(item("coexisting", ["fedoras", "beanies"]), Answer("A fedora."))
    overwrite = item("update", ["piano"], {"stale": ["cello"]})
    assert answer_correct(overwrite, Answer("The piano.")) and not answer_correct(overwrite, Answer("piano, cello"))
    assert answer_correct(item("conditional", "no"), Answer("No")) and not answer_correct(
        item("conditional", "no"), Answer("no", abstained=True)
    )
