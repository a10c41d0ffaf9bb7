"""The memfail suite through pytest: ids, markers, runs against real adapters, xdist,
a stage label from each failing adapter, a k sweep and the HTML report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytest_memeval.suites.memfail.suite import MemfailSuite

from pytest_memeval.framework.suite import SuiteOptions

pytestmark = pytest.mark.slow

BASE = ("--memeval-suite=memfail", "-p", "no:cacheprovider")


def _index(tmp_path: Path):
    return MemfailSuite(SuiteOptions("smoke", None, None, 10, None, tmp_path)).index()


def _report(pytester: pytest.Pytester, *args: str, subprocess: bool = False) -> tuple[pytest.RunResult, dict]:
    report = pytester.path / f"report-{abs(hash(args))}.json"
    run = pytester.runpytest_subprocess if subprocess else pytester.runpytest
    result = run(*BASE, f"--memeval-report={report}", *args)
    return result, json.loads(report.read_text())


def test_one_test_per_graded_question_with_markers_under_strict_markers(
    suite_pytester: pytest.Pytester, tmp_path: Path
):
    entries = _index(tmp_path)
    result = suite_pytester.runpytest("--memsystem=context", *BASE, "--collect-only", "-q", "--strict-markers")
    result.stdout.fnmatch_lines(
        [
            "*test_memfail.py::test_memfail[[]s42-cond_easy-000[]]",
            "*test_memfail[[]s42-persona-000-q1[]]",
            f"{len(entries)} tests collected*",
        ]
    )
    for expression, wanted in (
        ("long_hop and hops_3", {"long_hop", "hops_3"}),
        ("persona_misleading", {"persona_misleading"}),
        ("targets_retrieval and not coexisting", {"long_hop"}),
        ("update_overwrite", {"update_overwrite"}),
    ):
        expected = sum(wanted <= set(e.marks) for e in entries)
        assert expected > 0
        selected = suite_pytester.runpytest(
            "--memsystem=context", *BASE, "--collect-only", "-q", "--strict-markers", "-m", expression
        )
        selected.stdout.fnmatch_lines([f"{expected}/{len(entries)} tests collected*"])
    markers = suite_pytester.runpytest("--markers")
    for marker in (
        "memfail:",
        "conditional_hard:",
        "cond_weather:",
        "facts_5:",
        "hops_1:",
        "persona_misleading:",
        "update_addition:",
    ):
        markers.stdout.fnmatch_lines([f"@pytest.mark.{marker}*"])


def test_the_ceiling_passes_and_the_floor_fails_at_storage(suite_pytester: pytest.Pytester):
    ceiling, report = _report(suite_pytester, "--memsystem=context,none")
    runs = {run["key"]["memsystem"]: run for run in report["runs"]}
    assert runs["context"]["metrics"]["success"]["value"] == 1.0
    floor = [r for r in report["records"] if r["key"]["memsystem"] == "none"]
    # the floor stores nothing: every question that needs a memory fails at storage; misleading ones abstain
    assert {r["stage"] for r in floor if r["strata"].get("misleading") != "yes"} == {"storage"}
    assert all(r["correct"] for r in floor if r["strata"].get("misleading") == "yes")
    comparison = report["comparisons"][0]
    assert comparison["metrics"]["success"]["difference"] > 0.5 and "success_longhop" in comparison["metrics"]
    ceiling.stdout.fnmatch_lines(
        ["WRONG *s42-longhop-000* - answered None, expected *; judge: storage: hop 1 of * is not in the store: *"]
    )


def _strip(report: dict) -> tuple:
    runs = [dict(run, extra={k: v for k, v in run["extra"].items() if k != "latency_ms"}) for run in report["runs"]]
    records = [{k: v for k, v in r.items() if not k.endswith("_ms")} for r in report["records"]]
    return runs, report["comparisons"], sorted(records, key=lambda r: (r["key"]["memsystem"], r["id"]))


def test_two_workers_give_the_same_metrics_as_one(suite_pytester: pytest.Pytester):
    args = ("--memsystem=context,chroma", "--memeval-embedder=hashing", "--memeval-k=3")
    _, serial = _report(suite_pytester, *args, subprocess=True)
    _, parallel = _report(suite_pytester, *args, "-n", "2", subprocess=True)
    assert _strip(serial) == _strip(parallel)
    chroma = next(run for run in serial["runs"] if run["key"]["memsystem"] == "chroma")
    assert chroma["metrics"]["share_retrieval"]["value"] > 0  # three memories cannot hold every chain
    assert set(chroma["extra"]["latency_ms"]["retrieve"]) == {"p50", "p95"}


def test_each_failing_adapter_gets_its_own_stage(suite_pytester: pytest.Pytester):
    systems = "memfail_adapters:DroppingMemory,memfail_adapters:TruncatingMemory,memfail_adapters:RandomMemory,memfail_adapters:UnlistableMemory"
    _, report = _report(suite_pytester, f"--memsystem={systems}", "--memeval-k=3")
    stages: dict[str, dict[str, int]] = {}
    for record in report["records"]:
        counts = stages.setdefault(record["key"]["memsystem"].split(":")[1], {})
        counts[record["stage"]] = counts.get(record["stage"], 0) + 1
    assert set(stages["DroppingMemory"]) == {"correct", "storage"}
    assert stages["TruncatingMemory"]["summary"] >= 5 and set(stages["TruncatingMemory"]) == {
        "correct",
        "storage",
        "summary",
    }
    assert set(stages["RandomMemory"]) == {"correct", "retrieval"}
    assert set(stages["UnlistableMemory"]) == {"correct"}  # everything retrieved intact: no dump needed


def test_a_k_sweep_labels_runs_by_k_and_the_html_plots_stages_and_success_against_k(suite_pytester: pytest.Pytester):
    html = suite_pytester.path / "report.html"
    _, report = _report(
        suite_pytester, "--memsystem=chroma", "--memeval-embedder=hashing", "--memeval-k=2,12", f"--memeval-html={html}"
    )
    runs = {run["key"]["k"]: run for run in report["runs"]}
    assert set(runs) == {2, 12}
    assert runs[2]["metrics"]["share_retrieval"]["value"] > runs[12]["metrics"]["share_retrieval"]["value"]
    page = html.read_text()
    assert "memfail: failure stages per dataset and system (k=2)" in page
    assert "memfail: Long-Hop success against k" in page
