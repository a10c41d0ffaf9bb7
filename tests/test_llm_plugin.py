"""The LLM path through pytest: a real openai client against a loopback server, the call
cache in readwrite and replay, invalid outputs counted, snapshots, and the API key kept out
of everything the run writes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from harness import TEST_API_KEY as SECRET
from harness import key_pieces
from llm_server import LLMServer, Reply, Request, fail_first

pytestmark = pytest.mark.slow

LABEL_LINE = re.compile(r"^- (\w+)", re.M)


def script(request: Request) -> Reply | str:
    """The first label of the answer space; prose for Ctrl2 and an unknown label for C3."""
    system = request.messages[0]["content"]
    if "## Ctrl2 " in system:
        return "I think the answer is 0_nights."
    if "## C3 " in system:
        return '{"answer": "sometimes", "would_skip": false}'
    question = system.split("# Survey Question", 1)[1]
    first = LABEL_LINE.search(question)
    assert first is not None, system
    return json.dumps({"answer": first.group(1), "would_skip": "## A1 " in system})


def _run(pytester: pytest.Pytester, base_url: str, *args: str) -> tuple[pytest.RunResult, dict]:
    report = pytester.path / "report.json"
    report.unlink(missing_ok=True)
    result = pytester.runpytest_subprocess(
        "--memsystem=context",
        "--memeval-suite=multisource",
        "--memeval-responder=openai:scripted-model",
        f"--memeval-base-url={base_url}",
        f"--memeval-llm-cache-file={pytester.path / 'fixtures' / 'llm-cache.sqlite'}",
        f"--memeval-report={report}",
        f"--junitxml={pytester.path / 'junit.xml'}",
        "-p",
        "no:cacheprovider",
        *args,
        timeout=600,
    )
    return result, json.loads(report.read_text()) if report.exists() else {}


def _answers(report: dict) -> list[tuple]:
    return [
        (r["id"], r["answer"], r["abstained"], (r["status"] == "scored"), r["correct"], r.get("raw"))
        for r in report["records"]
    ]


def test_record_then_replay_without_the_network(suite_pytester: pytest.Pytester) -> None:
    (suite_pytester.path / "fixtures").mkdir()
    with LLMServer(fail_first(1, Reply.error(429, retry_after=0.01), script)) as server:
        recorded, report = _run(suite_pytester, server.base_url, "-n", "2", "--memeval-max-errors=24")
        requests = server.count
    run = report["runs"][0]
    # every item ends as a valid answer or a counted invalid one; nothing is lost
    assert (run["n_items"], run["n_scored"], run["n_invalid"], run["n_errors"]) == (216, 192, 24, 0)
    assert requests == 2 * 216  # one 429 then one answer per item: bounded retries
    invalid = [r for r in report["records"] if not (r["status"] == "scored")]
    assert {r["task"] for r in invalid} == {"C3", "Ctrl2"} and all(r["raw"] and r["correct"] is None for r in invalid)
    assert all(r["abstained"] == (r["task"] == "A1") for r in report["records"] if (r["status"] == "scored"))
    assert recorded.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)

    # the server is gone: replay must not touch the network and must agree exactly
    replayed, again = _run(
        suite_pytester, "http://127.0.0.1:9/v1", "--memeval-llm-cache=replay", "--memeval-max-errors=24"
    )
    assert _answers(again) == _answers(report)
    assert again["runs"] == report["runs"]
    assert all(r["answer_detail"].get("cached") for r in again["records"] if (r["status"] == "scored"))

    # a request the cache never saw is an error naming the item, not a score
    missed, partial = _run(
        suite_pytester,
        "http://127.0.0.1:9/v1",
        "--memeval-llm-cache=replay",
        "--memeval-k=3",
        "--memsystem=chroma",
        "--memeval-embedder=hashing",
        "-k",
        "stable_121-A2",
    )
    assert missed.ret == pytest.ExitCode.TESTS_FAILED
    assert "gen20260321-stable_121-A2" in partial["records"][0]["reason"]
    assert partial["runs"][0]["n_errors"] == 1 and partial["runs"][0]["metrics"] == {}


def test_invalid_answers_fail_the_run_beyond_the_allowance(suite_pytester: pytest.Pytester) -> None:
    with LLMServer(script) as server:
        result, report = _run(suite_pytester, server.base_url, "-k", "Ctrl2 or A1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*invalid answer from 'openai:scripted-model': 'I think the answer is 0_nights.'*"])
    result.stdout.fnmatch_lines(["memeval: 12 items ended in an error or an invalid answer (--memeval-max-errors=0)*"])
    assert report["runs"][0]["n_invalid"] == 12


def test_the_api_key_appears_nowhere(suite_pytester: pytest.Pytester) -> None:
    (suite_pytester.path / "fixtures").mkdir()
    with LLMServer(script) as server:
        result, _ = _run(
            suite_pytester,
            server.base_url,
            "-k",
            "stable_121",
            "--memeval-snapshot",
            "--snapshot-update",
            f"--memeval-html={suite_pytester.path / 'report.html'}",
            "-v",
        )
        assert all(r.headers.get("authorization") == f"Bearer {SECRET}" for r in server.requests)
    outputs = [p for p in suite_pytester.path.rglob("*") if p.is_file()]
    names = {p.name for p in outputs}
    assert {"report.json", "junit.xml", "report.html", "llm-cache.sqlite"} <= names
    assert any(p.suffix == ".json" and p.parent.parent.name == "test_multisource" for p in outputs)  # snapshots
    for path in outputs:
        assert SECRET.encode() not in path.read_bytes(), path
    assert SECRET not in result.stdout.str() + result.stderr.str()


@pytest.mark.slow
def test_a_key_echoed_in_pieces_by_an_error_reaches_no_report(suite_pytester: pytest.Pytester) -> None:
    """A server whose error echoes the key but its last character (and a middle piece): no
    eight characters of the key in a row reach the JSON, HTML or JUnit report, or the terminal."""
    message = f"invalid key {SECRET[:-1]}, or was it {SECRET[4:16]}?"
    with LLMServer(Reply.error(400, message=message)) as server:
        configured = server.base_url.removesuffix("/v1")
        result, report = _run(
            suite_pytester,
            server.base_url,
            "-k",
            "stable_121 and A1",
            f"--memeval-html={suite_pytester.path / 'report.html'}",
            "--memeval-max-errors=1000",
        )
    errors = [r for r in report["records"] if r["status"] == "error"]
    assert errors and all("<redacted>" in r["reason"] for r in errors)
    # the endpoint the user configured, not the gateway's throwaway port on 127.0.0.1
    assert all(f" at {configured} failed" in r["reason"] for r in errors), errors[0]["reason"]
    pieces = key_pieces(SECRET)
    for name in ("report.json", "report.html", "junit.xml"):
        text = (suite_pytester.path / name).read_text(encoding="utf-8")
        assert not any(piece in text for piece in pieces), name
    assert not any(piece in result.stdout.str() + result.stderr.str() for piece in pieces)


def test_llm_options_are_checked(suite_pytester: pytest.Pytester, tmp_path: Path) -> None:
    cases = [
        (
            ["--memeval-responder=gpt-4"],
            "--memeval-responder: unknown responder 'gpt-4' (available: reader, openai:MODEL)",
        ),
        (["--memeval-responder=openai:"], "--memeval-responder: 'openai:' is not of the form openai:MODEL"),
        (
            ["--memeval-responder=openai:m", "--memeval-llm-cache=sometimes"],
            "--memeval-llm-cache: 'sometimes' is not one of",
        ),
        (
            [
                "--memeval-responder=openai:m",
                "--memeval-llm-cache=replay",
                f"--memeval-llm-cache-file={tmp_path / 'none.sqlite'}",
            ],
            "no cache file at",
        ),
        (
            ["--memeval-responder=openai:m", "--memeval-timeout=0"],
            "--memeval-timeout: must be a positive finite number",
        ),
        (
            ["--memeval-judge=openai:m"],
            "--memeval-judge: none of the selected suites (multisource) is graded by an LLM judge",
        ),
    ]
    for args, message in cases:
        result = suite_pytester.runpytest_subprocess("--memsystem=context", "--memeval-suite=multisource", *args)
        assert result.ret == pytest.ExitCode.USAGE_ERROR, args
        assert message in "\n".join(result.errlines), (args, result.errlines)
