"""Re-judging a run's stored answers (`python -m pytest_memeval rejudge`): a report graded by
one judge, re-judged by two, equals a run of the same answers graded by those two, record
for record, with the same metrics, judge sensitivity and fingerprint.

The runs are made in this process, as the plugin makes them (`evaluate_items`,
`SessionReport.build`), on locomo's generated sample with the `context` store and the
offline reader, against a scripted loopback judge that answers differently under Mem0's J
and LongMemEval's prompt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from harness import make_settings
from llm_server import LLMServer
from test_judge_sensitivity import two_minded_judge
from test_locomo_suite import _suite as _locomo

from pytest_memeval.__main__ import main
from pytest_memeval.analysis.comparability import run_fingerprint
from pytest_memeval.analysis.session_report import SessionReport
from pytest_memeval.config.judge_specs import parse_judge
from pytest_memeval.config.llm_settings import LLMSettings
from pytest_memeval.rendering.session_output import write_files
from pytest_memeval.results.reading import read_report
from pytest_memeval.results.records import ANSWER_CHARS, Report, kept_text
from pytest_memeval.running.evaluation import Components, evaluate_items
from pytest_memeval.running.prefetch import Prefetcher
from pytest_memeval.running.record_collector import group_by_run
from pytest_memeval.running.registry import resolve_memsystem
from pytest_memeval.running.rejudging import whole_answer
from pytest_memeval.running.state import RunState

J = "openai:gpt-4o-mini@mem0-j"
STRICT = "openai:gpt-4o-2024-08-06@longmemeval"
#: what differs between two runs of the same answers: how long things took
TIMINGS = ("retrieve_ms", "answer_ms", "judge_ms", "ingest_ms", "context_fill")
ITEMS = 20


def _run(tmp_path: Path, base_url: str, judges: tuple[str, ...], name: str) -> Path:
    """A run of locomo's sample on `context` graded by `judges`; its JSON report's path."""
    settings = make_settings(
        "context",
        suites=("locomo",),
        embedder="hashing",
        cache_dir=tmp_path / "cache",
        bootstrap=200,
        judges=tuple(parse_judge(j) for j in judges),
        llm=LLMSettings(model="judge", base_url=base_url, cache_mode="off", cache_path=None),
        report=tmp_path / f"{name}.json",
    )
    state = RunState(settings, {"context": resolve_memsystem("context")})
    state.use_workdir(tmp_path / f"work-{name}")
    try:
        suite = state.suite("locomo")
        parts = Components(
            suite, "locomo", state.filler("context"), state.responder(suite), state.judge(suite), Prefetcher({})
        )
        key = state.run_key(suite, "context", 10)
        ids = [entry.id for entry in state.index("locomo")][:ITEMS]  # two conversations: two clusters
        records = list(evaluate_items(parts, ids, key))
        fingerprint = run_fingerprint(settings, state.memsystems, [suite])
        report = SessionReport.build(settings, state.suite, group_by_run(records), fingerprint=fingerprint)
        write_files(report, state.suite)
    finally:
        state.close()
    return tmp_path / f"{name}.json"


def _comparable(report: Report) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.to_json().items() if k not in TIMINGS} for r in report.records]


@pytest.mark.slow  # three runs of 20 items against a loopback judge (~20 s on 2 loaded cores)
def test_a_rejudged_report_equals_a_run_graded_by_the_new_judges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with LLMServer(two_minded_judge) as server:
        one = _run(tmp_path, server.base_url, (J,), "one")
        _run(tmp_path, server.base_url, (J, STRICT), "two")
        server.reset()
        status = main(
            [
                "rejudge",
                str(one),
                f"--memeval-judge={J},{STRICT}",
                f"--memeval-report={tmp_path / 'rejudged.json'}",
                f"--memeval-base-url={server.base_url}",
                "--memeval-llm-cache=off",
            ]
        )
        calls = server.count
    assert status in (0, 1)
    run, again, original = (read_report(tmp_path / f"{n}.json", "test") for n in ("two", "rejudged", "one"))
    assert len(again.records) == ITEMS and calls == 2 * ITEMS  # each judge once per answer, nothing else asked
    assert _comparable(again) == _comparable(run)  # record for record
    assert [r.answer for r in again.records] == [r.answer for r in original.records]
    (rejudged_run,) = again.runs
    assert rejudged_run.key.judge == "gpt-4o-mini@mem0-j,gpt-4o-2024-08-06@longmemeval"
    assert rejudged_run.metrics == run.runs[0].metrics
    assert rejudged_run.judge_sensitivity == run.runs[0].judge_sensitivity
    sensitivity = rejudged_run.judge_sensitivity
    assert sensitivity is not None and sensitivity.disagreements  # the two prompts disagree on "What" questions
    assert again.fingerprint is not None and run.fingerprint is not None
    assert again.fingerprint.protocol_json() == run.fingerprint.protocol_json()
    locomo = again.fingerprint.suite("locomo")
    assert locomo is not None and locomo.judges == ("gpt-4o-mini@mem0-j", "gpt-4o-2024-08-06@longmemeval")
    assert original.fingerprint is not None and original.fingerprint.protocol_json() != run.fingerprint.protocol_json()


def test_a_bundle_or_report_that_is_not_one_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "memeval-bundle/1", "parts": {}}))
    out = tmp_path / "out.json"
    assert main(["rejudge", str(bad), f"--memeval-judge={J}", f"--memeval-report={out}"]) == 4
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("memeval: ") and not out.exists()
    plain = tmp_path / "plain.json"
    plain.write_text("[1]")
    assert main(["rejudge", str(plain), f"--memeval-judge={J}", f"--memeval-report={out}"]) == 4
    (line,) = capsys.readouterr().err.splitlines()
    assert "not a memeval-report/2 report" in line


def test_an_answer_the_record_keeps_in_part_is_not_rejudged() -> None:
    from harness import make_record

    whole = "x" * ANSWER_CHARS
    assert whole_answer(make_record(answer=whole)) is not None
    cut = make_record(answer=kept_text("x" * (ANSWER_CHARS + 1), ANSWER_CHARS))
    assert whole_answer(cut) is None
    # a memory system's own words that end the same way, in a short answer, are an answer
    assert whole_answer(make_record(answer="[3 characters in all]")) is not None


def test_rejudged_records_keep_what_the_trace_decided() -> None:
    """A report holds no trace: locomo's evidence recall (from the memories' sources) is the run's."""
    from harness import make_record

    from pytest_memeval.running.rejudging import rejudged
    from pytest_memeval.types import Verdict

    suite = _locomo()
    item = suite.item(suite.index()[0].id)

    class Lenient:
        def score(self, item: Any, answer: Any, trace: Any) -> Verdict:
            assert not trace.memories and not trace.keeps_sources
            return Verdict(True, 1.0, detail={"j": 1.0, "evidence_recall": None, "provenance": False})

    record = make_record(
        item.id,
        suite="locomo",
        answer="an answer",
        question=item.view.question,
        detail={"j": 0.0, "evidence_recall": 0.5, "provenance": True},
        llm_tokens={"answer": {}, "judge": {}},
    )
    again = rejudged(record, suite, Lenient(), "lenient")
    assert again.correct is True and again.key.judge == "lenient"
    assert again.detail == {"j": 1.0, "evidence_recall": 0.5, "provenance": True}
