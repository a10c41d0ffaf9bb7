"""The longmemeval loader on files in the released format: the generated sample, hand-written
edge cases and malformed files; the same code reads the real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytest_memeval.suites.longmemeval import catalog as catalog_module
from pytest_memeval.suites.longmemeval.catalog import Catalog, session_of, split_dated
from pytest_memeval.suites.longmemeval.released import QUESTION_TYPES, scan, stream_sessions
from pytest_memeval.suites.longmemeval.sample import FILES, write_file, write_sample

from pytest_memeval.errors import ConfigError, DataError
from pytest_memeval.framework.suite import SuiteOptions


def options(tmp_path: Path, data: Path | None = None, size: str = "smoke", **params: str) -> SuiteOptions:
    return SuiteOptions(
        size=size, split=None, seeds=None, k=10, data_dir=data, cache_dir=tmp_path / "cache", params=params
    )


def question(qid: str = "q1", **fields: object) -> dict:
    base = {
        "question_id": qid,
        "question_type": "single-session-user",
        "question": "What is my dog's name?",
        "answer": "Rex",
        "question_date": "2023/05/30 (Tue) 23:40",
        "haystack_session_ids": ["sharegpt_a_0", "answer_q1_1"],
        "haystack_dates": ["2023/05/01 (Mon) 10:00", "2023/05/02 (Tue) 11:00"],
        "haystack_sessions": [
            [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}],
            [
                {"role": "user", "content": "My dog is called Rex.", "has_answer": True},
                {"role": "assistant", "content": "Nice name!", "has_answer": False},
            ],
        ],
        "answer_session_ids": ["answer_q1_1"],
    }
    base.update(fields)
    return base


def test_the_sample_has_every_type_and_abstention_in_each_file(tmp_path: Path) -> None:
    paths = write_sample(tmp_path)
    assert {p.name for p in paths.values()} == set(FILES.values())
    for variant, path in paths.items():
        released = scan(path)
        types = [q.question_type for q in released.questions]
        assert {t: types.count(t) for t in QUESTION_TYPES} == dict.fromkeys(QUESTION_TYPES, 2) | {
            "single-session-user": 3,
            "multi-session": 3,
            "temporal-reasoning": 3,
            "knowledge-update": 3,
        }
        assert sum(q.abstention for q in released.questions) == 4
        assert all(
            q.answer_session_ids and all(s.startswith("answer_") for s in q.answer_session_ids)
            for q in released.questions
        )
        if variant == "oracle":  # the evidence sessions only
            assert all(set(q.session_ids) == set(q.answer_session_ids) for q in released.questions)
    assert len(scan(paths["m"]).questions[0].session_ids) > len(scan(paths["s"]).questions[0].session_ids)


def test_byte_spans_and_streamed_sessions_equal_the_whole_file_parsed(tmp_path: Path) -> None:
    path = write_sample(tmp_path)["s"]
    whole = json.loads(path.read_text())
    raw = path.read_bytes()
    released = scan(path)
    for q, obj in zip(released.questions, whole):
        assert json.loads(raw[q.start : q.end]) == obj
        assert list(stream_sessions(path, q)) == obj["haystack_sessions"]
        assert (q.question_id, q.answer, q.session_ids, q.dates) == (
            obj["question_id"],
            str(obj["answer"]),
            tuple(obj["haystack_session_ids"]),
            tuple(obj["haystack_dates"]),
        )


def test_non_ascii_text_numbers_and_whitespace_keep_the_spans_right(tmp_path: Path) -> None:
    path = tmp_path / "longmemeval_s_cleaned.json"
    first = question("q1", answer=3, question="Wie viele Cafés? ☕")
    first["haystack_sessions"][0][0]["content"] = "Grüße aus Tromsø 🙂 " * 50
    second = question("q2_abs", question_type="multi-session")
    path.write_text(
        "\n [\n" + json.dumps(first, ensure_ascii=False, indent=1) + " ,\n\t" + json.dumps(second) + "\n]\n"
    )
    released = scan(path)
    assert [q.question_id for q in released.questions] == ["q1", "q2_abs"]
    assert released.questions[0].answer == "3"  # str() of a number, as evaluate_qa.py formats it
    assert released.questions[1].abstention and not released.questions[0].abstention
    assert list(stream_sessions(path, released.questions[0]))[0][0]["content"].startswith("Grüße aus Tromsø 🙂")
    assert list(stream_sessions(path, released.questions[1])) == second["haystack_sessions"]


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"question_id": "q1"}', "not a JSON array"),
        ("[" + json.dumps(question())[:-40], "malformed JSON after byte 1"),
        ("[" + json.dumps(question()) + "] trailing", "text after the array's end"),
        ("[" + json.dumps(question()) + " " + json.dumps(question("q2")) + "]", "expected ',' or ']'"),
        ("[]", "holds no questions"),
        ("[" + json.dumps(question(question_type="open-domain")) + "]", "unknown question_type 'open-domain'"),
        ("[" + json.dumps(question(haystack_dates=["2023/05/01 (Mon) 10:00"])) + "]", "differ in length"),
        ("[" + json.dumps(question(answer=None)) + "]", "answer is not a string or a number"),
        ("[" + json.dumps(question(answer=float("nan"))) + "]", "question q1: answer is nan, not a number"),
        ("[" + json.dumps(question(answer=float("-inf"))) + "]", "question q1: answer is -inf, not a number"),
        (
            '[{"question_id": "q1", "haystack_sessions": ' + "[" * 200_000 + "]" * 200_000 + "}]",
            "the question object at byte 1 is nested 200,001 levels deep, too deep to read",
        ),
        ("[" + json.dumps(question()) + "," + json.dumps(question()) + "]", "appears twice"),
        ("[" + json.dumps(question(haystack_sessions=[[{"role": "bot", "content": "x"}], []])) + "]", "needs a role"),
    ],
)
def test_a_malformed_file_is_one_line_naming_it(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "longmemeval_s_cleaned.json"
    path.write_text(text)
    with pytest.raises(DataError, match="longmemeval_s_cleaned.json") as raised:
        scan(path)
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_without_data_the_catalog_writes_and_reads_the_sample(tmp_path: Path) -> None:
    catalog = Catalog(options(tmp_path))
    assert catalog.sample and catalog.path.name == "longmemeval_s_cleaned.json"
    assert len(catalog.questions) == 16  # smoke takes all of the sample
    assert catalog.describe()["sample"] is True and len(catalog.describe()["sha256"]) == 64


def test_sizes_take_the_first_questions_of_each_type(tmp_path: Path) -> None:
    path = tmp_path / "data" / "longmemeval_oracle.json"
    path.parent.mkdir()
    objects = [question(f"q{n}", question_type=QUESTION_TYPES[n % 6]) for n in range(30)]
    objects += [question(f"a{n}_abs") for n in range(6)]
    write_file(path, iter(objects))
    smoke = Catalog(options(tmp_path, path.parent, file="oracle"))
    assert list(smoke.questions) == [f"q{n}" for n in range(12)] + ["a0_abs", "a1_abs", "a2_abs", "a3_abs"]
    assert len(Catalog(options(tmp_path, path.parent, "full", file="oracle")).questions) == 36


@pytest.mark.parametrize("variant", ["s", "m", "oracle"])
def test_the_official_readmes_file_names_are_read_where_the_cleaned_file_is_absent(
    tmp_path: Path, variant: str
) -> None:
    """The official README names longmemeval_s.json and longmemeval_m.json; the cleaned
    release's file is preferred where a directory holds both."""
    data = tmp_path / "data"
    data.mkdir()
    readme_name = {"s": "longmemeval_s.json", "m": "longmemeval_m.json", "oracle": "longmemeval_oracle.json"}[variant]
    write_file(data / readme_name, iter([question("q_readme")]))
    catalog = Catalog(options(tmp_path, data, file=variant))
    assert (catalog.path.name, list(catalog.questions)) == (readme_name, ["q_readme"])
    write_file(data / FILES[variant], iter([question("q_cleaned")]))
    catalog = Catalog(options(tmp_path, data, file=variant))
    assert (catalog.path.name, list(catalog.questions)) == (FILES[variant], ["q_cleaned"])


def test_a_missing_file_or_a_bad_option_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(
        ConfigError,
        match=r"no longmemeval_m_cleaned.json or longmemeval_m.json \(download it from https://huggingface.co/",
    ):
        Catalog(options(tmp_path, tmp_path, file="m"))
    with pytest.raises(ConfigError, match="longmemeval.file=xl: one of s, m, oracle"):
        Catalog(options(tmp_path, file="xl"))
    with pytest.raises(ConfigError, match="longmemeval.dates=inline"):
        Catalog(options(tmp_path, dates="inline"))


def test_a_second_catalog_reads_the_cached_index_not_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = Catalog(options(tmp_path))
    monkeypatch.setattr(catalog_module, "scan", lambda path: pytest.fail("the unchanged file was scanned again"))
    second = Catalog(options(tmp_path))
    assert second.file.sha256 == first.file.sha256 and second.questions == first.questions


def test_message_ids_are_opaque_and_the_item_maps_its_evidence_back(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    write_file(data / "longmemeval_s_cleaned.json", iter([question()]))
    catalog = Catalog(options(tmp_path, data))
    sessions = list(catalog.context("q1").sessions)
    assert len(catalog.context("q1").sessions) == 2 == len(sessions)
    ids = [m.id for session in sessions for m in session]
    assert len(set(ids)) == 4 and not any("answer" in i or "sharegpt" in i for i in ids if i)
    evidence = sessions[1][0]
    assert split_dated(evidence.content) == ("2023/05/02 (Tue) 11:00", "user", "My dog is called Rex.")
    assert evidence.timestamp == "2023-05-02T11:00:00"
    item = catalog.item("q1")
    assert item.private["evidence_turns"] == (evidence.id,)
    assert item.private["evidence_sessions"] == (session_of(evidence.id),) == (session_of(sessions[1][1].id),)
    assert item.view.extra == {"question_date": "2023/05/30 (Tue) 23:40"} and item.gold == "Rex"
    assert "answer_q1_1" not in json.dumps([item.view.question, dict(item.view.extra)])


def test_timestamp_mode_keeps_the_text_verbatim(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    write_file(data / "longmemeval_s_cleaned.json", iter([question()]))
    session = list(Catalog(options(tmp_path, data, dates="timestamp")).context("q1").sessions)[1]
    assert session[0].content == "My dog is called Rex." and session[0].timestamp == "2023-05-02T11:00:00"


def test_recall_leaves_out_abstention_and_assistant_only_evidence(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    assistant = question("q2", question_type="single-session-assistant")
    assistant["haystack_sessions"][1][0]["has_answer"] = False
    assistant["haystack_sessions"][1][1]["has_answer"] = True
    write_file(data / "longmemeval_s_cleaned.json", iter([question("q1_abs"), assistant]))
    catalog = Catalog(options(tmp_path, data))
    for qid in ("q1_abs", "q2"):
        assert catalog.item(qid).private["evidence_turns"] == ()


def test_a_file_changed_after_indexing_fails_its_context_in_one_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    path = data / "longmemeval_s_cleaned.json"
    write_file(path, iter([question()]))
    released = scan(path)
    path.write_text("[" + json.dumps(question(haystack_sessions=[[], [], []])))
    with pytest.raises(DataError, match="question q1: cannot read its sessions|holds 2"):
        list(stream_sessions(path, released.questions[0]))


def test_an_unsorted_haystack_is_ingested_in_date_order(tmp_path: Path) -> None:
    # the oracle file does not sort its sessions by date (its README says so)
    data = tmp_path / "data"
    data.mkdir()
    q = question()
    for name in ("haystack_session_ids", "haystack_dates", "haystack_sessions"):
        q[name] = q[name][::-1]
    write_file(data / "longmemeval_oracle.json", iter([q]))
    catalog = Catalog(options(tmp_path, data, file="oracle"))
    sessions = list(catalog.context("q1").sessions)
    assert [split_dated(s[0].content)[0] for s in sessions] == ["2023/05/01 (Mon) 10:00", "2023/05/02 (Tue) 11:00"]
    assert catalog.item("q1").private["evidence_turns"] == (sessions[1][0].id,)
