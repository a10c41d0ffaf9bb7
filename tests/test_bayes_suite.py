"""The bayes suite through pytest: ids, markers, memory systems, xdist, the LLM path, errors."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from llm_server import LLMServer, Reply, Request
from pytest_memeval.suites.bayes import BayesSuite, coin_mean

from pytest_memeval.framework.suite import SuiteOptions

MAPPING = re.compile(r"^A = (\w+), B = (\w+)$", re.M)


def _run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict]:
    report = pytester.path / "report.json"
    report.unlink(missing_ok=True)
    result = pytester.runpytest_subprocess(
        "--memeval-suite=bayes", f"--memeval-report={report}", "-p", "no:cacheprovider", *args
    )
    return result, json.loads(report.read_text()) if report.exists() else {}


@pytest.mark.slow
def test_smoke_collects_one_test_per_episode_with_markers(suite_pytester: pytest.Pytester) -> None:
    result = suite_pytester.runpytest(
        "--memsystem=context", "--memeval-suite=bayes", "--collect-only", "-q", "--strict-markers"
    )
    result.stdout.fnmatch_lines(
        ["*test_bayes.py::test_bayes[[]s2026-coin-single_turn-unknown_bias-theta25-trial0[]]", "35 tests collected*"]
    )
    result = suite_pytester.runpytest(
        "--memsystem=context",
        "--memeval-suite=bayes",
        "--collect-only",
        "-q",
        "--strict-markers",
        "-m",
        "coin_flip and obs_indexed",
    )
    result.stdout.fnmatch_lines(["3/35 tests collected*"])


def test_marks_select_conditions(tmp_path: Path) -> None:
    entries = BayesSuite(SuiteOptions("smoke", None, None, 10, None, tmp_path)).index()
    count = lambda *marks: sum(all(m in e.marks for m in marks) for e in entries)  # noqa: E731
    assert count("coin_flip") == 15 and count("recommender") == 20 and count("single_turn") == 7
    # 100 or 50 sessions exceed k = 10; ten batches of ten do not
    assert count("topk_capped") == 25 and count("batched") == 3 and count("batched", "topk_capped") == 0
    assert count("recommender", "profile_zero_shot") == 4 and count("obs_identical", "multi_turn_self_anchored") == 3
    small_k = BayesSuite(SuiteOptions("smoke", None, None, 5, None, tmp_path)).index()
    assert sum("topk_capped" in e.marks for e in small_k) == 28


@pytest.mark.slow
def test_markers_are_documented(suite_pytester: pytest.Pytester) -> None:
    result = suite_pytester.runpytest("--markers")
    for marker in (
        "bayes:",
        "coin_flip:",
        "multi_turn_self_anchored:",
        "obs_identical:",
        "running_totals:",
        "batch_25:",
        "profile_zero_shot:",
        "topk_capped:",
    ):
        result.stdout.fnmatch_lines([f"@pytest.mark.{marker}*"])


@pytest.mark.slow
def test_context_is_exact_none_is_the_prior_and_workers_agree(suite_pytester: pytest.Pytester, tmp_path: Path) -> None:
    serial, report = _run(
        suite_pytester, "--memsystem=context,none", f"--memeval-html={suite_pytester.path / 'report.html'}"
    )
    assert serial.ret == pytest.ExitCode.TESTS_FAILED  # `none` fails its episodes, and zero-shot is hard
    parallel, again = _run(suite_pytester, "--memsystem=context,none", "-n", "2")
    assert report["runs"] == again["runs"] and report["comparisons"] == again["comparisons"]
    strip = lambda r: [{k: v for k, v in x.items() if not k.endswith("_ms")} for x in r["records"]]  # noqa: E731
    assert strip(report) == strip(again)
    context, none = report["runs"]
    assert context["key"]["memsystem"] == "context" and none["key"]["memsystem"] == "none"
    for name in ("coin_mae", "coin_final_error", "type_tvd", "final_type_tvd"):
        assert context["metrics"][name]["value"] == pytest.approx(0.0, abs=1e-8)  # beliefs are stored rounded
    assert context["metrics"]["evidence_recall"]["value"] == 1.0 and none["metrics"]["evidence_recall"]["value"] == 0.0
    assert (
        context["metrics"]["retrieval_recency"]["value"] == 0.5
        and none["metrics"]["retrieval_recency"]["value"] is None
    )
    cells = context["breakdown"]["rec_condition"]
    assert all(
        cell["metrics"]["rating_tvd"]["value"] == pytest.approx(0.0, abs=1e-8)
        for name, cell in cells.items()
        if "zero_shot" not in name
    )
    # with no memory, one flip per session: exactly the prior's error
    suite = BayesSuite(SuiteOptions("smoke", None, None, 10, None, tmp_path))
    coin = [e.id for e in suite.index() if "-passive_b1-identical-" in e.id]
    prior = [
        np.mean([abs(0.5 - coin_mean(sum(f[:t]), t)) for t in range(101)])
        for f in (suite.episode_data(i).observations for i in coin)
    ]
    assert none["breakdown"]["coin_condition"]["passive_b1-identical-unknown_bias"]["metrics"]["coin_mae"][
        "value"
    ] == pytest.approx(np.mean(prior), abs=1e-6)
    failed = {r["id"] for r in report["records"] if r["key"]["memsystem"] == "context" and not r["correct"]}
    assert failed == {e.id for e in suite.index() if "zero_shot" in e.id}
    page = (suite_pytester.path / "report.html").read_text()
    assert "bayes coin | passive_b1-identical-unknown_bias: p(heads) vs the Bayesian posterior mean" in page
    assert "bayes recommender | passive_b1-anonymized: probability on the true type" in page


@pytest.mark.slow
def test_chroma_top_k_caps_the_evidence_as_flips_accumulate(suite_pytester: pytest.Pytester) -> None:
    result, report = _run(
        suite_pytester,
        "--memsystem=chroma",
        "--memeval-embedder=hashing",
        "--memeval-k=10",
        "-k",
        "coin-passive_b1-identical-unknown_bias-theta25 or coin-passive_b1-identical-unknown_bias-theta75",
    )
    (run,) = report["runs"]
    assert run["n_items"] == 2
    by_turn = {
        cell: values["metrics"]["coin_mae"]["value"] for cell, values in run["breakdown"]["coin_error_by_turn"].items()
    }
    # which 10 of the identically worded flips chroma returns is not fixed (its tie margin is
    # smaller than the ties), but up to t = 10 it returns them all, and never more than k
    assert by_turn["t0-10"] == 0.0 and by_turn["t51-100"] > 0.0, by_turn
    for record in report["records"]:
        trajectory = record["answer_detail"]["trajectory"]
        assert max(e["seen"] for e in trajectory) == 10 and trajectory[-1]["stored"] == 100


def logprob_script(request: Request) -> Reply:
    """Believes p(heads) = 0.7 whatever it reads, with a bias towards position A."""
    found = MAPPING.search(request.messages[0]["content"])
    assert found is not None
    p_first = (0.7 if found.group(1) == "heads" else 0.3) + 0.1
    top = [("A", math.log(p_first)), ("B", math.log(1 - p_first))]
    return Reply(content="A", tokens=[("A", top[0][1], top)])


@pytest.mark.slow
def test_llm_responder_through_pytest_records_and_replays(
    suite_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = suite_pytester.path / "llm.sqlite"
    args = (
        "--memsystem=context",
        "--memeval-suite-option=bayes.probe_every=50",
        "--memeval-responder=openai:scripted",
        f"--memeval-llm-cache-file={cache}",
        "-k",
        "coin-passive_b1-indexed-unknown_bias-theta75",
    )
    with LLMServer(logprob_script) as server:
        recorded, report = _run(suite_pytester, *args, f"--memeval-base-url={server.base_url}")
        assert server.count == 3 * 2
    (record,) = report["records"]
    assert record["key"]["responder"] == "openai:scripted" and record["answer_detail"]["readout"] == "logprobs"
    assert [e["p_heads"] for e in record["answer_detail"]["trajectory"]] == pytest.approx([0.7, 0.7, 0.7])
    assert report["runs"][0]["extra"]["readouts"] == {"logprobs": 1} and report["runs"][0]["extra"]["probe_every"] == [
        50
    ]
    replayed, again = _run(
        suite_pytester, *args, "--memeval-base-url=http://127.0.0.1:9/v1", "--memeval-llm-cache=replay"
    )
    assert [r["answer_detail"]["trajectory"] for r in again["records"]] == [record["answer_detail"]["trajectory"]]
    assert again["runs"] == report["runs"]


@pytest.mark.slow
def test_a_bad_probe_interval_is_a_one_line_usage_error(
    suite_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = suite_pytester.runpytest_subprocess(
        "--memsystem=context",
        "--memeval-suite=bayes",
        "--memeval-suite-option=bayes.probe_every=often",
        "--collect-only",
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.errlines if line.strip()]
    assert errors == ["ERROR: --memeval-suite-option bayes.probe_every: 'often' is not an integer"], errors
    result = suite_pytester.runpytest_subprocess(
        "--memsystem=context", "--memeval-suite-option=bayes.every=5", "--collect-only"
    )
    assert "--memeval-suite-option: bayes has no setting 'every' (settings: probe_every)" in "\n".join(result.errlines)
