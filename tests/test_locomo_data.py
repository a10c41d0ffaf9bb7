"""The locomo loader on the generated sample (every quirk of the release) and on hand-written
edge cases; the sample's golds and evidence against its own text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pytest_memeval.suites.locomo.catalog import NOT_MENTIONED, Catalog, turn_text
from pytest_memeval.suites.locomo.released import find_file, load_release, parse_release
from pytest_memeval.suites.locomo.sample import sample, sample_bytes, write_sample
from pytest_memeval.suites.locomo.suite import LocomoSuite

from pytest_memeval.errors import DataError
from pytest_memeval.framework.suite import SuiteOptions


def _conversation(**changes: Any) -> dict[str, Any]:
    conversation = {
        "speaker_a": "Ann",
        "speaker_b": "Bo",
        "session_2_date_time": "9:00 am on 3 June, 2023",
        "session_2": [{"speaker": "Bo", "dia_id": "D2:1", "text": "Second."}],
        "session_10_date_time": "9:00 am on 9 June, 2023",
        "session_10": [{"speaker": "Ann", "dia_id": "D10:1", "text": "Tenth."}],
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ann", "dia_id": "D1:1", "text": "Hi!"},
            {
                "speaker": "Bo",
                "dia_id": "D1:2",
                "text": "Look!",
                "img_url": ["x"],
                "blip_caption": "a photo of a cake",
                "query": "cake",
                "re-download": True,
            },
        ],
        "session_11_date_time": "9:00 am on 19 June, 2023",
    }
    qa = [
        {"question": "When?", "answer": 2022, "evidence": ["D1:1"], "category": 2},
        {"question": "Who?", "adversarial_answer": "Bo", "evidence": ["D1:2; D2:1"], "category": 5},
        {"question": "Which?", "answer": "cake, tea", "evidence": ["D:10:1", "D2:01", "D", "D9:9"], "category": 1},
    ]
    entry = {"sample_id": "conv-x", "conversation": conversation, "qa": qa, "observation": {}, "session_summary": {}}
    entry.update(changes)
    return entry


def _parse(entries: list[dict[str, Any]]) -> Any:
    return parse_release(json.dumps(entries).encode(), Path("locomo10.json"))


def test_sessions_in_number_order_and_every_quirk_read() -> None:
    release = _parse([_conversation()])
    (conversation,) = release.conversations
    assert [s.number for s in conversation.sessions] == [1, 2, 10]  # not key order, no session 11
    assert conversation.sessions[0].date_time == "1:56 pm on 8 May, 2023"
    assert conversation.sessions[0].turns[1].blip_caption == "a photo of a cake"
    when, who, which = conversation.qa
    assert when.answer == 2022 and who.answer is None and who.adversarial_answer == "Bo"
    assert who.evidence == ("D1:2", "D2:1")
    assert which.evidence == ("D10:1", "D2:1")  # stray colon, leading zero, "D" and an unknown id
    assert which.raw_evidence == ("D:10:1", "D2:01", "D", "D9:9")
    assert any("D9:9 names no turn" in note for note in release.notes)
    assert any("'D' read as nothing" in note for note in release.notes)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"qa": [{"question": "q", "answer": "a", "evidence": [], "category": 6}]}, "category 6"),
        ({"qa": [{"question": "q", "answer": "a", "evidence": [], "category": 1.5}]}, "category 1.5 is not one of"),
        ({"qa": [{"question": "q", "answer": "a", "evidence": [], "category": True}]}, "category True is not one of"),
        ({"qa": [{"question": "q", "evidence": [], "category": 2}]}, "no answer"),
        ({"qa": [{"question": "q", "answer": "a", "evidence": [], "category": 5}]}, "without adversarial_answer"),
        ({"qa": [{"question": "q", "answer": "a", "evidence": "D1:1", "category": 2}]}, "evidence must be a list"),
        ({"conversation": {"speaker_a": "A", "speaker_b": "B"}}, "no session_N"),
        ({"sample_id": 7}, "'sample_id' must be a string"),
    ],
)
def test_out_of_shape_data_is_one_line_naming_the_place(change: dict[str, Any], message: str) -> None:
    with pytest.raises(DataError, match=message) as raised:
        _parse([_conversation(**change)])
    assert "\n" not in str(raised.value) and "locomo10.json[0]" in str(raised.value)


def test_a_category_written_as_a_float_is_its_integer(tmp_path: Path) -> None:
    """A file rewritten by a tool that makes numbers floats: "category": 1.0 is category 1,
    not a stratum "1.0 multi-hop" and a marker locomo_cat1.0."""
    data = json.loads(sample_bytes(7, 2))
    for conversation in data:
        for qa in conversation["qa"]:
            qa["category"] = float(qa["category"])
    (tmp_path / "locomo10.json").write_text(json.dumps(data), encoding="utf-8")
    release = load_release(find_file(tmp_path))
    assert {type(q.category) for c in release.conversations for q in c.qa} == {int}
    suite = LocomoSuite(_options(tmp_path))
    entries = suite.index()
    assert entries and {mark for entry in entries for mark in entry.marks} == {
        "locomo_cat1",
        "locomo_cat2",
        "locomo_cat3",
        "locomo_cat4",
    }
    items = [suite.catalog.item(entry.id) for entry in entries]
    assert {item.strata["category"] for item in items} == {"1", "2", "3", "4"}
    assert {item.strata["category_name"].split()[0] for item in items} == {"1", "2", "3", "4"}


def test_json_nested_too_deeply_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "locomo10.json").write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(DataError) as raised:
        load_release(find_file(tmp_path))
    assert str(raised.value).startswith(f"{tmp_path / 'locomo10.json'}: not JSON: nested 200,000 levels deep")


def test_not_json_and_missing_file(tmp_path: Path) -> None:
    (tmp_path / "locomo10.json").write_text("[{")
    with pytest.raises(DataError, match="not JSON"):
        load_release(find_file(tmp_path))
    with pytest.raises(DataError, match="no locomo10.json"):
        find_file(tmp_path / "elsewhere")


def test_the_sample_has_every_quirk_and_its_golds_are_in_its_evidence(tmp_path: Path) -> None:
    data = sample(2024, 4)
    assert sample(2024, 4) == data  # deterministic
    path = write_sample(tmp_path)
    release = load_release(find_file(tmp_path))
    assert json.loads(path.read_text()) == data
    questions = [q for c in release.conversations for q in c.qa]
    assert {q.category for q in questions} == {1, 2, 3, 4, 5}
    assert any(isinstance(q.answer, int) for q in questions)
    assert any(q.category == 5 and q.answer is None for q in questions)
    assert any(q.category == 5 and q.answer is not None for q in questions)
    spelled = {e for q in questions for e in q.raw_evidence}
    assert {"D"} <= spelled and any(";" in e for e in spelled) and any(e.startswith("D:") for e in spelled)
    turns = [
        t
        for c in data
        for k, v in c["conversation"].items()
        if k.startswith("session_") and isinstance(v, list)
        for t in v
    ]
    assert any("re-download" in t for t in turns) and any("blip_caption" in t for t in turns)
    for conversation in release.conversations:
        text = {t.dia_id: f"{t.text} {t.blip_caption or ''}" for t in conversation.turns()}
        for q in conversation.qa:
            assert q.evidence, q
            if q.category == 2 or (q.category == 5 and q.answer is not None):
                continue  # a date computed from the session's date; a yes/no distractor
            if q.category == 3:  # an inference; its explanation names what the turn says
                parts = [str(q.answer).split(";")[1].split()[-1]]
            else:
                parts = str(q.adversarial_answer if q.category == 5 else q.answer).split(", ")
            for part in parts:
                assert any(part.lower().removeprefix("a ") in text[e].lower() for e in q.evidence), (q, part)


def _options(data_dir: Path | None, size: str = "smoke") -> SuiteOptions:
    return SuiteOptions(size=size, split=None, seeds=None, k=10, data_dir=data_dir, cache_dir=Path("."))


def test_contexts_and_items_from_the_sample(tmp_path: Path) -> None:
    catalog = Catalog(_options(None), (1, 2, 3, 4, 5), "scorer")
    assert catalog.source.kind == "sample" and "not the LoCoMo benchmark" in catalog.source.description
    first = next(iter(catalog.conversations))
    context = catalog.context(first)
    messages = [m for session in context.sessions for m in session]
    assert all(m.id is not None and m.id.startswith("D") for m in messages)
    assert all(" | " in m.content for m in messages) and any(" and shared a photo" in m.content for m in messages)
    items = [catalog.item(i) for i in catalog.questions]
    adversarial = [i for i in items if i.strata["category"] == "5"]
    assert adversarial and all(
        i.gold == NOT_MENTIONED and "Select the correct answer" in i.view.question for i in adversarial
    )
    for item in items:  # the public view never holds evidence or gold of answerable items
        assert "evidence" not in item.view.extra and item.private["evidence"] == list(item.private["evidence"])
        if item.strata["category"] != "5":
            assert str(item.gold) not in item.view.question


def test_the_release_is_read_through_the_same_loader(tmp_path: Path) -> None:
    write_sample(tmp_path, seed=7, conversations=3)
    catalog = Catalog(_options(tmp_path), (1, 2, 3, 4), "mem0")
    assert catalog.source.kind == "release" and len(catalog.source.sha256[0]) == 64
    assert len(catalog.conversations) == 3
    assert {catalog.item(i).strata["category_name"] for i in catalog.questions} >= {"4 open-domain", "1 single-hop"}


def test_turn_text_is_mem0s_line_with_the_official_caption() -> None:
    release = _parse([_conversation()])
    session = release.conversations[0].sessions[0]
    assert turn_text(session.turns[1], session.date_time) == (
        "1:56 pm on 8 May, 2023 | Bo: Look! and shared a photo of a cake"
    )
