"""knowme scorers on hand-computed cases, and the judges built on them."""

from __future__ import annotations

import pytest
from pytest_memeval.suites.knowme.judge import KnowmeJudge, evidence_recall
from pytest_memeval.suites.knowme.scoring import (
    coverage_band,
    cue_band,
    duration_band,
    entity_f1,
    kendall_band,
    kendall_tau,
    order_band,
    parse_duration,
    parse_letters,
    parse_years,
    split_entities,
    state_band,
    text_coverage_band,
    years_band,
)

from pytest_memeval.types import Answer, Item, ItemView, Memory, Trace


def test_entities_are_split_and_matched_by_head_noun():
    assert split_entities("saffron; a wool scarf") == ["saffron", "a wool scarf"]
    assert split_entities("A thermos of coffee, rye bread and a wool hat.") == [
        "A thermos of coffee",
        "rye bread",
        "a wool hat",
    ]
    # saffron hits; lemons is extra; "jam" names the head but only 1 of 3 content words: vague
    f1, precision, recall = entity_f1(["saffron", "lemons", "jam"], ["saffron", "a jar of cloudberry jam"])
    assert (precision, recall) == (1 / 3, 1 / 2) and f1 == pytest.approx(0.4)
    assert entity_f1(["cloudberry jam", "Saffron"], ["saffron", "a jar of cloudberry jam"])[0] == 1.0
    assert entity_f1(["saffron", "saffron"], ["saffron"])[1] == 0.5  # one gold entity matches once
    assert entity_f1([], ["saffron"]) == (0.0, 0.0, 0.0)


def test_duration_and_year_bands():
    assert parse_duration("1 hour 5 minutes") == 3900
    assert parse_duration("8 min 40 s") == 520
    assert parse_duration("2h") == 7200 and parse_duration("soon") is None
    assert duration_band(1800, 1800) == 5
    assert duration_band(2100, 1800) == 3  # 300 s off is within 20% of 1800
    assert duration_band(2200, 1800) == 0 and duration_band(None, 1800) == 0
    assert parse_years("23 years") == 23 and parse_years("23") == 23 and parse_years("long ago") is None
    assert [years_band(a, 23) for a in (23, 22, 24, 21, None)] == [5, 3, 3, 0, 0]


def test_orders_and_rankings():
    assert parse_letters("B > A > C") == ["B", "A", "C"]
    assert parse_letters("(C), then (A); I think (B)", "ABC") == ["C", "A", "B"]  # the pronoun I is no option
    assert order_band(["B", "A", "C"], ["B", "A", "C"]) == 5
    assert order_band(["A", "B", "C"], ["B", "A", "C"]) == 3  # one adjacent swap
    assert order_band(["C", "A", "B"], ["B", "A", "C"]) == 0
    assert order_band(["A", "B"], ["B", "A"]) == 0  # two options: right or wrong
    assert kendall_tau(["B", "A", "C"], ["A", "B", "C"]) == pytest.approx(1 / 3)
    assert kendall_band(["A", "B", "C", "D"], ["A", "B", "C", "D"]) == (5, 1.0)
    assert kendall_band(["A", "C", "B", "D"], ["A", "B", "C", "D"]) == (3, pytest.approx(2 / 3))
    assert kendall_band(["C", "A", "B"], ["A", "B", "C"]) == (2, pytest.approx(-1 / 3))
    assert kendall_band(["C", "B", "A"], ["A", "B", "C"]) == (1, -1.0)  # reversed
    assert kendall_band(["A", "D", "C"], ["A", "B", "C"]) == (1, None)  # an event that is not there
    assert kendall_band(["A", "C"], ["A", "B", "C"]) == (2, None)  # incomplete
    assert kendall_band([], ["A", "B", "C"]) == (0, None)


def test_cues_and_states():
    distractors = ["church bells", "frost on the window"]
    assert cue_band("the smell of pine tar", "pine tar", "smell", distractors) == 5
    assert cue_band("pine tar", "pine tar", "smell", distractors) == 5
    assert cue_band("the sound of pine tar", "pine tar", "smell", distractors) == 3  # wrong sense
    assert cue_band("pine tar and church bells", "pine tar", "smell", distractors) == 3  # noise
    assert cue_band("the smell of woodsmoke", "pine tar", "smell", distractors) == 0
    assert state_band("black coffee", "black coffee", "cocoa") == 5
    assert state_band("cocoa, later black coffee", "black coffee", "cocoa") == 3
    assert state_band("cocoa", "black coffee", "cocoa") == 0


def test_the_approximate_insight_bands():
    core = [["laugh"], ["envy", "jealous"], ["candle"]]
    assert coverage_band("I was jealous, a candle left burning", core, "mind_body") == 5
    assert coverage_band("I laughed but was jealous", core, "mind_body") == 4
    assert coverage_band("I was jealous", core, "mind_body") == 3
    assert coverage_band("I was laughing", core, "mind_body") == 2
    assert coverage_band("I was tired", core, "mind_body") == 1
    assert coverage_band("", core, "mind_body") == 0
    principle = [["debt", "borrow"], ["rope"], ["shame"]]
    assert coverage_band("Debt is a rope; it comes from shame", principle, "principle") == 5
    assert coverage_band("I never borrow, out of shame", principle, "principle") == 4
    assert coverage_band("I never borrow", principle, "principle") == 3
    assert coverage_band("a rope", principle, "principle") == 2
    assert coverage_band("I like boats", principle, "principle") == 1
    reference = "Debt is a rope I refuse to tie around my own neck."
    assert text_coverage_band("a rope around my neck: debt I refuse", reference) == 5
    assert text_coverage_band("boats", reference) == 1 and text_coverage_band(" ", reference) == 0


def _item(scoring: str, gold, evidence=()) -> Item:  # type: ignore[no-untyped-def]
    view = ItemView("knowme", "extract", "q?")
    private = {"scoring": scoring, "evidence": list(range(len(evidence))), "evidence_texts": list(evidence)}
    return Item("s1-life00-T1-00", "s1-life00", "s1-life00", view, gold, {"task": "T1"}, private)


UNIT_A = "2010-01-02 10:00:00 | the pier\nAction: I buy saffron for Ivo."
UNIT_B = "2010-01-02 10:09:00 | the pier\nAction: I also buy lemons for Ivo."


def test_the_offline_judge_scores_on_0_to_100_and_reports_evidence_recall():
    judge = KnowmeJudge()
    item = _item("entities", {"entities": ["saffron", "lemons"]}, [UNIT_A, UNIT_B])
    trace = Trace((Memory(UNIT_A + "\n\n" + "2010-01-05 09:00:00 | home\nAction: I sleep."),))
    verdict = judge.score(item, Answer("saffron"), trace)
    assert verdict.score == pytest.approx(100 * 2 / 3) and verdict.correct is False
    assert verdict.detail["evidence_recall"] == 0.5 and verdict.detail["approximate"] is False
    abstained = judge.score(_item("abstain", "ABSTAIN"), Answer("ABSTAIN", abstained=True), Trace())
    assert (abstained.score, abstained.correct, abstained.detail["evidence_recall"]) == (100, True, None)
    insight = _item(
        "coverage_approx", {"core": [["laugh"], ["envy"], ["candle"]], "rubric": "mind_body", "reference": "x"}
    )
    approx = judge.score(insight, Answer("I laugh out of envy"), Trace())
    assert approx.score == 80 and approx.correct is True and approx.detail["approximate"] is True
    assert "approximate" in judge.score(insight, Answer("I laugh"), Trace()).reason


def test_a_chunk_holding_a_units_header_and_first_line_counts_as_retrieved():
    item = _item("entities", {"entities": ["saffron"]}, [UNIT_A])
    assert (
        evidence_recall(item, [Memory(UNIT_A.splitlines()[0] + "\n" + UNIT_A.splitlines()[1] + "\n")])[
            "evidence_recall"
        ]
        == 1.0
    )
    assert evidence_recall(item, [Memory(UNIT_A.splitlines()[1])])["evidence_recall"] == 0.0
