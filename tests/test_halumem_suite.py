"""The halumem suite on its generated sample: the released format, the protocol's order (each
session's probes and questions right after it), what crosses to the memory system and the
responder, extraction without a dump, and runs through pytest offline on two workers and
through the LLM path (loopback fakes)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, Request
from pytest_memeval.suites.halumem.catalog import Catalog
from pytest_memeval.suites.halumem.released import scan
from pytest_memeval.suites.halumem.sample import FILES, write_sample
from pytest_memeval.suites.halumem.suite import HaluMemSuite

from pytest_memeval.errors import DataError
from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.memory.context import ContextMemory
from pytest_memeval.results.records import Record, RunKey
from pytest_memeval.running.evaluation import Components, evaluate_items
from pytest_memeval.types import Answer, ItemView, Memory, Message


def _suite(tmp_path: Path, data_dir: Path | None = None, **params: str) -> HaluMemSuite:
    options = SuiteOptions("smoke", None, None, 10, data_dir, tmp_path, bootstrap=50, params=params)
    return HaluMemSuite(options)


USER_KEYS = {"uuid", "persona_info", "sessions", "total_dialogue_token_length", "total_question_count", "token_cost"}
SESSION_KEYS = {"start_time", "end_time", "memory_points_count", "memory_points", "dialogue_turn_num", "dialogue"}
SESSION_KEYS |= {"dialogue_token_length"}
FILLER_KEYS = SESSION_KEYS | {"title", "questions", "question_count", "is_generated_qa_session", "generation_source"}


def test_the_sample_has_the_released_format_and_depends_on_seed_and_size_only(tmp_path: Path) -> None:
    write_sample(tmp_path / "a", 7, "smoke")
    write_sample(tmp_path / "b", 7, "smoke")
    write_sample(tmp_path / "c", 8, "smoke")
    for name in FILES.values():
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
        assert (tmp_path / "a" / name).read_bytes() != (tmp_path / "c" / name).read_bytes()
    medium = [json.loads(line) for line in (tmp_path / "a" / FILES["medium"]).read_text().splitlines()]
    long = [json.loads(line) for line in (tmp_path / "a" / FILES["long"]).read_text().splitlines()]
    for user in medium:
        assert set(user) == USER_KEYS
        for session in user["sessions"]:
            assert set(session) in (SESSION_KEYS, SESSION_KEYS | {"questions", "question_count"})
            for point in session["memory_points"]:
                assert point["is_update"] in ("True", "False")
                assert ("importance" in point) == (point["memory_source"] != "interference")
                assert bool(point["original_memories"]) == (point["is_update"] == "True")
    fillers = [s for u in long for s in u["sessions"] if s.get("is_generated_qa_session")]
    assert fillers and all(set(s) == FILLER_KEYS | {"session_id"} for s in fillers)
    assert all(s["session_id"] == n for u in long for n, s in enumerate(u["sessions"]))


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "HaluMem-Medium.jsonl:1: not JSON"),
        ('{"uuid": "u", "persona_info": "no name", "sessions": [{}]}', "persona_info has no 'Name: ...; Gender:'"),
        (
            '{"uuid": "u", "persona_info": "Name: A; Gender: F", "sessions": [{"start_time": "x", "dialogue": [], '
            '"memory_points": [{"memory_content": "m", "memory_type": "Persona Memory", "memory_source": "system", '
            '"is_update": true}]}]}',
            "is_update True is not the string 'True' or 'False'",
        ),
    ],
)
def test_a_released_file_out_of_format_is_one_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "HaluMem-Medium.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(DataError, match=re.escape(message)) as raised:
        scan(path)
    assert "\n" not in str(raised.value)


def test_the_release_is_read_under_either_name_and_sized(tmp_path: Path) -> None:
    write_sample(tmp_path / "sample", 1, "full")
    data = tmp_path / "data"
    data.mkdir()
    (data / "HaluMem-long.jsonl").write_bytes((tmp_path / "sample" / FILES["long"]).read_bytes())
    suite = _suite(tmp_path, data, file="long")
    assert suite.sample() == "" and suite.data_files() == [data / "HaluMem-long.jsonl"]
    catalog: Catalog = suite.catalog
    assert len(catalog.users) == 1 and catalog.limit == 6  # smoke: the first user's first 6 sessions
    assert {e.id.split("/")[1] for e in suite.index()} <= {f"s{n}" for n in range(6)}
    with pytest.raises(Exception, match="no HaluMem-Medium.jsonl or HaluMem-medium.jsonl"):
        _suite(tmp_path, data)


class Recording(ContextMemory):
    """The `context` store, every call written down."""

    def __init__(self, dumps: bool = True) -> None:
        super().__init__(token_budget=10**6)
        self.calls: list[tuple[str, Any]] = []
        self.dumps = dumps

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        self.calls.append(("ingest", session[0].content))
        super().ingest(namespace, session)

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        self.calls.append(("retrieve", (query, k)))
        return super().retrieve(namespace, query, k)

    def dump(self, namespace: str) -> list[Memory] | None:
        self.calls.append(("dump", None))
        return super().dump(namespace) if self.dumps else None


class Responder:
    def __init__(self, reader: Any) -> None:
        self.reader, self.views = reader, []

    def answer(self, view: ItemView, memories: Sequence[Memory]) -> Answer:
        self.views.append(view)
        return self.reader.answer(view, memories)


def _run(suite: HaluMemSuite, system: Recording, responder: Responder) -> list[Record]:
    parts = Components.offline(suite, system, "recording", responder)
    return list(evaluate_items(parts, [e.id for e in suite.index()], RunKey("halumem", "recording")))


def test_each_sessions_probes_and_questions_come_right_after_it(tmp_path: Path) -> None:
    suite = _suite(tmp_path, file="long")
    system, responder = Recording(), Responder(suite.reader())
    records = _run(suite, system, responder)
    assert all(r.is_scored for r in records), [r.reason for r in records if not r.is_scored]
    sessions = {uuid: suite.catalog.sessions(user) for uuid, user in suite.catalog.users.items()}
    expected: list[tuple[str, Any]] = []
    for user_sessions in sessions.values():
        for session in user_sessions:
            if session.generated:
                expected.append(("ingest", session.dialogue[0].content))
                continue
            expected += [("dump", None), ("ingest", session.dialogue[0].content), ("dump", None)]
            expected += [("retrieve", (p.content, 10)) for p in session.points if p.probed]
            expected += [("retrieve", (q.question, 10)) for q in session.questions or ()]
    # one run per user, whatever the item order; the dump before a session follows a filler only
    calls = [c for c in system.calls]
    assert [c for c in calls if c[0] == "ingest"] == [c for c in expected if c[0] == "ingest"]
    assert [c for c in calls if c[0] == "retrieve"] == [c for c in expected if c[0] == "retrieve"]
    assert len(responder.views) == sum(len(s.questions or ()) for ss in sessions.values() for s in ss)
    for view in responder.views:
        assert set(view.extra) == {"user"} and view.task == "qa"
    by_kind = {r.detail["scored_as"] for r in records}
    assert by_kind == {"integrity", "interference", "update", "accuracy", "qa"}
    summary = suite.summarize(records)
    metrics = {name: m.value for name, m in summary.metrics.items()}
    # the `context` store keeps every message: everything is recalled and answered, and
    # every distractor the assistant asserted is kept too
    assert metrics["qa_correct"] == 1.0 and metrics["recall"] == 1.0 and metrics["update_correct"] == 1.0
    assert metrics["interference_accuracy"] == 0.0
    assert "generated sample" in summary.note


def test_without_a_dump_extraction_is_not_available(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    records = _run(suite, Recording(dumps=False), Responder(suite.reader()))
    na = [r for r in records if r.detail.get("na")]
    assert na and all(
        r.correct is None and r.detail["scored_as"] in ("integrity", "interference", "accuracy") for r in na
    )
    assert all(r.correct is not None for r in records if r.detail["scored_as"] in ("qa", "update"))
    summary = suite.summarize(records)
    assert summary.metrics["recall"].value is None and summary.metrics["qa_correct"].value == 1.0
    assert "dump() returns None" in summary.note


PRIVATE = re.compile(r"memory_source|interference|is_update|Basic Fact Recall|Memory Boundary|importance")


def test_nothing_private_reaches_the_memory_system_or_the_responder(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    for entry in suite.index():
        item = suite.item(entry.id)
        assert not PRIVATE.search(json.dumps([item.view.question, dict(item.view.extra), item.view.task]))
    for context in {e.context_id for e in suite.index()}:
        for session in suite.context(context).sessions:
            for message in session:
                assert not PRIVATE.search(message.content) and not PRIVATE.search(message.id or "")


def test_a_question_declares_its_sessions_as_evidence(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    questions = [suite.item(e.id) for e in suite.index() if "halumem_qa" in e.marks]
    cited = [q for q in questions if q.private["evidence"]]
    assert cited and all(q.evidence is not None for q in cited)
    assert all(q.evidence is None for q in questions if not q.private["evidence"])
    stored = {m.id for c in {q.context_id for q in cited} for s in suite.context(c).sessions for m in s}
    assert all(q.evidence is not None and q.evidence.ids <= stored for q in cited)


# --- through pytest ---------------------------------------------------------------------------


def _report(pytester: pytest.Pytester, name: str, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    report = pytester.path / f"{name}.json"
    result = pytester.runpytest_subprocess(
        "--memeval-suite=halumem", f"--memeval-report={report}", "-p", "no:cacheprovider", *args
    )
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stdout.str()[-3000:]
    return result, json.loads(report.read_text())


@pytest.mark.slow
def test_markers_and_two_workers_offline(suite_pytester: pytest.Pytester) -> None:
    selected = suite_pytester.runpytest(
        "--memsystem=context",
        "--memeval-suite=halumem",
        "--collect-only",
        "-q",
        "--strict-markers",
        "-m",
        "halumem_qa",
        "--memeval-responder=openai:resp",
        "--memeval-judge=openai:judge@halumem",
    )
    selected.stdout.fnmatch_lines(["*test_halumem.py::test_halumem[[]*/q0[]]", "10/28 tests collected*"])
    # interactive, and estimated: each question's answer and its QA judgement
    selected.stdout.fnmatch_lines(["  answer resp: 10 calls, *", "  judge  judge: 10 calls, *", "  total: 20 calls, *"])
    assert "not estimated" not in selected.stdout.str().replace("a memory system's own LLM calls are not estimated", "")
    result, report = _report(suite_pytester, "parallel", "--memsystem=context", "-n", "2")
    (run,) = report["runs"]
    assert run["n_scored"] == 28 and run["labels"] == ["sample"], run["labels"]
    assert run["metrics"]["qa_correct"]["value"] == 1.0 and run["metrics"]["interference_accuracy"]["value"] == 0.0
    result.stdout.fnmatch_lines(["*2 failed, 26 passed*"])  # the two distractors the store kept


def judge_script(request: Request) -> str:
    content = request.messages[0]["content"]
    if content.startswith("\n    You are an intelligent memory assistant"):
        return "Not mentioned."
    if "Memory Integrity" in content:
        return 'Done.\n```json\n{"reasoning": "covered", "score": "2"}\n```'
    if "Dialogue Memory Accuracy" in content:
        return '```json\n{"accuracy_score": "2", "is_included_in_golden_memories": true, "reason": "是"}\n```'
    if "update accuracy" in content:
        return '{"evaluation_result": "Correct"}'  # no fence: unreadable, as the official parser reads it
    return '```json\n{"reasoning": "r", "evaluation_result": "Omission"}\n```'


@pytest.mark.slow
def test_the_llm_path_asks_the_official_prompts_and_reads_them_officially(suite_pytester: pytest.Pytester) -> None:
    with LLMServer(judge_script) as server:
        _, report = _report(
            suite_pytester,
            "llm",
            "--memsystem=context",
            "--memeval-responder=openai:reader",
            "--memeval-judge=openai:judge",
            f"--memeval-base-url={server.base_url}",
            "--memeval-llm-cache=off",
        )
        requests = server.requests
    (run,) = report["runs"]
    metrics = {name: m["value"] for name, m in run["metrics"].items()}
    assert metrics["qa_omission"] == 1.0 and metrics["qa_correct"] == 0.0
    assert metrics["recall"] == 1.0 and metrics["target_accuracy"] is None  # a JSON true is no target
    assert metrics["weighted_accuracy"] == 1.0
    assert metrics["update_correct"] == 0.0 and metrics["update_correct_valid"] is None  # (all) counts the unreadable
    answers = [r for r in requests if r.model == "reader"]
    assert len(answers) == 10 and all("Memories for user " in r.messages[0]["content"] for r in answers)
    assert all(r.model == "judge" for r in requests if r not in answers)


def test_the_estimate_plans_each_items_calls_as_the_protocol_makes_them(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    turns = [Memory(f"turn {n}") for n in range(30)]
    stages = {"Memory Integrity": "integrity", "Dialogue Memory Accuracy": "accuracy", "update accuracy": "update"}
    seen: set[str] = set()
    for entry in suite.index():
        item = suite.item(entry.id)
        calls = suite.planned_calls(item, lambda n: turns[:n], 7)
        p = item.private
        kinds = [
            (call.phase, next((s for marker, s in stages.items() if marker in call.messages[0]["content"]), "qa"))
            for call in calls
        ]
        seen.update(f"{phase} {stage}" for phase, stage in kinds)
        session = suite.catalog.user(p["user"]).sessions[p["session"]]
        golden = [point.content for point in session.points if not point.interference]
        if p["kind"] == "qa":
            assert kinds == [("answer", "qa"), ("judge", "qa")]
            assert "turn 6" in calls[0].messages[-1]["content"] and "turn 7" not in calls[0].messages[-1]["content"]
        elif p["kind"] == "session":  # one accuracy judgement per memory extracted: its gold points assumed
            assert kinds == [("judge", "accuracy")] * len(golden)
            assert [point in call.messages[0]["content"] for point, call in zip(golden, calls)] == [True] * len(golden)
        elif p["is_update"] == "True" and p["original"]:  # the probe: 10 memories
            assert kinds == [("judge", "update")] and "turn 9" in calls[0].messages[0]["content"]
            assert "turn 10" not in calls[0].messages[0]["content"]
        else:
            assert kinds == ([("judge", "integrity")] if golden else [])
    assert seen == {"answer qa", "judge qa", "judge accuracy", "judge update", "judge integrity"}
