"""memfail's offline reader: hand-worked cases per dataset, perfection from the whole store,
and answers that depend on nothing but the view and the memories."""

from __future__ import annotations

import pytest
from pytest_memeval.suites.memfail.datasets import DATASETS, build
from pytest_memeval.suites.memfail.judge import answer_correct
from pytest_memeval.suites.memfail.reader import MemfailReader
from pytest_memeval.suites.memfail.suite import MemfailSuite

from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.types import ItemView, Memory

READER = MemfailReader()


def ask(task: str, question: str, memories: list[str], options: tuple[str, ...] = ()):
    return READER.answer(ItemView("memfail", task, question, options), [Memory(m) for m in memories])


RULE = "Sylas is a shrewd negotiator. Sylas will draw elaborate maps of fictional islands only if it is raining."


@pytest.mark.parametrize(
    ("situation", "expected"),
    [
        ("It's pouring outside", "yes"),
        ("There isn't a single cloud in the sky", "no"),
        ("A blizzard is blowing outside", "no"),
    ],
)
def test_conditional_compares_the_situation_with_the_rule(situation: str, expected: str):
    answer = ask(
        "conditional", f"{situation} — would Sylas draw elaborate maps of fictional islands right now?", [RULE]
    )
    assert answer.label == expected and answer.detail["rule"] == "stated"


def test_conditional_thresholds_unconditional_habits_and_missing_rules():
    rule = "Thorne will build miniature clockwork automatons only if his motivation is at least 8 out of 10."
    asked = (
        "Thorne says he is at about {m}/10 on motivation today. Is he going to build miniature clockwork automatons?"
    )
    assert ask("conditional", asked.format(m=5), [rule]).label == "no"
    assert ask("conditional", asked.format(m=9), [rule]).label == "yes"
    cold = "Saffron tugs at the doormat, but only if the temperature outside drops below 10 degrees."
    assert (
        ask(
            "conditional",
            "It's minus 3 degrees Celsius outside; should I expect Saffron to tug at the doormat?",
            [cold],
        ).label
        == "yes"
    )
    assert (
        ask(
            "conditional", "It's 15 degrees Celsius outside; should I expect Saffron to tug at the doormat?", [cold]
        ).label
        == "no"
    )
    # a summary that dropped the condition makes the behaviour unconditional: yes, always
    dropped = ask(
        "conditional",
        "It's pouring outside — would Sylas draw elaborate maps of fictional islands right now?",
        ["Sylas draws elaborate maps of fictional islands."],
    )
    assert dropped.label == "yes" and dropped.detail["rule"] == "unconditional"
    unknown = ask(
        "conditional", "It's pouring outside — would Sylas draw elaborate maps of fictional islands right now?", []
    )
    assert unknown.label == "unknown" and unknown.abstained
    # another entity's rule is not this one's
    other = ask(
        "conditional", "It's pouring outside — would Amara draw elaborate maps of fictional islands right now?", [RULE]
    )
    assert other.label == "unknown"


def test_conditional_hard_composes_behaviour_condition_and_link():
    behaviour = "Gideon has a habit of painting tiny sailboats inside used teacups."
    condition = "Gideon often finds himself out in the rain."
    link = "It's usually in those stretches that Gideon's little ritual shows up."
    question = (
        "There's a steady drizzle against the windows. Is Gideon going to paint tiny sailboats inside used teacups?"
    )
    composed = ask("conditional", question, [f"{behaviour} He likes tea. {condition} He has a cat. {link}"])
    assert composed.label == "yes" and composed.detail["rule"] == "composed"
    dry = question.replace(
        "There's a steady drizzle against the windows", "It's bright and warm outside with clear blue skies"
    )
    assert ask("conditional", dry, [behaviour, condition, link]).label == "no"  # spread over three memories
    assert ask("conditional", dry, [behaviour, condition]).label == "yes"  # without the link: a plain habit
    assert ask("conditional", dry, [behaviour, link]).label == "unknown"  # linked to a condition never stated


def test_coexisting_lists_every_preference_of_the_asked_category():
    memories = [
        "I love fedoras — it's my default whenever I want to treat myself.",
        "Give me beanies any day of the week.",
        "Nothing cheers me up quite like sushi.",
    ]
    answer = ask(
        "coexisting",
        "Someone is writing a little profile of me for a party; which hats should they say I'm into?",
        memories,
    )
    assert answer.label == "fedoras, beanies"
    assert ask(
        "coexisting",
        "My partner asked which hats would make me happy this month — what's the honest answer?",
        memories[2:],
    ).abstained


def test_persona_answers_from_the_named_persons_memories_or_abstains():
    essay = "Maya Patel is an architect. She can't go anywhere near kiwi; the last time ended with a trip to the emergency room."
    assert ask("persona", "What food should I keep away from Maya Patel?", [essay]).label == "kiwi"
    stranger = ask("persona", "What food should I keep away from Noah Brooks?", [essay])
    assert stranger.abstained and stranger.label == "I don't have information about Noah Brooks."
    unstated = ask("persona", "What is Maya Patel afraid of?", [essay])
    assert unstated.abstained and unstated.detail["abstain"] == "the retrieved memories do not state this fact"


def test_longhop_follows_the_chain_in_either_sentence_order():
    options = ("fold the laundry", "take scenic photos", "water the ferns", "read old diaries", "bake oat cookies")
    facts = [
        "Whenever I call my mom, I plan a day trip.",
        "I tend to pack snacks for the road right after I plan a day trip.",
        "Once I pack snacks for the road, I almost always take scenic photos next.",
    ]
    question = "When I call my mom, what do I end up doing?"
    assert ask("longhop", question, list(reversed(facts)), options).label == "take scenic photos"
    broken = ask("longhop", question, [facts[0], facts[2]], options)
    assert broken.label is None and broken.abstained and broken.detail["hops_followed"] == 1
    named = ["Whenever Diego waters the ferns, he bakes oat cookies."]
    assert (
        ask("longhop", "When Diego waters the ferns, what does he end up doing?", named, options).label
        == "bake oat cookies"
    )


def test_update_keeps_additions_and_drops_what_was_replaced():
    question = "Which instruments does my cousin Tariq play these days?"
    original = "My cousin Tariq plays the cello."
    assert (
        ask("update", question, [original, "My cousin Tariq has also started playing the piano."]).label
        == "cello, piano"
    )
    assert (
        ask("update", question, ["My cousin Tariq gave up the cello and switched to the piano.", original]).label
        == "piano"
    )
    assert (
        ask("update", question, [original, "These days the harp is the only instrument my cousin Tariq plays."]).label
        == "harp"
    )
    assert ask("update", question, [original]).label == "cello"  # the update was not retrieved
    assert ask("update", question, ["My cousin Omar plays the flute."]).abstained
    # phrases, not whole sentences: a statement cut short still says what it says
    cut = ["My cousin Ibrahim drives an estate car.", "My cousin Ibrahim bought a minibus as"]
    assert ask("update", "What vehicles does my cousin Ibrahim have now?", cut).label == "estate car, minibus"
    assert ask("update", question, [original, "My cousin Tariq sold his cello and now plays the"]).abstained


def _suite(tmp_path) -> MemfailSuite:
    return MemfailSuite(SuiteOptions("full", None, None, 10, None, tmp_path))


@pytest.mark.slow
def test_the_reader_is_right_on_every_question_given_the_whole_store(tmp_path):
    suite = _suite(tmp_path)
    by_context: dict[str, list[Memory]] = {}
    for entry in suite.index():
        if entry.context_id not in by_context:
            by_context[entry.context_id] = [
                Memory(m.content) for s in suite.context(entry.context_id).sessions for m in s
            ]
        item = suite.item(entry.id)
        assert answer_correct(item, READER.answer(item.view, by_context[entry.context_id])), entry.id


def test_the_same_view_and_memories_give_the_same_answer_whatever_the_item(tmp_path):
    """Leakage boundary: views carry no item identity, and the reader reads nothing else."""
    suite = _suite(tmp_path)
    for d in DATASETS:
        questions = build(42, d.name, "full").questions
        first, second = suite.item(f"s42-{d.name}-{questions[0].key}"), suite.item(f"s42-{d.name}-{questions[1].key}")
        memories = [Memory(m.content) for s in suite.context(f"s42-{d.name}").sessions[:20] for m in s]
        for view in (first.view, second.view):
            assert READER.answer(view, memories) == READER.answer(view, list(memories))
        swapped = ItemView(second.view.suite, second.view.task, first.view.question, first.view.answer_space)
        assert READER.answer(swapped, memories) == READER.answer(first.view, memories)
        assert set(vars(first.view)) == {
            *("suite", "task", "question", "answer_space", "allow_abstain", "extra"),
            *("retrieve", "title", "label_notes"),
        }
        assert not first.view.extra and first.id not in first.view.question
