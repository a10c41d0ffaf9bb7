"""The knowme suite through pytest: ids, markers, outcomes per memory system, xdist, leakage."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pytest_memeval.suites.knowme.suite import KnowmeSuite

from pytest_memeval.framework.suite import SuiteOptions

SMOKE_ITEMS = 63  # 3 lives x 7 tasks x 3 questions


def _report(pytester: pytest.Pytester, name: str, *args: str) -> dict:
    report = pytester.path / f"{name}.json"
    result = pytester.runpytest_subprocess(
        "--memeval-suite=knowme",
        "--memeval-embedder=hashing",
        f"--memeval-report={report}",
        "-p",
        "no:cacheprovider",
        *args,
    )
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stdout.str()[-3000:]
    return json.loads(report.read_text())


def _run(report: dict, system: str) -> dict:
    return next(r for r in report["runs"] if r["key"]["memsystem"] == system)


@pytest.mark.slow
def test_smoke_collects_one_test_per_question(suite_pytester: pytest.Pytester) -> None:
    result = suite_pytester.runpytest(
        "--memsystem=context", "--memeval-suite=knowme", "--collect-only", "-q", "--strict-markers"
    )
    result.stdout.fnmatch_lines(
        ["*test_knowme.py::test_knowme[[]s2026-life00-T1-00[]]", f"{SMOKE_ITEMS} tests collected*"]
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "expression, count",
    [
        ("T2_abstention and trap_false_causality", 3),
        ("level_II and dataset3", 6),
        ("T3_temporal and flashback", 6),  # per life: a gap, a state (both flashback) and a duration
        ("update_paradox or transient_trigger", 6),
    ],
)
def test_markers_select_under_strict_markers(suite_pytester: pytest.Pytester, expression: str, count: int) -> None:
    result = suite_pytester.runpytest(
        "--memsystem=context", "--memeval-suite=knowme", "--collect-only", "-q", "--strict-markers", "-m", expression
    )
    result.stdout.fnmatch_lines([f"{count}/{SMOKE_ITEMS} tests collected*"])


@pytest.mark.slow
def test_markers_are_documented(suite_pytester: pytest.Pytester) -> None:
    result = suite_pytester.runpytest("--markers")
    for marker in (
        "knowme:",
        "T1_extraction:",
        "level_III:",
        "trap_false_causality:",
        "flashback:",
        "update_paradox:",
        "dataset1:",
    ):
        result.stdout.fnmatch_lines([f"@pytest.mark.{marker}*"])


@pytest.mark.slow
def test_three_systems_on_one_and_two_workers(suite_pytester: pytest.Pytester) -> None:
    """context solves T1-T5, none abstains (winning T2 only), chroma loses flashback items;
    with -n 2 every metric, comparison and record is the same as in one process."""
    two_lives = ("--memsystem=context,none,chroma", "-k", "life00 or life01")
    serial = _report(suite_pytester, "serial", *two_lives)
    context, none, chroma = (_run(serial, s) for s in ("context", "none", "chroma"))
    value = lambda run, name: run["metrics"][name]["value"]  # noqa: E731
    for name in ("t1_entity_f1", "t2_abstain_exact", "t3_value_bands", "t4_rank_bands", "t5_cue_bands"):
        assert value(context, name) == 100, name
    assert value(none, "t2_abstain_exact") == 100 and value(none, "t1_entity_f1") == 0
    assert value(none, "t1_t2_balance") == 0 and value(none, "over_abstention") == 100
    assert "t6_coverage_approx" in context["metrics"] and "t6_mind_body" not in context["metrics"]
    assert "our deterministic diagnostics" in context["note"] and "approximate: " in context["note"]
    flashback = lambda run: run["breakdown"]["flashback"]["T3 flashback"]["metrics"]["score"]["value"]  # noqa: E731
    assert flashback(chroma) < flashback(context) == 100
    assert value(chroma, "evidence_recall") < value(context, "evidence_recall") == 100
    assert len(serial["comparisons"]) == 3 and "t3_value_bands" in serial["comparisons"][0]["metrics"]

    parallel = _report(suite_pytester, "parallel", *two_lives, "-n", "2")
    assert serial["runs"] == parallel["runs"] and serial["comparisons"] == parallel["comparisons"]
    strip = lambda report: sorted(  # noqa: E731
        ({k: v for k, v in r.items() if not k.endswith("_ms")} for r in report["records"]),
        key=lambda r: (r["key"]["memsystem"], r["id"]),
    )
    assert strip(serial) == strip(parallel)


@pytest.mark.slow
def test_failure_message_is_readable(suite_pytester: pytest.Pytester) -> None:
    result = suite_pytester.runpytest("--memsystem=none", "--memeval-suite=knowme", "-k", "life00-T1-00", "-v")
    result.stdout.fnmatch_lines(
        [
            "WRONG *[[]s2026-life00-T1-00] - answered 'ABSTAIN', expected {'entities': [[]*(abstained); judge: *",
            "*question: On *, 2008, at *, what did *?",
            "*memories retrieved: 0",
            "*judge: entities: 0/100, gold *",
        ]
    )


PRIVATE = re.compile(
    r"\b(T[1-7]|PUSH|POP|TRANSIENT|MAINTAIN|ABSTAIN|trap|evidence|dataset\d|life\d\d|s2026|entity_swap|"
    r"spatiotemporal|false_causality|layer|gold)\b"
)


def test_nothing_private_reaches_the_memory_system_or_the_views(tmp_path: Path) -> None:
    suite = KnowmeSuite(
        SuiteOptions(size="smoke", split=None, seeds=None, k=10, data_dir=None, cache_dir=tmp_path, bootstrap=50)
    )
    entries = suite.index()
    stored = "\n".join(m.content for c in {e.context_id for e in entries} for s in suite.context(c).sessions for m in s)
    items = [suite.item(e.id) for e in entries]
    views = "\n".join(json.dumps([i.view.question, i.view.task, dict(i.view.extra)]) for i in items)
    assert not PRIVATE.search(stored), PRIVATE.search(stored)
    assert not PRIVATE.search(views), PRIVATE.search(views)
    for item in items:
        assert set(item.view.extra) == {"slots", "answer_format"}
    # an abstention item looks like an extraction item
    t1 = next(i for i in items if i.strata["task"] == "T1")
    t2 = next(i for i in items if i.strata["task"] == "T2")
    assert (t1.view.task, set(t1.view.extra["slots"]), t1.view.extra["answer_format"]) == (
        t2.view.task,
        set(t2.view.extra["slots"]),
        t2.view.extra["answer_format"],
    )
