"""The beam suite: its released layout read as shipped, its generated sample, its offline path,
and one run through pytest under -n 2 with an LLM responder and judge."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, Request
from pytest_memeval.suites.beam.catalog import Chat, scale_setting
from pytest_memeval.suites.beam.released import ABILITIES, batches, read_questions
from pytest_memeval.suites.beam.sample import write_sample
from pytest_memeval.suites.beam.suite import BeamSuite

from pytest_memeval.errors import ConfigError, DataError
from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.types import Memory, Trace


def options(tmp_path: Path, data: Path | None = None, size: str = "smoke", **params: str) -> SuiteOptions:
    return SuiteOptions(size, None, None, 10, data, tmp_path / "cache", bootstrap=50, params=params)


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_sample_is_deterministic_in_seed_and_size(tmp_path: Path) -> None:
    for name, size, seed in (("a", "smoke", 0), ("b", "smoke", 0), ("c", "smoke", 1), ("d", "small", 0)):
        write_sample(tmp_path / name, size, seed)
    assert tree(tmp_path / "a") == tree(tmp_path / "b")
    assert tree(tmp_path / "a") != tree(tmp_path / "c")
    assert set(tree(tmp_path / "a")) < set(tree(tmp_path / "d"))


def test_each_conversation_has_its_20_questions_and_the_truncated_chat_is_read(tmp_path: Path) -> None:
    suite = BeamSuite(options(tmp_path))
    assert suite.sample() and suite.catalog.sample
    entries = suite.index()
    assert len(entries) == 40 and {e.context_id for e in entries} == {"100K-1", "10M-1"}
    for context in ("100K-1", "10M-1"):
        marks = [e.marks[0] for e in entries if e.context_id == context]
        assert sorted(marks) == sorted(f"beam_{a}" for a in ABILITIES for _ in range(2))
    root = suite.catalog.root / "chats" / "100K" / "1"
    full = [m.id for b in batches(root / "chat.json") for m in b]
    truncated = Chat(root / "chat_trunecated.json")
    stored = [m.id for session in suite.context("100K-1").sessions for m in session]
    assert stored == [m.id for session in truncated for m in session] and len(stored) < len(full)


def test_the_10m_combined_chat_streams_its_plans_with_global_ids(tmp_path: Path) -> None:
    suite = BeamSuite(options(tmp_path, scale="10M"))
    raw = json.loads((suite.catalog.root / "chats" / "10M" / "1" / "chat.json").read_text())
    assert [list(plan) for plan in raw] == [["plan-1"], ["plan-2"]]
    sessions = suite.context("10M-1").sessions
    ids = [int(m.id or -1) for session in sessions for m in session]
    assert len(sessions) == 4 and ids == list(range(len(ids)))
    assert sessions[0][0].timestamp == "2024-03-01" and all(m.timestamp for s in sessions for m in s)


def test_only_the_public_question_crosses(tmp_path: Path) -> None:
    suite = BeamSuite(options(tmp_path))
    item = suite.item(suite.index()[0].id)
    assert item.view.question and not item.view.extra and not item.view.answer_space
    assert item.private["rubric"] == item.gold and item.cluster == item.context_id
    for text in item.gold:
        assert text not in item.view.question


def test_the_evidence_is_the_source_messages_as_the_context_stores_them(tmp_path: Path) -> None:
    suite = BeamSuite(options(tmp_path))
    stored = {(c, m.id): m for c in ("100K-1", "10M-1") for s in suite.context(c).sessions for m in s}
    raw = json.loads(
        (suite.catalog.root / "chats" / "10M" / "1" / "probing_questions" / "probing_questions.json").read_text()
    )
    for entry in suite.index():
        item = suite.item(entry.id)
        if item.view.task == "abstention":
            assert item.evidence is None  # no source_chat_ids
            continue
        assert item.evidence is not None
        assert all(stored[(item.context_id, m.id)] == m for m in item.evidence.messages)
    item = suite.item("10M-1-temporal_reasoning-1")
    sources = raw["temporal_reasoning"][0]["source_chat_ids"]
    assert item.evidence is not None and item.evidence.ids == {str(i) for ids in sources.values() for i in ids}


def test_the_offline_reader_answers_every_sample_question_from_the_whole_chat(tmp_path: Path) -> None:
    suite = BeamSuite(options(tmp_path, size="small"))
    reader, judge = suite.reader(), suite.judge()
    memories: dict[str, list[Memory]] = {}
    for entry in suite.index():
        if entry.context_id not in memories:
            sessions = suite.context(entry.context_id).sessions
            memories[entry.context_id] = [Memory(m.content, sources=(m.id or "",)) for s in sessions for m in s]
        item = suite.item(entry.id)
        answer = reader.answer(item.view, memories[entry.context_id])
        verdict = judge.score(item, answer, Trace(tuple(memories[entry.context_id]), keeps_sources=True))
        assert verdict.score == 1.0, (entry.id, answer.label, item.gold)


def test_without_its_memories_the_reader_fails_and_on_foreign_text_says_it_cannot_read(tmp_path: Path) -> None:
    suite = BeamSuite(options(tmp_path))
    reader, judge = suite.reader(), suite.judge()
    scores = []
    for entry in suite.index():
        item = suite.item(entry.id)
        scores.append(judge.score(item, reader.answer(item.view, []), Trace()).score or 0.0)
    # only the abstention questions are right with nothing remembered
    assert sum(score == 1.0 for score in scores) == 4 and sum(scores) < 10
    item = suite.item(suite.index()[0].id)
    assert reader.answer(item.view, [Memory("The user enjoys long walks.")]).memory_unreadable


def test_a_release_without_chats_or_with_a_missing_chat_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no chats/ directory"):
        BeamSuite(options(tmp_path, data=tmp_path))
    write_sample(tmp_path / "release", "smoke", 0)
    (tmp_path / "release" / "chats" / "10M" / "1" / "chat.json").unlink()
    with pytest.raises(ConfigError, match="chats/10M/1 has no chat.json"):
        BeamSuite(options(tmp_path, data=tmp_path / "release"))
    with pytest.raises(ConfigError, match="no chats/500K/"):
        BeamSuite(options(tmp_path, data=tmp_path / "release", scale="500K"))
    suite = BeamSuite(options(tmp_path, data=tmp_path / "release", scale="100k"))
    assert not suite.sample() and {e.context_id for e in suite.index()} == {"100K-1"}
    assert [p.name for p in suite.data_files()] == ["chat_trunecated.json", "probing_questions.json"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"turns": []}', "not a JSON array of batches"),
        ('[{"batch_number": 1, "turns": [[{"role": "user", "id": "0", "content": "x"}]]}]', "id is not an integer"),
        ('[{"batch_number": 1, "turns": [[{"role": "bot", "id": 0, "content": "x"}]]}]', "needs a role"),
        ('[{"batch_number": 1, "turns": [[{"role": "user", "id": 0, "content": "x"}', "malformed JSON"),
        (
            '[{"turns": [[{"role": "user", "id": 1, "content": "x"}]]}, {"turns": [[{"role": "user", "id": 0, '
            '"content": "y"}]]}]',
            "message ids go back",
        ),
    ],
)
def test_a_malformed_chat_is_a_data_error_naming_the_file(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "chat.json"
    path.write_text(content)
    with pytest.raises(DataError, match=message):
        list(batches(path))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"recall": []}', "unknown abilities"),
        ('{"abstention": [{"question": "q", "rubric": []}]}', "rubric is not a non-empty list"),
        ('{"abstention": [{"rubric": ["r"]}]}', "no question"),
    ],
)
def test_malformed_probing_questions_are_a_data_error(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "probing_questions.json"
    path.write_text(content)
    with pytest.raises(DataError, match=message):
        read_questions(path)


def test_source_chat_ids_of_every_shape_are_the_evidence(tmp_path: Path) -> None:
    path = tmp_path / "probing_questions.json"
    shapes: list[Any] = [[3, [5, 4]], {"first_event": [9], "second_event": [2]}, []]
    questions = [{"question": "q", "rubric": ["r"], "source_chat_ids": s} for s in shapes]
    path.write_text(json.dumps({"event_ordering": questions, "abstention": [{"question": "q", "rubric": ["r"]}]}))
    assert [q.source_ids for q in read_questions(path)] == [(), (3, 4, 5), (2, 9), ()]


def test_scale_setting() -> None:
    assert scale_setting(None) is None and scale_setting("10m, 100k") == ("100K", "10M")
    with pytest.raises(ConfigError, match="beam.scale=2M"):
        scale_setting("2M")


@pytest.mark.skipif(not os.environ.get("MEMEVAL_BEAM_DATA"), reason="MEMEVAL_BEAM_DATA names no clone of BEAM")
def test_the_real_release_loads_20_questions_per_conversation(tmp_path: Path) -> None:
    data = Path(os.environ["MEMEVAL_BEAM_DATA"])
    suite = BeamSuite(options(tmp_path, data=data, size="full", scale="100K,500K"))
    counts: dict[str, int] = {}
    for entry in suite.index():
        counts[entry.context_id] = counts.get(entry.context_id, 0) + 1
    assert len(counts) == 55 and set(counts.values()) == {20}


# --- one run through pytest: -n 2, an LLM responder and the official judge ---------------------


def script(request: Request) -> str:
    """The responder answers "I don't know"; the judge gives every rubric item 1.0 when the
    question is an abstention one (its rubric item starts "Based on"), else 0.5; the
    alignment says NO."""
    messages = request.messages
    if len(messages) == 2:
        return "NO"
    content = messages[0]["content"]
    if "RUBRIC CRITERION" not in content:
        return "I don't know."
    item = content.split("- RUBRIC CRITERION (what to check): ", 1)[1]
    return '{"score": 1.0, "reason": "r"}' if item.startswith("Based on") else '{"score": 0.5, "reason": "r"}'


@pytest.mark.slow
def test_a_run_under_xdist_with_an_llm_responder_and_the_official_judge(suite_pytester: pytest.Pytester) -> None:
    report = suite_pytester.path / "report.json"
    with LLMServer(script) as server:
        result = suite_pytester.runpytest_subprocess(
            "--pyargs",
            "pytest_memeval.suites.test_beam",
            "--memsystem=context",
            "--memeval-suite=beam",
            "-n",
            "2",
            "-m",
            "beam_100k",
            "--memeval-responder=openai:reader-model",
            "--memeval-judge=default",
            f"--memeval-base-url={server.base_url}",
            f"--memeval-report={report}",
            "-p",
            "no:cacheprovider",
        )
        requests = server.requests
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stdout.str()[-3000:]
    (run,) = json.loads(report.read_text())["runs"]
    assert run["n_scored"] == 20 and run["key"]["judge"] == "gpt-4.1-mini@beam"
    # official scoring: every 0.5 counts 0, except in event ordering, which reports tau_norm
    cells = {name: cell["metrics"]["score"]["value"] for name, cell in run["breakdown"]["ability"].items()}
    assert cells["abstention"] == 1.0 and cells["summarization"] == 0.0
    assert cells["event_ordering"] == pytest.approx(0.14644660940672616)  # one unmatched line
    answers = [r for r in requests if "RUBRIC CRITERION" not in r.messages[0]["content"] and len(r.messages) == 1]
    assert len(answers) == 20 and all(r.model == "reader-model" for r in answers)
    assert all(r.model == "gpt-4.1-mini" for r in requests if r not in answers)


@pytest.mark.slow
def test_the_estimate_counts_one_judge_call_per_rubric_item(suite_pytester: pytest.Pytester, tmp_path: Path) -> None:
    suite = BeamSuite(options(tmp_path))
    items = [suite.item(e.id) for e in suite.index() if e.context_id == "100K-1"]
    result = suite_pytester.runpytest_subprocess(
        "--pyargs",
        "pytest_memeval.suites.test_beam",
        "--memsystem=context",
        "--memeval-suite=beam",
        "-m",
        "beam_100k",
        "--memeval-responder=openai:answerer",
        "--memeval-judge=default",
        "--memeval-base-url=http://127.0.0.1:9/v1",
        "--collect-only",
        "-q",
        "-p",
        "no:cacheprovider",
    )
    output = result.stdout.str()
    assert "answer answerer: 20 calls" in output, output
    assert f"judge  gpt-4.1-mini: {sum(len(i.private['rubric']) for i in items)} calls" in output, output
