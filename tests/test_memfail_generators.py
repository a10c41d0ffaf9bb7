"""memfail's generators: the paper's sizes and rules (Table 2, B.2-B.6), determinism, prefixes,
and texts that string tricks do not solve."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from pytest_memeval.suites.memfail import gen_conditional
from pytest_memeval.suites.memfail.coexisting_data import CATEGORIES, FACTS, QUESTIONS
from pytest_memeval.suites.memfail.condition_data import CONDITION_TYPES, GROUPS, TYPES
from pytest_memeval.suites.memfail.conditional_data import CHARACTERS, PEOPLE, PETS
from pytest_memeval.suites.memfail.conditions import conditions_in, situations_in
from pytest_memeval.suites.memfail.datasets import DATASETS, build
from pytest_memeval.suites.memfail.longhop_data import ANCHORS
from pytest_memeval.suites.memfail.persona_data import SLOTS
from pytest_memeval.suites.memfail.read_longhop import anchors_in
from pytest_memeval.suites.memfail.text import contains, gerund, normalize, sentences, third_person

FORBIDDEN = ("only when", "unless", "except when", "but only if", "whenever", "if", "only after", "only if")


def full(name: str, seed: int = 42):
    return build(seed, name, "full")


def test_full_sizes_are_the_papers():
    counts = {d.name: len(full(d.name).questions) for d in DATASETS}
    assert counts == {
        "cond_easy": 100,
        "cond_hard": 100,
        "coexisting": 100,
        "persona": 300,
        "longhop": 92,
        "update": 100,
    }
    assert sum(counts.values()) - counts["update"] == 692  # the paper's graded questions per configuration
    assert Counter(q.gold for q in full("cond_easy").questions) == {"yes": 32, "no": 68}
    assert Counter(q.gold for q in full("cond_hard").questions) == {"yes": 49, "no": 51}
    coexisting = full("coexisting")
    assert Counter(len(q.gold) for q in coexisting.questions) == {2: 26, 3: 31, 4: 20, 5: 23}
    assert len(coexisting.sessions) == 340 and all(len(s) == 1 for s in coexisting.sessions)
    longhop = full("longhop")
    assert Counter(q.strata["hops"] for q in longhop.questions) == {"1": 31, "2": 32, "3": 29}
    assert sum(len(q.facts) for q in longhop.questions) == 274
    assert Counter(q.strata["update_kind"] for q in full("update").questions) == {"overwrite": 50, "addition": 50}


def test_condition_types_are_the_papers_32_in_9_groups():
    assert len(CONDITION_TYPES) == 32 and len(GROUPS) == 9
    assert {t.name for t in CONDITION_TYPES if t.pets} == {
        "time_of_day",
        "weather",
        "temperature",
        "location",
        "noise_level",
        "lighting",
        "food_or_drink_present",
        "prior_activity",
        "company",
    }
    used = {q.strata["condition_type"] for seed in (42, 7, 8) for q in full("cond_easy", seed).questions}
    assert len(used) >= 27


@pytest.mark.parametrize("seed", [42, 3])
def test_same_seed_same_data_and_smaller_sizes_are_prefixes(seed: int):
    for d in DATASETS:
        first, again = d.build(seed, d.sizes["full"]), d.build(seed, d.sizes["full"])
        assert first == again
        smoke = d.build(seed, d.sizes["smoke"])
        assert smoke.questions == first.questions[: len(smoke.questions)]
    assert full("cond_easy", 1).sessions != full("cond_easy", 2).sessions


def test_easy_and_hard_share_each_rows_spec_and_differ_in_the_writing():
    for easy, hard in zip(full("cond_easy").questions, full("cond_hard").questions):
        assert easy.strata["condition_type"] == hard.strata["condition_type"]
        assert easy.facts[0].pieces[0].anchor[0] == hard.facts[0].pieces[0].anchor[0]  # the entity
        assert len(easy.facts[0].pieces) == 1 and len(hard.facts[0].pieces) == 3


@pytest.mark.parametrize("seed", [42, 5, 11])
def test_conditional_essays_follow_the_generation_rules(seed: int):
    for name, (low, high) in (("cond_easy", (5, 8)), ("cond_hard", (8, 12))):
        for (essay,), question in zip(full(name, seed).sessions, full(name, seed).questions):
            said = sentences(essay)
            assert low <= len(said) <= high
            # exactly one condition is stated: fillers are unconditional facts
            assert len([c for s in said for c in conditions_in(normalize(s), TYPES)]) == 1
            # the question's situation is about the rule's condition type, and nothing else
            assert [s.type for s in situations_in(normalize(question.text), TYPES)] == [
                question.strata["condition_type"]
            ]
            if name == "cond_hard":
                text = normalize(essay)
                assert not [w for w in FORBIDDEN if f" {w} " in text], essay
                positions = sorted(said.index(p.text) for p in question.facts[0].pieces)
                assert positions[1] - positions[0] > 1 and positions[2] - positions[1] > 1


def test_situations_never_repeat_their_rules_words_so_overlap_does_not_answer():
    """A string trick (answer yes when the question shares a content word with the stated
    condition) does no better than always giving the majority answer."""

    def words(text: str) -> set[str]:
        return {w for w in normalize(text).split() if len(w) >= 4}

    for name in ("cond_easy", "cond_hard"):
        right = yes = total = 0
        for seed in range(4):
            for question in full(name, seed).questions:
                pieces = question.facts[0].pieces
                condition = pieces[0].critical[-1] if name == "cond_easy" else pieces[1].anchor[-1]
                asked = words(question.text) - words(pieces[0].text)
                right += ("yes" if asked & words(condition) else "no") == question.gold
                yes += question.gold == "yes"
                total += 1
        assert right / total <= max(yes, total - yes) / total + 0.02


def test_entities_behaviours_and_names_identify_their_rows():
    names = [n for n, _ in PEOPLE] + [n for n, _ in CHARACTERS] + [n for n, _, _ in PETS]
    assert len(set(names)) == len(names)
    assert not [(a, b) for a, b in itertools.permutations(names, 2) if contains(normalize(a), b)]
    specs = gen_conditional.specs(42, 100)
    assert len({s.person.name for s in specs}) == 100 and len({s.behavior for s in specs}) == 100
    assert third_person("carry socks around") == "carries socks around" and gerund("jog") == "jogging"
    assert gerund("make candles") == "making candles" and third_person("fix a chair") == "fixes a chair"


def test_coexisting_preferences_are_distinct_and_each_statement_names_one():
    items = [(c.name, i) for c in CATEGORIES for i in c.items]
    assert len(CATEGORIES) == 100 and len({c.group for c in CATEGORIES}) == 12
    assert len({c.noun for c in CATEGORIES}) == 100
    assert not [(a, b) for a, b in itertools.permutations(items, 2) if contains(normalize(a[1]), b[1])]
    for template in FACTS + QUESTIONS:
        assert not [i for _, i in items if contains(normalize(template), i)], template
    for seed in (42, 9):
        for question in full("coexisting", seed).questions:
            for fact in question.facts:
                assert [i for _, i in items if contains(normalize(fact.text), i)] == [fact.pieces[0].anchor[0]]


def test_persona_distractors_appear_nowhere_in_the_store():
    build_ = full("persona")
    stored = normalize(" ".join(s[0] for s in build_.sessions))
    misleading = [q for q in build_.questions if q.grading.get("distractor")]
    assert 0.4 < len(misleading) / len(build_.questions) < 0.6
    assert all(not contains(stored, q.grading["distractor"]) for q in misleading)
    for (essay,), _row in zip(build_.sessions, range(100)):
        assert 10 <= len(sentences(essay)) <= 15
    facts_per_essay = Counter(q.row for q in build_.questions)
    assert set(facts_per_essay.values()) == {3}
    values = [(s.name, v) for s in SLOTS for v in s.values]
    assert not [
        (a, b) for a, b in itertools.permutations(values, 2) if a[0] != b[0] and contains(normalize(a[1]), b[1])
    ]


def test_longhop_never_puts_two_facts_of_a_chain_in_one_conversation():
    build_ = full("longhop")
    chain_of = {f.text: q.row for q in build_.questions for f in q.facts}
    for conversation in build_.sessions:
        chains = [chain_of[text] for text in conversation]
        assert len(chains) == len(set(chains))
    used = {a for q in build_.questions for f in q.facts for a in anchors_in(normalize(f.text))}
    for question in build_.questions:
        assert question.gold in question.answer_space and len(set(question.answer_space)) == 5
        distractors = [o for o in question.answer_space if o != question.gold]
        assert not [o for o in distractors if set(anchors_in(normalize(o))) & used]
        # the question names the head only
        assert len(anchors_in(normalize(question.text))) == 1
    assert len(ANCHORS) == len(set(ANCHORS))


def test_updates_come_after_the_facts_they_update():
    build_ = full("update")
    order = {session[0]: i for i, session in enumerate(build_.sessions)}
    for question in build_.questions:
        kind = question.strata["update_kind"]
        update = question.facts[-1].pieces[0]
        if kind == "addition":
            assert order[question.facts[0].pieces[0].text] < order[update.text]
            assert set(question.gold) == {question.facts[0].pieces[0].anchor[1], update.anchor[1]}
        else:
            assert update.stale and question.grading["stale"] == [update.stale[1]]


def test_nothing_private_is_in_the_stored_text():
    stored = normalize(" ".join(m for d in DATASETS for s in full(d.name).sessions for m in s))
    for secret in ("s42", "cond_easy", "cond_hard", "longhop", "persona", "targets_", "condition_met", "hops_", "q1"):
        assert not contains(stored, secret), secret
