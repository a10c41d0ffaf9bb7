"""The longmemeval suite through pytest on the generated sample: ids and markers, the offline
reader on every memory system kind, xdist, the released layout via --memeval-data, snapshots,
repeats, gates, the HTML explorer, the LLM responder's prompt and the progress line."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, Request
from pytest_memeval.suites.longmemeval.judge import OfflineJudge
from pytest_memeval.suites.longmemeval.sample import write_sample
from pytest_memeval.suites.longmemeval.suite import LongMemEvalSuite

from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.memory.context import ContextMemory
from pytest_memeval.memory.none import NoMemory
from pytest_memeval.types import Trace

ITEMS = 16


def _suite(tmp_path: Path, **params: str) -> LongMemEvalSuite:
    return LongMemEvalSuite(
        SuiteOptions(
            size="smoke", split=None, seeds=None, k=10, data_dir=None, cache_dir=tmp_path, bootstrap=50, params=params
        )
    )


@pytest.mark.parametrize("variant", ["s", "m", "oracle"])
def test_the_offline_reader_answers_every_sample_question_from_the_whole_history(tmp_path: Path, variant: str) -> None:
    suite = _suite(tmp_path, file=variant)
    store, judge = ContextMemory(token_budget=10**6), OfflineJudge()
    for entry in suite.index():
        for session in suite.context(entry.context_id).sessions:
            store.ingest(entry.context_id, session)
        item = suite.item(entry.id)
        memories = store.retrieve(entry.context_id, item.view.question, 10)
        answer = suite.reader().answer(item.view, memories)
        verdict = judge.score(item, answer, Trace(tuple(memories), keeps_sources=True))
        assert verdict.correct, (entry.id, item.view.question, answer.label, item.gold)
        assert answer.abstained == item.private["abstention"]
        assert not answer.detail.get("memory_unreadable")
        if item.private["evidence_turns"]:
            assert verdict.detail["turn_recall_all"] == 1.0 == verdict.detail["session_recall_all"]


def test_without_memories_the_reader_abstains(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    for entry in suite.index():
        answer = suite.reader().answer(suite.item(entry.id).view, NoMemory().retrieve("ns", "q", 10))
        assert answer.abstained


def test_timestamp_mode_hides_dates_from_the_reader(tmp_path: Path) -> None:
    suite = _suite(tmp_path, dates="timestamp")
    temporal = [e for e in suite.index() if "temporal_reasoning" in e.marks and "abstention" not in e.marks]
    store = ContextMemory()
    for entry in temporal:
        for session in suite.context(entry.context_id).sessions:
            store.ingest(entry.context_id, session)
        item = suite.item(entry.id)
        assert suite.reader().answer(item.view, store.retrieve(entry.context_id, "", 10)).abstained


PRIVATE = re.compile(
    r"answer_|has_answer|sharegpt_|_abs\b|question_type|single-session|multi-session|temporal-reasoning"
)


def test_nothing_private_reaches_the_memory_system_or_the_views(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    for entry in suite.index():
        stored = json.dumps([[m.__dict__ for m in s] for s in suite.context(entry.context_id).sessions])
        item = suite.item(entry.id)
        assert not PRIVATE.search(stored), PRIVATE.search(stored)
        assert not PRIVATE.search(json.dumps([item.view.question, dict(item.view.extra)]))
        assert set(item.view.extra) == {"question_date"}


# --- through pytest ------------------------------------------------------------------------


def _report(pytester: pytest.Pytester, name: str, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    report = pytester.path / f"{name}.json"
    result = pytester.runpytest_subprocess(
        "--memeval-suite=longmemeval",
        "--memeval-embedder=hashing",
        f"--memeval-report={report}",
        "-p",
        "no:cacheprovider",
        *args,
    )
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stdout.str()[-3000:]
    return result, json.loads(report.read_text())


def _run(report: dict[str, Any], system: str) -> dict[str, Any]:
    return next(r for r in report["runs"] if r["key"]["memsystem"] == system)


@pytest.mark.slow
def test_collection_ids_and_markers(suite_pytester: pytest.Pytester) -> None:
    result = suite_pytester.runpytest(
        "--memsystem=context", "--memeval-suite=longmemeval", "--collect-only", "-q", "--strict-markers"
    )
    result.stdout.fnmatch_lines(["*test_longmemeval.py::test_longmemeval[[]*[]]", f"{ITEMS} tests collected*"])
    for expression, count in [
        ("abstention", 4),
        ("temporal_reasoning and not abstention", 2),
        ("single_session_preference", 2),
    ]:
        selected = suite_pytester.runpytest(
            "--memsystem=context",
            "--memeval-suite=longmemeval",
            "--collect-only",
            "-q",
            "--strict-markers",
            "-m",
            expression,
        )
        selected.stdout.fnmatch_lines([f"{count}/{ITEMS} tests collected*"])
    markers = suite_pytester.runpytest("--markers")
    markers.stdout.fnmatch_lines(["@pytest.mark.knowledge_update:*", "@pytest.mark.abstention:*"])


@pytest.mark.slow
def test_three_systems_serial_and_on_two_workers(suite_pytester: pytest.Pytester) -> None:
    """context reads everything (every answer right, recall 1), none stores nothing (only the
    abstention questions right, recall not available), chroma in between; -n 2 agrees."""
    systems = "--memsystem=context,none,chroma"
    _, serial = _report(suite_pytester, "serial", systems, "--memeval-k=2")
    context, none, chroma = (_run(serial, s) for s in ("context", "none", "chroma"))
    value = lambda run, name: run["metrics"][name]["value"]  # noqa: E731
    assert value(context, "overall_accuracy") == 1.0 and value(context, "turn_recall_all") == 1.0
    assert value(none, "overall_accuracy") == 4 / 16 and value(none, "abstention_accuracy") == 1.0
    assert value(none, "session_recall_all") is None and "recall not available" in none["note"]
    assert value(chroma, "session_recall_all") < 1.0 and value(chroma, "overall_accuracy") < 1.0
    assert (
        "a generated sample in the released format (longmemeval_s_cleaned.json), not the benchmark" in context["note"]
    )
    assert "graded offline" in context["note"]
    comparison = next(
        c for c in serial["comparisons"] if {c["a"]["memsystem"], c["b"]["memsystem"]} == {"context", "chroma"}
    )
    recall = comparison["metrics"]["session_recall_all"]
    assert recall["ci"][0] is not None and abs(recall["difference"]) > 0
    _, parallel = _report(suite_pytester, "parallel", systems, "--memeval-k=2", "-n", "2")
    assert serial["runs"] == parallel["runs"] and serial["comparisons"] == parallel["comparisons"]


@pytest.mark.slow
def test_the_released_layout_reads_the_same_files(suite_pytester: pytest.Pytester, tmp_path: Path) -> None:
    data = tmp_path / "release"
    write_sample(data)
    _, generated = _report(
        suite_pytester, "generated", "--memsystem=context", "--memeval-suite-option=longmemeval.file=m"
    )
    _, released = _report(
        suite_pytester,
        "released",
        "--memsystem=context",
        f"--memeval-data={data}",
        "--memeval-suite-option=longmemeval.file=m",
    )
    assert _run(generated, "context")["metrics"] == _run(released, "context")["metrics"]
    note = _run(released, "context")["note"]
    assert note.startswith("data: longmemeval_m_cleaned.json (sha256 ") and "generated sample" not in note
    (data / "longmemeval_s_cleaned.json").unlink()
    missing = suite_pytester.runpytest_subprocess(
        "--memsystem=context", "--memeval-suite=longmemeval", f"--memeval-data={data}"
    )
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in missing.errlines if line.strip()]
    assert len(errors) == 1, errors
    assert (
        "no longmemeval_s_cleaned.json or longmemeval_s.json (download it from https://huggingface.co/datasets/xiaowu0162/longmemeval-cleaned)"
        in errors[0]
    )


@pytest.mark.slow
def test_snapshots_repeats_gates_and_the_explorer(suite_pytester: pytest.Pytester) -> None:
    base = ("--memsystem=context,none", "--memeval-suite=longmemeval", "-p", "no:cacheprovider")
    recorded = suite_pytester.runpytest_subprocess(*base, "--memeval-snapshot", "--snapshot-update")
    assert recorded.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), recorded.stdout.str()[-3000:]
    compared = suite_pytester.runpytest_subprocess(*base, "--memeval-snapshot", "-n", "2")
    compared.stdout.no_fnmatch_line("*snapshot*fail*")
    assert compared.ret == recorded.ret

    html = suite_pytester.path / "explorer.html"
    gated = suite_pytester.runpytest_subprocess(
        *base,
        "--memeval-repeat=2",
        f"--memeval-html={html}",
        "--memeval-gate=longmemeval[context].overall_accuracy>=0.9",
        "--memeval-gate=longmemeval[none].overall_accuracy>=0.9",
    )
    output = gated.stdout.str()
    assert gated.ret == pytest.ExitCode.TESTS_FAILED
    assert re.search(r"PASS.*longmemeval\[context\]\.overall_accuracy>=0\.9", output), output[-3000:]
    assert re.search(r"FAIL.*longmemeval\[none\]\.overall_accuracy>=0\.9", output), output[-3000:]
    page = html.read_text()
    assert "longmemeval" in page and "task_averaged_accuracy" in page


def responder_script(request: Request) -> str:
    return "I am not sure; the chats do not mention it."


@pytest.mark.slow
def test_an_llm_responder_gets_the_papers_prompt_with_public_text_only(suite_pytester: pytest.Pytester) -> None:
    with LLMServer(responder_script) as server:
        _, report = _report(
            suite_pytester,
            "llm",
            "--memsystem=context",
            "--memeval-responder=openai:reader-model",
            f"--memeval-base-url={server.base_url}",
            "--memeval-llm-cache=off",
        )
        requests = server.requests
    run = _run(report, "context")
    assert len(requests) == ITEMS and run["n_scored"] == ITEMS
    assert (
        run["metrics"]["abstention_accuracy"]["value"] == 1.0 and run["metrics"]["overall_accuracy"]["value"] == 4 / 16
    )
    for request in requests:
        (message,) = request.messages
        content = message["content"]
        assert content.startswith("I will give you several history chats between you and a user.")
        assert re.search(
            r"\nCurrent Date: \d{4}/\d\d/\d\d \(\w{3}\) \d\d:\d\d\nQuestion: .+\nAnswer \(step by step\):$", content
        )
        assert "### Session 1:\nSession Date: " in content
        assert not PRIVATE.search(content), PRIVATE.search(content)


@pytest.mark.slow
def test_the_progress_line_shows_sessions_and_resident_memory(suite_pytester: pytest.Pytester) -> None:
    result = suite_pytester.runpytest_subprocess(
        "--memsystem=chroma",
        "--memeval-embedder=hashing",
        "--memeval-suite=longmemeval",
        "--memeval-suite-option=longmemeval.file=m",
        "--memeval-progress=0.001",
        "-k",
        "abstention",
        "-p",
        "no:cacheprovider",
    )
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stdout.str()[-3000:]
    # the line is cut at the terminal's width (80 columns here)
    result.stdout.re_match_lines([r"  main: \d+ items, filling longmemeval \S+ \(session \d+ of 32\), [\d,]+ MB"])
