"""--memeval-repeat N: ids, records, per-item flakiness with clustered intervals, pairing by
repeat, and model calls keyed per repeat (repeat 0 keeps the keys caches already hold)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from harness import make_record

from pytest_memeval.analysis.comparisons import compare_runs
from pytest_memeval.analysis.flakiness import flakiness, item_repeats
from pytest_memeval.config.llm_settings import LLMSettings
from pytest_memeval.llm.calls import ChatRequest
from pytest_memeval.llm.judge import JudgePanel
from pytest_memeval.llm.repetition import current_repeat, repeat_scope
from pytest_memeval.rendering.explorer import page_data
from pytest_memeval.results.records import Report
from pytest_memeval.types import Answer, Item, ItemView, Verdict

FLAKY = "faulty_adapters:ForgetsEveryOtherTime"


def run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, Report]:
    path = pytester.path / "report.json"
    result = pytester.runpytest("test_toy.py", f"--memeval-report={path}", *args)
    return result, Report.from_json(json.loads(path.read_text(encoding="utf-8")))


@pytest.mark.slow
def test_each_item_runs_n_times_with_its_repeat_in_id_and_record(toy_pytester: pytest.Pytester) -> None:
    result, report = run(toy_pytester, "--memsystem=context", "--memeval-repeat=3", "-v")
    result.stdout.fnmatch_lines(["*test_toy[[]ada-city-r0[]] PASSED*", "*test_toy[[]ada-city-r2[]] PASSED*"])
    assert sorted((r.id, r.repeat) for r in report.records if r.id == "ada-city") == [("ada-city", i) for i in range(3)]
    (summary,) = report.runs
    assert (summary.n_items, summary.repeats, summary.n_distinct) == (36, 3, 12)
    assert summary.flakiness is not None and summary.flakiness.flaky == 0
    assert summary.flakiness.pass_all.value == 1.0 and summary.metrics["accuracy"].value == 1.0
    result.stdout.fnmatch_lines(["*items*12 x 3*", "*flaky items*0 of 12*"])


@pytest.mark.slow
def test_a_flaky_system_shows_per_item_flakiness(toy_pytester: pytest.Pytester) -> None:
    html = toy_pytester.path / "report.html"
    result, report = run(toy_pytester, f"--memsystem={FLAKY}", "--memeval-repeat=2", f"--memeval-html={html}")
    (summary,) = report.runs
    flaky = summary.flakiness
    assert flaky is not None and (flaky.repeats, flaky.n_items, flaky.flaky) == (2, 12, 12)
    assert (flaky.agreement.value, flaky.pass_all.value, flaky.pass_any.value) == (0.0, 0.0, 1.0)
    assert flaky.flaky_ids[:2] == ("ada-city", "ada-colour")
    result.stdout.fnmatch_lines(["*flaky items*12 of 12*", "*pass^2 (all correct)*0.000*", "*flaky: ada-city, *"])
    page = html.read_text(encoding="utf-8")
    data = page_data(page)
    assert all(item["flaky"] for item in data["items"])
    assert sorted(r["repeat"] for r in data["items"][0]["records"]) == [0, 1]


def test_flakiness_intervals_resample_clusters() -> None:
    # cluster a: both items flaky; cluster b: both stable. Items (not repeats) are the n.
    records = [
        make_record(f"{c}{i}", cluster=c, correct=(c == "b" or r == 0), repeat=r)
        for c in "ab"
        for i in range(2)
        for r in range(3)
    ]
    items = item_repeats(records)
    assert [(i.id, i.correct, i.total, i.flaky) for i in items][:2] == [("a0", 1, 3, True), ("a1", 1, 3, True)]
    assert items[0].agreement == pytest.approx(1 / 3)  # pairs: (w,w) agrees, (c,w) x2 do not
    result = flakiness(records, n_resamples=200)
    assert result is not None and result.flaky == 2 and result.agreement.n == 4
    assert result.agreement.ci[0] < result.agreement.value < result.agreement.ci[1]
    assert flakiness([make_record("x", correct=True)], n_resamples=10) is None


def test_repeats_pair_by_id_and_repeat_and_flips_use_the_share_correct() -> None:
    a = [make_record("x", memsystem="a", correct=r < 2, repeat=r) for r in range(3)]
    b = [make_record("x", memsystem="b", correct=True, repeat=r) for r in range(2)]
    seen: list[Any] = []

    def compare(left: Any, right: Any) -> dict[str, Any]:
        seen.append([(r.id, r.repeat) for r in left])
        return {}

    comparison = compare_runs((a[0].key, a), (b[0].key, b), compare, "run")
    assert seen == [[("x", 0), ("x", 1)]] and comparison.n_paired == 2
    assert comparison.only_a.ids == ("x r2",)
    assert comparison.flipped == ()  # the paired repeats agree
    b[1] = make_record("x", memsystem="b", correct=False, repeat=1)
    (flip,) = compare_runs((a[0].key, a), (b[0].key, b), compare, "run").flipped
    assert (flip.id, flip.a, flip.b) == ("x", 1.0, 0.5) and not flip.worse_in_a


def test_a_request_is_keyed_by_its_repeat_and_repeat_0_keeps_the_old_key() -> None:
    settings = LLMSettings(model="m")
    messages = [{"role": "user", "content": "q"}]
    plain = ChatRequest.build(settings, messages, "t@1")
    with repeat_scope(0):
        assert ChatRequest.build(settings, messages, "t@1").key() == plain.key()
    with repeat_scope(2):
        second = ChatRequest.build(settings, messages, "t@1")
    assert "repeat" not in plain.canonical() and second.canonical()["repeat"] == 2
    assert second.key() != plain.key()
    assert current_repeat() == 0


def test_a_judge_panel_asks_each_judge_in_the_items_repeat() -> None:
    class Judge:
        def __init__(self, name: str) -> None:
            self.name = name

        def score(self, item: Item, answer: Answer, *, label: str | None = None) -> Verdict:
            return Verdict(correct=True, score=float(current_repeat()))

        def close(self) -> None:
            pass

    panel = JudgePanel([Judge("a"), Judge("b")])  # type: ignore[list-item]
    item = Item("i", "c", "c", ItemView("s", "t", "q"), gold=None)
    try:
        with repeat_scope(3):
            verdict = panel.score(item, Answer("x"))
    finally:
        panel.close()
    assert verdict.score == 3.0


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--memeval-repeat=0"], "--memeval-repeat: must be at least 1, got 0"),
        (["--memeval-repeat=two"], "--memeval-repeat: 'two' is not an integer"),
        (["--memeval-repeat=2", "--memeval-snapshot"], "--memeval-repeat: a snapshot keeps one verdict per item*"),
    ],
)
def test_bad_repeat_settings_are_usage_errors(toy_pytester: pytest.Pytester, args: list[str], message: str) -> None:
    result = toy_pytester.runpytest("test_toy.py", "--memsystem=context", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])


def test_records_of_repeats_round_trip(tmp_path: Path) -> None:
    record = make_record("x", repeat=2)
    assert type(record).from_json(json.loads(json.dumps(record.to_json()))) == record


@pytest.mark.slow
def test_an_llm_run_asks_once_per_repeat_and_replays_each(suite_pytester: pytest.Pytester) -> None:
    """Each repeat is its own cached call (prefetched per repeat); repeat 0's calls are the
    calls of a run without repeats, so that run replays from the same cache."""
    from llm_server import LLMServer, Request

    def first_label(request: Request) -> str:
        question = request.messages[0]["content"].split("# Survey Question", 1)[1]
        label = question.split("\n- ", 1)[1].split()[0]
        return json.dumps({"answer": label, "would_skip": False})

    def run_llm(base_url: str, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
        path = suite_pytester.path / "report.json"
        path.unlink(missing_ok=True)
        result = suite_pytester.runpytest_subprocess(
            "--memsystem=context",
            "--memeval-suite=multisource",
            "--memeval-responder=openai:scripted-model",
            f"--memeval-base-url={base_url}",
            f"--memeval-llm-cache-file={suite_pytester.path / 'llm.sqlite'}",
            f"--memeval-report={path}",
            "-p",
            "no:cacheprovider",
            "-k",
            "stable_121-A",
            "--memeval-max-errors=100",
            *args,
        )
        return result, json.loads(path.read_text()) if path.exists() else {}

    with LLMServer(first_label) as server:
        _, recorded = run_llm(server.base_url, "--memeval-repeat=2")
        items = {r["id"] for r in recorded["records"]}
        assert len(items) > 1 and server.count == len(recorded["records"]) == 2 * len(items)  # one call per repeat
    offline = "http://127.0.0.1:9/v1"
    _, replayed = run_llm(offline, "--memeval-repeat=2", "--memeval-llm-cache=replay")
    assert [(r["id"], r["repeat"], r["answer"]) for r in replayed["records"]] == [
        (r["id"], r["repeat"], r["answer"]) for r in recorded["records"]
    ]
    _, single = run_llm(offline, "--memeval-llm-cache=replay")  # no repeats: the repeat-0 entries
    assert len(single["records"]) == len(items) and all(r["status"] == "scored" for r in single["records"])
