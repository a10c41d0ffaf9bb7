"""The knowme generator: determinism, the stream schema, flashback realignment, and golds
that agree with what the stream says (recomputed here from the rendered units)."""

from __future__ import annotations

import re
from datetime import datetime

import pytest
from pytest_memeval.suites.knowme.life import STYLES, generate_life
from pytest_memeval.suites.knowme.questions import life_questions
from pytest_memeval.suites.knowme.scoring import split_entities
from pytest_memeval.suites.knowme.stream import ALIGNMENTS, parse_units, render, whole_years_between
from pytest_memeval.suites.knowme.vocab_mind import SEVERITY

LIVES = [generate_life(7, i) for i in range(3)]


def _time(unit):  # type: ignore[no-untyped-def]
    return datetime.strptime(unit.timestamp, "%Y-%m-%d %H:%M:%S")


def test_a_life_depends_on_seed_and_index_alone():
    again = generate_life(7, 1)
    assert again == LIVES[1]
    assert life_questions(again) == life_questions(LIVES[1])
    assert generate_life(8, 1).units != LIVES[1].units
    assert [life.dataset for life in LIVES] == ["dataset1", "dataset2", "dataset3"]


@pytest.mark.parametrize("life", LIVES, ids=lambda life: life.dataset)
def test_units_are_released_records_in_narration_order(life):
    assert 150 <= len(life.units) <= 300
    assert [u.id for u in life.units] == list(range(1, len(life.units) + 1))
    assert sorted(i for s in life.sessions for i in s) == [u.id for u in life.units]
    timestamps = [u.timestamp for u in life.units]
    assert len(set(timestamps)) == len(timestamps)  # a unit is indexed by its unique anchor
    for unit in life.units:
        assert set(unit.record()) == {
            "id",
            "timestamp",
            "location",
            "action",
            "dialogue",
            "environment",
            "background",
            "inner_thought",
        }
        assert unit.location and (unit.action or unit.inner_thought)
    # each session is one present day; recalled units sit inside it with their own dates
    for session in life.sessions:
        present_days = {life.unit(i).timestamp[:10] for i in session if life.unit(i).layer == 0}
        assert len(present_days) == 1


@pytest.mark.parametrize("life", LIVES, ids=lambda life: life.dataset)
def test_flashbacks_are_realigned_to_their_historical_dates(life):
    pushes = [u for u in life.units if u.alignment == "PUSH"]
    assert len(pushes) >= 8
    for push in pushes:
        trigger = life.unit(push.id - 1)
        assert trigger.layer == 0 and push.layer == 1
        assert push.timestamp < trigger.timestamp  # narrated after, happened years before
        after = next(u for u in life.units[push.id :] if u.layer == 0)
        assert after.alignment == "POP" and after.timestamp[:10] == trigger.timestamp[:10]
    assert any(u.alignment == "TRANSIENT" for u in life.units)
    assert {u.alignment for u in life.units} == set(ALIGNMENTS)
    style = STYLES[life.dataset]
    assert sum(r.kind == "sustained" for r in life.facts.recalls) == style["sustained"]


@pytest.mark.parametrize("life", LIVES, ids=lambda life: life.dataset)
def test_golds_agree_with_the_rendered_stream(life):
    questions = life_questions(life)
    assert all(len(questions[t]) >= 10 for t in questions)
    texts = {u.id: render(u) for u in life.units}

    for q in questions["T1"]:
        actions = " ".join(parse_units([texts[i]])[0].get("action") for i in q.evidence)
        named = [
            item
            for part in re.findall(r"(?:buy|gives me) (.+?)(?: for \w+)?\.", actions)
            for item in split_entities(part)
        ]
        assert sorted(named) == sorted(q.gold["entities"])

    for q in questions["T3"]:
        units = [life.unit(i) for i in q.evidence]
        if q.kind == "duration":
            assert q.gold["seconds"] == (_time(units[1]) - _time(units[0])).total_seconds()
        elif q.kind == "gap":
            trigger, first_recalled = units[0], units[1]
            assert q.gold["years"] == whole_years_between(_time(first_recalled), _time(trigger))
            assert q.flashback
        elif q.kind == "order":
            by_letter = {
                letter: next(u for u in units if phrase.lower() in render(u).lower())
                for letter, phrase in q.slots["options"].items()
            }
            assert q.gold["order"] == sorted(by_letter, key=lambda letter: by_letter[letter].timestamp)
            narrated = sorted(by_letter, key=lambda letter: by_letter[letter].id)
            assert narrated != q.gold["order"]  # real time is not narration order
        else:
            present, past = units
            assert present.id < past.id and past.timestamp < present.timestamp  # the update paradox
            assert q.gold["value"] in (
                render(present) if str(q.slots["year"]) >= present.timestamp[:4] else render(past)
            )

    for q in questions["T4"]:
        scale = SEVERITY[q.slots["dimension"]]["phrases"]
        level = {
            letter: max(i for i, p in enumerate(scale) if p.lower() in render(u).lower())
            for letter, u in zip(q.slots["options"], (life.unit(i) for i in q.evidence))
        }
        assert q.gold["order"] == sorted(level, key=level.get)
        by_time = sorted(q.slots["options"], key=lambda letter: life.unit(q.evidence["ABCD".index(letter)]).timestamp)
        assert q.gold["order"] not in (by_time, by_time[::-1])  # never plain chronology

    for q in questions["T5"]:
        trigger = render(life.unit(q.evidence[0]))
        assert q.gold["cue"] in trigger and q.slots["title"] in trigger
        assert q.gold["modality"] in trigger.split("Inner thought:")[1]


@pytest.mark.parametrize("life", LIVES, ids=lambda life: life.dataset)
def test_every_trap_is_false_and_built_from_true_fragments(life):
    traps = life_questions(life)["T2"]
    assert {q.trap for q in traps} == {"entity_swap", "spatiotemporal", "false_causality"}
    truth = {(e.date, e.place, e.person, e.direction): e.cause for e in life.facts.exchanges}
    places = {u.location for u in life.units}
    for q in traps:
        s = q.slots
        assert s["person"] in life.cast and s["place"] in places
        key = (s["date"], s["place"], s["person"], s["direction"])
        if q.trap == "false_causality":
            assert key in truth and truth[key] not in (None, s["cause"])
            assert any(n.person == s["person"] and n.event == s["cause"] for n in life.facts.news)  # a real event
        else:
            assert key not in truth and s["cause"] is None


def test_t1_and_t2_questions_share_one_form():
    questions = life_questions(LIVES[0])
    for q in questions["T1"] + questions["T2"]:
        assert q.form == "extract" and set(q.slots) == {"date", "place", "person", "direction", "cause"}


@pytest.mark.parametrize("life", LIVES, ids=lambda life: life.dataset)
def test_slots_only_restate_the_question_text(life):
    for questions in life_questions(life).values():
        for q in questions:
            for value in _leaves(q.slots):
                if value in SEVERITY:  # a dimension is named by its scale's wording
                    assert SEVERITY[value]["question"] in q.text
                elif isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", value):
                    year, month = int(value[:4]), int(value[5:7])
                    assert str(year) in q.text and datetime(year, month, 1).strftime("%B") in q.text
                elif value is not None:
                    assert str(value) in q.text, (value, q.text)


def _leaves(value):  # type: ignore[no-untyped-def]
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    else:
        yield value
