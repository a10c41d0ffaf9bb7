"""The behavior generator: lexicon invariants, subjects, both halves, facts, specification, pairings."""

from __future__ import annotations

import re
from collections import Counter
from itertools import combinations

import pytest
from pytest_memeval.suites.behavior import episodes, views
from pytest_memeval.suites.behavior import facts as facts_module
from pytest_memeval.suites.behavior.catalog import COHORT
from pytest_memeval.suites.behavior.episodes import HELDOUT_QUESTIONS, heldout_half, training_half
from pytest_memeval.suites.behavior.evidence import _OVER, PHRASES, cue_axes, normalize
from pytest_memeval.suites.behavior.facts import Fact, extract
from pytest_memeval.suites.behavior.lexicon import AXES, CATEGORIES, FILLERS
from pytest_memeval.suites.behavior.pairing import adversarial, distance, random_derangement
from pytest_memeval.suites.behavior.predicates import PREDICATE_GROUPS, PREDICATES
from pytest_memeval.suites.behavior.spec import build_spec
from pytest_memeval.suites.behavior.subjects import Action, principles

SEED = 2026


def _texts_of(axis) -> list[str]:  # type: ignore[no-untyped-def]
    texts = list(axis.training) + [h.story for h in axis.heldout] + [h.ask for h in axis.heldout]
    texts += [c for pair in axis.complications for c in pair] + [axis.active]
    for pole in axis.poles:
        texts += [pole.value, pole.generic, pole.reflection, *pole.variants]
    return texts


def test_the_lexicon_keeps_principles_apart() -> None:
    assert len(AXES) == 10 and len(set(CATEGORIES)) == 10
    for a, axis in enumerate(AXES):
        for text in _texts_of(axis):
            assert set(cue_axes(text)) <= {a}, (axis.key, text)  # no other principle's cue words
        for ask, story in ((c[1], c[0]) for c in axis.complications):
            assert cue_axes(ask) == [a] and cue_axes(story) == [a]
    for text, _, _ in FILLERS:
        assert cue_axes(text) == [] and not any(p in normalize(text) for p in PHRASES)
    phrases = list(PHRASES)
    assert len(phrases) == 10 * 2 * (3 + 2)  # every phrase names one thing
    for p, q in combinations(phrases, 2):
        assert not re.search(rf"\b{re.escape(p)}\b", q) and not re.search(rf"\b{re.escape(q)}\b", p), (p, q)
    assert not any(_OVER.search(normalize(pole.value)) for axis in AXES for pole in axis.poles)


def _grams(text: str, n: int = 7) -> set[str]:
    words = re.findall(r"\w+", text.lower())
    return {" ".join(words[i : i + n]) for i in range(len(words) - n + 1)}


def test_no_question_shares_seven_words_with_its_passage() -> None:
    """The paper's leakage audit, over every held-out situation and complication the
    generator can combine (not only the ones a seed happens to draw)."""
    clauses = [("", "")] + [(", " + c[0], ", " + c[1]) for axis in AXES for c in axis.complications]
    for axis in AXES:
        for heldout in axis.heldout:
            for story, ask in clauses:
                question = f"Faced with {heldout.ask}{ask}, what would this person do?"
                assert not _grams(question) & _grams(f"there came {heldout.story}{story}. I chose to"), question


def test_there_are_46_predicates() -> None:
    assert len(PREDICATES) == 46 == sum(len(group) for group in PREDICATE_GROUPS.values())


def test_a_subject_generates_alone_exactly_as_in_a_full_run() -> None:
    def snapshot(index: int) -> tuple:
        return (training_half(SEED, index).text, heldout_half(SEED, index), extract(SEED, index))

    full = [snapshot(i) for i in range(COHORT)]
    for cache in (training_half, heldout_half, extract, views._offline_spec):
        cache.cache_clear()
    assert snapshot(9) == full[9]
    assert full[9] != full[8] and principles(SEED, 9) == principles(SEED, 9)
    assert training_half(SEED + 1, 9).text != full[9][0]


def test_questions_spread_over_the_categories_without_names_dates_or_leaks() -> None:
    for index in range(COHORT):
        questions = heldout_half(SEED, index)
        assert len(questions) == HELDOUT_QUESTIONS
        counts = Counter(q.category for q in questions)
        assert set(counts) == set(CATEGORIES) and max(counts.values()) <= 4
        training = normalize(training_half(SEED, index).text)
        for q in questions:
            assert not re.search(r"\d", q.question) and not re.search(r"\b[A-Z]", q.question[1:]), q.question
            assert not _grams(q.question) & _grams(q.passage), q.question
            story = AXES[q.situation.axis].heldout[q.situation.index].story
            assert normalize(story) in normalize(q.passage) and normalize(story) not in training
            behaviour = AXES[q.action.axis].poles[q.action.pole].variants[q.action.variant]
            assert f"I chose to {behaviour}." in q.passage


def test_decisions_follow_the_principles_with_noise_and_exceptions() -> None:
    followed = exceptions = total = complicated = 0
    for index in range(COHORT):
        subject = principles(SEED, index)
        for e in training_half(SEED, index).episodes:
            total += 1
            complicated += e.situation.complication is not None
            deciding = max(e.situation.at_stake, key=lambda a: subject.strengths[a])
            assert e.action.axis == deciding  # the stronger principle decides
            assert (e.action.pole != subject.poles[deciding]) == e.exception
            exceptions += e.exception
            followed += not e.exception and e.action.variant == subject.signatures[deciding]
    assert 0.03 < exceptions / total < 0.2 and 0.25 < complicated / total < 0.45
    assert followed / (total - exceptions) > 0.6


def test_facts_come_from_the_training_half_only_with_the_constrained_predicates() -> None:
    facts = extract(SEED, 0)
    assert {f.predicate for f in facts} <= PREDICATES
    assert {"decided", "values", "prioritizes"} <= {f.predicate for f in facts}
    half = training_half(SEED, 0)
    assert sum(f.predicate == "decided" for f in facts) == len(half.episodes)
    assert len({f.text for f in facts}) == len(facts)  # duplicates are stored once
    stored = normalize(views.context(f"s{SEED}-p01-facts").sessions[0][0].content)
    assert stored == normalize(facts[0].text)
    heldout = [normalize(AXES[q.situation.axis].heldout[q.situation.index].story) for q in heldout_half(SEED, 0)]
    documents = normalize(facts_module.facts_text(facts) + half.text + views._offline_spec(SEED, 0))
    assert not any(story in documents for story in heldout)


def _decided(axis: int, pole: int, variant: int, n: int = 1) -> list[Fact]:
    return [Fact("decided", f"to x{axis}{pole}{variant}-{i}", Action(axis, pole, variant)) for i in range(n)]


def test_the_specification_is_computed_from_the_facts() -> None:
    facts = (
        _decided(5, 0, 1, 3)
        + _decided(5, 1, 0)  # risk: caution 3:1, behaviour 1 three times
        + _decided(1, 1, 2, 2)  # loyalty: gain 2:0, behaviour 2 twice
        + _decided(3, 0, 0)
        + _decided(3, 1, 1)  # conflict 1:1: no anchor
        + _decided(4, 1, 0)
        + _decided(4, 1, 1)  # learning 2:0, no behaviour stands out
        + [Fact("prioritizes", "loyalty and gain over risk", over=(1, 5))]
    )
    spec = build_spec(facts)
    assert [(a.axis, a.pole, a.rank) for a in spec.anchors] == [(1, 1, 1), (4, 1, 2), (5, 0, 3)]
    assert [(p.axis, p.pole, p.variant) for p in spec.predictions] == [(1, 1, 2), (5, 0, 1)]
    assert spec.priorities == ((1, 5),)
    text = spec.text
    assert "A1. GAIN DECIDES. Holds personal gain over old loyalties." in text
    assert "A3. SAFETY FIRST." in text and "gives way to A2 when learning is also at stake" in text
    assert "Directive: expect them to try a small trial before risking more." in text
    assert "When loyalty and gain and risk pull against each other, loyalty and gain wins." in text
    assert "NAME THE WRONG" not in text and "KEEP THE PEACE" not in text


def test_wrong_spec_pairings_are_derangements() -> None:
    v1, v2 = adversarial(SEED, COHORT), random_derangement(SEED, COHORT)
    for pairing in (v1, v2):
        assert sorted(pairing) == list(range(COHORT)) and all(i != j for i, j in enumerate(pairing))
    people = [principles(SEED, i) for i in range(COHORT)]
    total = lambda pairing: sum(distance(people[i], people[j]) for i, j in enumerate(pairing))  # noqa: E731
    assert total(v1) >= total(v2) and total(v1) >= total(tuple((i + 1) % COHORT for i in range(COHORT)))
    assert random_derangement(SEED + 1, COHORT) != v2 and random_derangement(SEED, COHORT) == v2


@pytest.mark.parametrize("kind, sessions", [("direct", 0), ("facts", None), ("corpus", episodes.CHAPTERS)])
def test_contexts(kind: str, sessions: int | None) -> None:
    context = views.context(f"s{SEED}-p02-{kind}")
    expected = len(extract(SEED, 1)) if sessions is None else sessions
    assert len(context.sessions) == expected
    if kind == "facts":
        assert all(len(session) == 1 for session in context.sessions)  # one fact per write
