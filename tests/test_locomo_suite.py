"""The locomo suite through pytest: collection and markers, the category option, evidence
recall (context above chroma with an interval; n/a without provenance), -n 2, the release
path, and the LLM path (Mem0's answer prompt, the J judge) against a loopback server."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, Request
from pytest_memeval.suites.locomo.judge import LocomoJudge, evidence_recall
from pytest_memeval.suites.locomo.llm import LocomoPrompt, j_prompt, option_answer, read_label
from pytest_memeval.suites.locomo.sample import write_sample
from pytest_memeval.suites.locomo.suite import LocomoSuite

from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.llm.calls import Completion
from pytest_memeval.llm.strict_json import InvalidOutput
from pytest_memeval.types import Answer, Memory, Trace

SMOKE_ITEMS = 40  # 4 sample conversations x 10 questions of categories 1-4


def _suite(**params: str) -> LocomoSuite:
    return LocomoSuite(
        SuiteOptions(size="smoke", split=None, seeds=None, k=10, data_dir=None, cache_dir=Path("."), params=params)
    )


def test_categories_1_to_4_by_default_5_by_the_suite_option() -> None:
    default, everything = _suite(), _suite(categories="1,2,3,4,5")
    assert len(default.index()) == SMOKE_ITEMS
    marks = {e.marks for e in everything.index()}
    assert marks == {("locomo_cat1",), ("locomo_cat2",), ("locomo_cat3",), ("locomo_cat4",), ("locomo_cat5",)}
    assert len(everything.index()) > SMOKE_ITEMS


def test_evidence_recall_is_none_without_provenance_never_zero() -> None:
    item = _suite().item(_suite().index()[0].id)
    evidence = item.private["evidence"]
    unrelated = (Memory("x", sources=("D99:1",)),)
    assert evidence_recall(evidence, Trace(unrelated, keeps_sources=False)) is None
    assert evidence_recall(evidence, Trace(unrelated, keeps_sources=True)) == 0.0
    assert evidence_recall(evidence, Trace((Memory("y", sources=tuple(evidence)),), keeps_sources=True)) == 1.0
    assert evidence_recall([], Trace(unrelated, keeps_sources=True)) is None
    verdict = LocomoJudge().score(item, Answer(str(item.gold)), Trace(unrelated))
    assert verdict.correct and verdict.score == 100 and verdict.detail["evidence_recall"] is None


def test_the_answer_prompt_is_mem0s_and_replies_are_free_text() -> None:
    suite = _suite(categories="5")
    item = suite.item(suite.index()[0].id)
    prompt = LocomoPrompt()
    (system,) = prompt.messages(item.view, [Memory("1:56 pm on 8 May, 2023 | Ann: hi")])
    assert system["role"] == "system"
    assert 'Memories:\n\n    [\n    "1:56 pm on 8 May, 2023 | Ann: hi"\n]' in system["content"]
    assert f"Question: {item.view.question}\n    Answer:" in system["content"]
    options = item.view.extra["options"]
    assert prompt.parse(Completion("(b)"), item.view).label == options[1]
    assert prompt.parse(Completion(" a "), item.view).label == options[0]
    assert option_answer("Not mentioned in the conversation", options) == "not mentioned in the conversation"
    assert not prompt.parse(Completion(""), item.view).valid
    assert not prompt.parse(Completion("cut", finish_reason="length"), item.view).valid


def test_the_j_judge_reads_exactly_one_label() -> None:
    assert read_label('{"label": "CORRECT"}').correct is True
    assert read_label('{"label": "WRONG"}').score == 0.0
    for text in ('{"label": "correct"}', "CORRECT", '{"label": "CORRECT", "reason": "x"}'):
        with pytest.raises(InvalidOutput):
            read_label(text)
    item = _suite().item(_suite().index()[0].id)
    (user,) = j_prompt().messages(item, Answer("the answer"))
    assert (
        f"Question: {item.view.question}\nGold answer: {item.gold}\nGenerated answer: the answer\n" in user["content"]
    )
    assert user["content"].startswith("Your task is to label an answer to a question as ’CORRECT’ or ’WRONG’.")


def _report(pytester: pytest.Pytester, name: str, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    report = pytester.path / f"{name}.json"
    result = pytester.runpytest_subprocess(
        "--memeval-suite=locomo",
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
    collect = ("--memsystem=context", "--memeval-suite=locomo", "--collect-only", "-q", "--strict-markers")
    result = suite_pytester.runpytest(*collect)
    result.stdout.fnmatch_lines(
        ["*test_locomo.py::test_locomo[[]sample-2024-0-q0*[]]", f"{SMOKE_ITEMS} tests collected*"]
    )
    result = suite_pytester.runpytest(
        *collect, "-m", "locomo_cat5", "--memeval-suite-option=locomo.categories=1,2,3,4,5"
    )
    result.stdout.fnmatch_lines(["8/* tests collected*"])  # two adversarial questions per conversation
    result = suite_pytester.runpytest(*collect, "--memeval-suite-option=locomo.categories=6")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*locomo.categories=6: give categories 1-5*"])


@pytest.mark.slow
def test_context_ranks_above_chroma_on_evidence_recall_and_none_has_no_recall(suite_pytester: pytest.Pytester) -> None:
    """Recall@3 of the evidence turns: the ceiling keeps every turn, chroma misses some, the
    paired interval excludes 0; `none` keeps no provenance, so its recall is n/a, not 0."""
    result, report = _report(suite_pytester, "serial", "--memsystem=context,chroma,none", "--memeval-k=3")
    context, chroma, none = (_run(report, s) for s in ("context", "chroma", "none"))
    assert context["metrics"]["evidence_recall"]["value"] == 100
    assert chroma["metrics"]["evidence_recall"]["value"] < 90
    assert none["metrics"]["evidence_recall"]["value"] is None
    assert "keeps no provenance" in none["note"] and "not the LoCoMo benchmark" in context["note"]
    comparison = next(
        c for c in report["comparisons"] if {c["a"]["memsystem"], c["b"]["memsystem"]} == {"context", "chroma"}
    )
    recall = comparison["metrics"]["evidence_recall"]
    sign = 1 if comparison["a"]["memsystem"] == "context" else -1
    assert sign * recall["ci"][0 if sign > 0 else 1] > 0
    assert (
        "evidence_recall"
        not in next(c for c in report["comparisons"] if "none" in {c["a"]["memsystem"], c["b"]["memsystem"]})["metrics"]
    )
    result.stdout.fnmatch_lines(["*evidence_recall*n/a*"])
    assert set(context["breakdown"]["category"]) == {"1 multi-hop", "2 temporal", "3 open-domain", "4 single-hop"}
    assert 0 < context["metrics"]["f1"]["value"] < 100


@pytest.mark.slow
def test_two_workers_give_the_same_report(suite_pytester: pytest.Pytester) -> None:
    args = ("--memsystem=context,chroma", "--memeval-k=3", "-k", "sample-2024-0 or sample-2024-1")
    _, serial = _report(suite_pytester, "serial", *args)
    _, parallel = _report(suite_pytester, "parallel", *args, "-n", "2")
    for system in ("context", "chroma"):
        assert _run(serial, system)["metrics"] == _run(parallel, system)["metrics"]
    key = lambda r: (r["key"]["memsystem"], r["id"])  # noqa: E731
    assert [(key(r), r["detail"]) for r in sorted(serial["records"], key=key)] == [
        (key(r), r["detail"]) for r in sorted(parallel["records"], key=key)
    ]


@pytest.mark.slow
def test_a_release_in_the_data_dir_is_read_as_the_benchmark(suite_pytester: pytest.Pytester, tmp_path: Path) -> None:
    write_sample(tmp_path, seed=11, conversations=3)
    _, report = _report(
        suite_pytester,
        "release",
        "--memsystem=context",
        f"--memeval-data={tmp_path}",
        "--memeval-suite-option=locomo.category_names=mem0",
    )
    summary = _run(report, "context")
    assert summary["extra"]["data"]["kind"] == "release" and "locomo10.json" in summary["note"]
    assert "1 single-hop" in summary["breakdown"]["category"]
    assert {r["context"] for r in report["records"]} == {"sample-11-0", "sample-11-1", "sample-11-2"}


QUESTION = re.compile(r"Question: (.*)\n")


def _script(request: Request) -> str:
    content = request.messages[0]["content"]
    if content.startswith("Your task is to label"):
        return '{"label": "CORRECT"}' if "Generated answer: 20" in content else '{"label": "WRONG"}'
    question = QUESTION.search(content).group(1)  # type: ignore[union-attr]
    return "2023" if question.startswith("When") else "I am not sure."


@pytest.mark.slow
def test_llm_responder_and_j_judge_through_a_loopback_server_and_the_cache(suite_pytester: pytest.Pytester) -> None:
    cache = suite_pytester.path / "calls.sqlite"
    llm = (
        "--memsystem=context",
        "--memeval-responder=openai:answerer",
        "--memeval-judge=openai:gpt-4o-mini",
        f"--memeval-llm-cache-file={cache}",
        "-k",
        "sample-2024-0",
    )
    with LLMServer(_script) as server:
        result, report = _report(suite_pytester, "llm", *llm, f"--memeval-base-url={server.base_url}")
        requests = server.requests
    # the recorded calls replay offline, server gone, to the same records
    _, replayed = _report(
        suite_pytester, "replay", *llm, "--memeval-llm-cache=replay", "--memeval-base-url=http://127.0.0.1:9"
    )
    assert [(r["id"], r["answer"], r["detail"]) for r in replayed["records"]] == [
        (r["id"], r["answer"], r["detail"]) for r in report["records"]
    ]
    run = _run(report, "context")
    judged = [r for r in requests if r.messages[0]["content"].startswith("Your task")]
    assert len(requests) == 2 * run["n_items"] and len(judged) == run["n_items"]
    assert all(r.body.get("temperature") == 0 for r in requests)
    for request in requests:  # neither the answerer nor the judge sees evidence ids
        assert not re.search(r"\bD\d+:\d+\b", request.text)
    records = report["records"]
    when = [r for r in records if r["question"].startswith("When")]
    assert when and all(r["answer"] == "2023" for r in when)
    j = run["metrics"]["j"]["value"]
    assert j == pytest.approx(100 * sum(r["detail"]["j"] for r in records) / len(records))
    assert all(r["correct"] == (r["detail"]["j"] == 1.0) for r in records)
    assert "locomo_judge_j@1" in run["extra"]["j_templates"]
    assert result.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.slow
def test_snapshots_repeats_gates_and_the_html_explorer(suite_pytester: pytest.Pytester) -> None:
    one = ("--memsystem=context", "--memeval-k=3", "-k", "sample-2024-0")
    recorded = suite_pytester.runpytest_subprocess(
        "--memeval-suite=locomo", *one, "--memeval-snapshot", "--snapshot-update", "-n", "2", "-p", "no:cacheprovider"
    )
    snapshots = sorted((suite_pytester.path / "snapshots" / "test_locomo" / "context-k3").glob("*.json"))
    assert len(snapshots) == 10, recorded.stdout.str()[-2000:]
    verdict = json.loads(snapshots[0].read_text())
    assert {"f1", "bleu1", "mem0_f1", "evidence_recall"} <= set(verdict["judge"])
    compared, _ = _report(suite_pytester, "compared", *one, "--memeval-snapshot")
    assert "differs from its snapshot" not in compared.stdout.str()

    html = suite_pytester.path / "explorer.html"
    gated, report = _report(
        suite_pytester,
        "gated",
        *one,
        "--memeval-repeat=2",
        "--memeval-gate=locomo.evidence_recall>=90",
        "--memeval-gate=locomo.f1>=1",
        f"--memeval-html={html}",
    )
    run = _run(report, "context")
    assert run["repeats"] == 2 and run["flakiness"]["flaky"] == 0  # the offline path is deterministic
    assert [g["passed"] for g in report["gates"]] == [True, True]
    assert gated.ret == pytest.ExitCode.OK  # the gates decide, not the wrong answers
    page = html.read_text()
    assert "locomo" in page and "evidence_recall" in page and "sample-2024-0-q000" in page
