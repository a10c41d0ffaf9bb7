"""Tokens, latency and cost per phase: counted on each record, summed per run, priced from
the user's table; the --collect-only estimate; --memeval-max-cost stops a run cleanly."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from harness import make_record, make_settings, suite_options
from llm_server import LLMServer, Reply, Request
from msgspec.structs import replace
from toysuite import ToySuite

from pytest_memeval.analysis.session_report import SessionReport
from pytest_memeval.analysis.usage_totals import run_usage
from pytest_memeval.config.prices import Price, load_prices
from pytest_memeval.errors import ConfigError
from pytest_memeval.memory.context import ContextMemory
from pytest_memeval.memory.tokens import count_tokens
from pytest_memeval.rendering.usage_table import usage_rows
from pytest_memeval.results.records import Report, RunKey, RunSummary
from pytest_memeval.results.schema import SchemaError
from pytest_memeval.results.usage import FillCost, Latency, Tokens
from pytest_memeval.running.evaluation import Components, evaluate_wired
from pytest_memeval.running.record_collector import group_by_run, record_from_wire, record_to_wire

PRICES = '[answerer]\ninput = 1.0\noutput = 2.0\n\n["gpt-4o-mini"]\ninput = 0.5\noutput = 1.5\n'


def _record(id: str, **fields: Any) -> Any:
    return make_record(id, suite="toy", retrieve_ms=fields.pop("retrieve_ms", 10.0), **fields)


def test_a_run_sums_its_records_tokens_and_prices_them() -> None:
    answer = Tokens.of_call(1000, 10, cached=False) + Tokens.of_call(500, 5, cached=True)
    records = [
        _record(
            "a",
            retrieved_tokens=100,
            answer_ms=30.0,
            llm_tokens={"answer": {"answerer": answer}},
            ingest_ms=(5.0, 7.0),
            judge_ms=2.0,
        ),
        _record("b", retrieved_tokens=300, retrieve_ms=20.0, answer_ms=50.0, judge_ms=4.0),
        _record(
            "c",
            retrieved_tokens=200,
            retrieve_ms=30.0,
            llm_tokens={"judge": {"gpt-4o-mini": Tokens.of_call(200, 20, False)}},
        ),
        _record(
            "d",
            status="error",
            reason="timed out",
            retrieved_tokens=999,
            llm_tokens={"judge": {"other": Tokens.of_call(1, 1, False)}},
        ),
    ]
    usage = run_usage(records, load_prices_text(PRICES))
    assert usage is not None
    assert usage.context_tokens == 200  # the median over the records that retrieved (not the error)
    assert usage.latency["retrieve"] == Latency(20.0, pytest.approx(29.0), 3, pytest.approx(29.8))  # type: ignore[arg-type]
    assert usage.latency["ingest"].n == 2 and usage.latency["judge"].p50 == 3.0
    assert usage.llm["answer"]["answerer"] == Tokens(2, 1500, 15, 1, 500, 5)
    assert usage.llm["judge"] == {"gpt-4o-mini": Tokens(1, 200, 20), "other": Tokens(1, 1, 1)}
    assert usage.cost["answer"] == pytest.approx((1500 * 1.0 + 15 * 2.0) / 1e6)
    assert usage.cost["judge"] is None and usage.total_cost is None  # a model without a price: unknown, not 0
    assert usage.unpriced == ("other",)
    assert usage.spent is None
    priced = run_usage(records[:3], load_prices_text(PRICES))
    assert priced is not None and priced.spent == pytest.approx((1000 + 20 + 200 * 0.5 + 20 * 1.5) / 1e6)
    assert priced.total_cost == pytest.approx((1500 + 30 + 100 + 30) / 1e6)


def load_prices_text(text: str) -> dict[str, Price]:
    import tomllib

    from pytest_memeval.config.prices import prices_from

    return prices_from(tomllib.loads(text), "test")


def test_usage_survives_the_wire_and_the_report() -> None:
    fill = FillCost({"extractor": Tokens(3, 900, 60, 3, 900, 60)}, llm_seconds=1.25, fill_ms=4.0)
    record = _record(
        "a",
        llm_tokens={"answer": {"m": Tokens(2, 30, 4, 1, 15, 2)}},
        ingest_ms=(1.5, 2.5),
        judge_ms=3.25,
        context_fill=fill,
    )
    assert type(record).from_json(json.loads(json.dumps(record.to_json()))) == record
    assert record_from_wire(record_to_wire(record)) == record
    assert "context_fill" not in record_to_wire(replace(record, context_fill=None))
    usage = run_usage([record], {"m": Price(1, 1)})
    assert usage is not None
    report = Report({}, (), (record,), usage={record.key: usage})
    assert Report.from_json(json.loads(json.dumps(report.to_json()))) == report


def test_each_phase_shows_p50_p95_p99_and_its_count_and_an_older_report_says_its_p99_is_not_there() -> None:
    records = [_record(f"i{n}", retrieve_ms=float(n)) for n in range(1, 101)]
    usage = run_usage(records, {})
    assert usage is not None
    assert usage.latency["retrieve"] == Latency(50.5, pytest.approx(95.05), 100, pytest.approx(99.01))  # type: ignore[arg-type]
    report = Report({}, (), tuple(records), usage={records[0].key: usage})
    run = RunSummary(records[0].key, 100, 100, 0, 0)
    assert dict(usage_rows(report, [run]))["retrieve ms p50/95/99 (n)"] == ["50.5 / 95.0 / 99.0 (100)"]
    older = report.to_json()
    del older["usage"][0]["latency"]["retrieve"]["p99"]
    read = Report.from_json(older)
    assert dict(usage_rows(read, [run]))["retrieve ms p50/95/99 (n)"] == ["50.5 / 95.0 / n/a (100)"]


def test_repeats_pool_their_timings_into_one_run_and_share_their_fill(tmp_path: Path) -> None:
    """--memeval-repeat 3 on one context's 3 items: the records go over the wire and are grouped
    as the controller does; each phase's percentiles are over every repeat's timings (3 x 3),
    ingest over the one fill the repeats share (its session, once)."""
    suite = ToySuite(suite_options(tmp_path))
    parts = Components.offline(suite, ContextMemory(), "context", suite.reader())
    key = RunKey("toy", "context", "reader", "deterministic", 10)
    items, repeats = ("ada-colour", "ada-city", "ada-pet"), 3
    wires = [
        evaluate_wired(lambda: parts, "toy", item, key, repeat).wire for repeat in range(repeats) for item in items
    ]
    grouped = group_by_run(record_from_wire(wire) for wire in wires)
    assert list(grouped) == [key]  # the repeats are one run
    records = grouped[key]
    usage = SessionReport.build(make_settings("context", suites=("toy",)), lambda ref: suite, grouped).report.usage[key]
    for phase, field in (("retrieve", "retrieve_ms"), ("answer", "answer_ms"), ("judge", "judge_ms")):
        timings = [getattr(r, field) for r in records]
        assert usage.latency[phase].n == repeats * len(items) == len(timings)
        pooled = np.percentile(timings, [50, 95, 99])
        assert (usage.latency[phase].p50, usage.latency[phase].p95, usage.latency[phase].p99) == tuple(pooled)
    assert usage.latency["ingest"].n == 1  # the context was filled once, by the first repeat's first item


@pytest.mark.parametrize(
    "context_fill, message",
    [
        ({"tokens": {"m": {"calls": -1}}}, "calls must be a count"),
        ({"llm_seconds": "1"}, "llm_seconds must be a number"),
        ({"fill_ms": -2.0}, "must not be negative"),
        ([], "expected an object"),
    ],
)
def test_a_bad_context_fill_is_one_line(context_fill: Any, message: str) -> None:
    data = {**_record("a").to_json(), "context_fill": context_fill}
    with pytest.raises(SchemaError, match=message):
        type(_record("a")).from_json(data)


@pytest.mark.parametrize(
    "text, message",
    [
        ("[m]\ninput = 1\n", "[m] must hold exactly input and output"),
        ("[m]\ninput = -1\noutput = 1\n", "prices must be finite numbers >= 0"),
        ("[m]\ninput = 'a'\noutput = 1\n", "prices must be finite numbers >= 0"),
        ("m = 3\n", "[m] must hold exactly input and output"),
        ("", "no prices"),
        ("[m\n", "is not valid TOML"),
    ],
)
def test_a_bad_price_table_is_one_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "prices.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_prices(path)


QUESTION = re.compile(r"Question: (.*)\n")


def _script(request: Request) -> Reply:
    """LoCoMo's answerer and J judge, reporting tokens as count_tokens counts them (the
    server's own default counts words split on spaces)."""
    content = request.messages[0]["content"]
    if content.startswith("Your task is to label"):
        reply = '{"label": "CORRECT"}' if "Generated answer: 2023" in content else '{"label": "WRONG"}'
    else:
        question = QUESTION.search(content).group(1)  # type: ignore[union-attr]
        reply = "2023" if question.startswith("When") else "I am not sure."
    prompt = sum(count_tokens(str(m.get("content") or "")) for m in request.messages)
    completion = count_tokens(reply)
    return Reply(
        reply, usage={"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
    )


LLM = (
    "--memeval-suite=locomo",
    "--memsystem=context",
    "--memeval-responder=openai:answerer",
    "--memeval-judge=openai:gpt-4o-mini",
    "-k",
    "sample-2024-0 or sample-2024-1",
    "-p",
    "no:cacheprovider",
)


def test_the_estimate_gives_each_phase_its_cost_with_a_price_table() -> None:
    from pytest_memeval.campaigns.estimate import PhaseEstimate, estimate_lines

    phases = [PhaseEstimate("answer", "m", 10, 1000, 160), PhaseEstimate("judge", "j", 10, 2000, 320)]
    priced = estimate_lines(phases, ["ingest: 2 sessions"], {"m": Price(1.0, 2.0)})
    assert priced[1].endswith("10 calls, 1,000 prompt + 160 completion tokens, cost 0.0013")  # 1,320 / 1e6
    assert priced[2].endswith("cost unknown (no price for j)")
    assert priced[3] == "  total: 20 calls, 3,480 tokens, cost at least 0.0013"
    assert not any("cost" in line for line in estimate_lines(phases, ["ingest: 2 sessions"]))


@pytest.mark.slow
def test_tokens_cost_and_an_estimate_within_20_percent_on_a_scripted_run(suite_pytester: pytest.Pytester) -> None:
    pytester = suite_pytester
    prices = pytester.path / "prices.toml"
    prices.write_text(PRICES)
    report = pytester.path / "run.json"
    with LLMServer(_script) as server:
        url = f"--memeval-base-url={server.base_url}"
        estimated = pytester.runpytest_subprocess(*LLM, url, f"--memeval-prices={prices}", "--collect-only", "-q")
        assert server.count == 0  # nothing spent
        result = pytester.runpytest_subprocess(
            *LLM, url, f"--memeval-prices={prices}", f"--memeval-report={report}", "--memeval-html=run.html"
        )
        requests = server.requests
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    data = json.loads(report.read_text())
    records = data["records"]
    measured = {"answer": [0, 0, 0], "judge": [0, 0, 0]}  # calls, prompt, completion
    for record in records:
        for phase, models in record["llm_tokens"].items():
            for tokens in models.values():
                for i, name in enumerate(("calls", "prompt_tokens", "completion_tokens")):
                    measured[phase][i] += tokens[name]
    # every call the server answered is on exactly one record, with the tokens it reported
    served = [_script(r).usage for r in requests]
    assert measured["answer"][0] + measured["judge"][0] == len(requests)
    assert measured["answer"][1] + measured["judge"][1] == sum(u["prompt_tokens"] for u in served)  # type: ignore[index]
    assert all(r["judge_ms"] is not None and r["answer_ms"] is not None for r in records)
    assert sum(len(r["ingest_ms"]) for r in records) == 10  # each session stored once, on the record that filled
    run = data["usage"][0]
    expected_cost = (measured["answer"][1] * 1.0 + measured["answer"][2] * 2.0) / 1e6
    assert run["cost"]["answer"] == pytest.approx(expected_cost)
    assert run["spent"] == pytest.approx(
        expected_cost + (measured["judge"][1] * 0.5 + measured["judge"][2] * 1.5) / 1e6
    )
    output = result.stdout.str()
    assert "tokens, latency and cost" in output and "retrieve ms p50/95/99 (n)" in output
    assert "answer cost" in output and "context tokens (median)" in output
    assert "tokens, latency and cost" in (pytester.path / "run.html").read_text()

    lines = estimated.stdout.str().splitlines()
    estimated_cost = 0.0
    for phase, model, price in (("answer", "answerer", Price(1.0, 2.0)), ("judge", "gpt-4o-mini", Price(0.5, 1.5))):
        line = next(line for line in lines if line.strip().startswith(f"{phase} ") and model in line)
        counts, _, money = line.split(":", 1)[1].partition(", cost ")
        calls, prompt, completion = (int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", counts))
        assert calls == measured[phase][0]
        tokens, measured_tokens = prompt + completion, measured[phase][1] + measured[phase][2]
        assert abs(tokens - measured_tokens) <= 0.2 * measured_tokens, (phase, tokens, measured_tokens)
        assert money == f"{price.of(Tokens(calls, prompt, completion)):.4f}", line  # with prices: money
        estimated_cost += price.of(Tokens(calls, prompt, completion))
    total = next(line for line in lines if line.strip().startswith("total:"))
    assert total.endswith(f", cost {estimated_cost:.4f}"), total
    assert "ingest:" in estimated.stdout.str()


@pytest.mark.slow
@pytest.mark.parametrize("workers", ["2", "0"])
def test_max_cost_stops_a_run_cleanly_and_the_journal_resumes_it(suite_pytester: pytest.Pytester, workers: str) -> None:
    pytester = suite_pytester
    prices = pytester.path / "prices.toml"
    prices.write_text(PRICES)
    report = pytester.path / "run.json"
    common = (*LLM, f"--memeval-prices={prices}", f"--memeval-report={report}", "--memeval-llm-cache=off")
    journal = pytester.path / "run.journal.jsonl"
    with LLMServer(_script) as server:
        url = f"--memeval-base-url={server.base_url}"
        stopped = pytester.runpytest_subprocess(*common, url, "--memeval-max-cost=0.001", "-n", workers)
        kept = journal.read_bytes().count(b'{"record"')
        resumed = pytester.runpytest_subprocess(*common, url, "--memeval-resume", "-n", workers)
    assert stopped.ret == pytest.ExitCode.INTERRUPTED, stopped.stdout.str()
    assert "memeval: stopped: this run's LLM calls cost" in stopped.stdout.str()
    assert "over --memeval-max-cost 0.001" in stopped.stdout.str()
    assert 0 < kept < 20, stopped.stdout.str()  # each worker stopped after the item it was running
    # labelled incomplete, and the last line says what ran and how to resume
    assert stopped.outlines[-1].startswith(
        f"memeval: incomplete: {kept} of 20 selected items ran (--memeval-max-cost 0.001 reached); resume with: "
    )
    assert stopped.outlines[-1].endswith(" --memeval-resume")
    if workers == "0":
        assert kept == 1  # one process: the run stops after the item that passed the budget
    assert resumed.ret == pytest.ExitCode.TESTS_FAILED, resumed.stdout.str()
    assert f"memeval: resuming {journal}: {kept} records kept" in resumed.stdout.str()
    assert len(json.loads(report.read_text())["records"]) == 20 and not journal.exists()


@pytest.mark.slow
def test_the_estimate_counts_each_judge_with_the_prompt_it_grades_with(pytester: pytest.Pytester) -> None:
    # LongMemEval names its judge prompts and reads its panel's members: the official
    # prompt's default judge and a mem0-J judge grade with different prompts
    judges = "--memeval-judge=default,openai:judge-b@mem0-j"
    result = pytester.runpytest_subprocess(
        "--memsystem=context",
        "--memeval-suite=longmemeval",
        "--memeval-responder=openai:answerer",
        "--memeval-base-url=http://127.0.0.1:9/v1",
        judges,
        "--collect-only",
        "-q",
        "-p",
        "no:cacheprovider",
    )
    output = result.stdout.str()
    assert "estimate: not available" not in output, output
    prompt_tokens = {}
    for line in output.splitlines():
        if match := re.match(r"\s*judge\s+(\S+): (\d+) calls, ([\d,]+) prompt", line):
            assert match[2] == "16"
            prompt_tokens[match[1]] = int(match[3].replace(",", ""))
    assert set(prompt_tokens) == {"gpt-4o-2024-08-06", "judge-b"}, output
    assert prompt_tokens["judge-b"] > prompt_tokens["gpt-4o-2024-08-06"] > 0  # mem0's J prompt is the longer


@pytest.mark.slow
def test_the_estimate_of_memfail_counts_its_storage_turns_and_calls_nothing(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    from pytest_memeval.suites.memfail.suite import MemfailSuite

    from pytest_memeval.framework.suite import SuiteOptions

    suite = MemfailSuite(SuiteOptions("smoke", None, None, 3, None, tmp_path))
    contexts = {entry.context_id for entry in suite.index()}
    stored = sum(len(session) for c in contexts for session in suite.context(c).sessions)
    with LLMServer("a reply") as server:
        result = pytester.runpytest_subprocess(
            "--memsystem=context",
            "--memeval-suite=memfail",
            "--memeval-responder=openai:answerer",
            f"--memeval-base-url={server.base_url}",
            "--memeval-judge=openai:judge",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
        )
        assert server.count == 0, result.stdout.str()  # building the contexts wrote no storage turn
    output = result.stdout.str()
    match = re.search(r"ingest answerer: (\d+) calls", output)
    assert match is not None, output
    assert int(match[1]) == stored  # one reply per stored user message
    assert "memfail: its judge asks from what the run retrieves and stores: judge calls not estimated" in output


def test_the_estimate_builds_no_context_of_an_interactive_suite_that_plans_no_calls(
    suite_pytester: pytest.Pytester,
) -> None:
    """bayes plans no calls: its contexts (the recommender's calibration) are not built for nothing."""
    from pytest_memeval.suites.bayes.suite import BayesSuite

    assert BayesSuite.interactive and not BayesSuite.plans_calls
    suite_pytester.syspathinsert()
    suite_pytester.makepyfile(
        test_unplanned="""
import pytest
from pytest_memeval import check
from pytest_memeval.suites.bayes.suite import BayesSuite

class Unplanned(BayesSuite):
    name = "unplanned"

    def context(self, context_id):
        raise RuntimeError("the estimate built a context")

@pytest.mark.memeval("test_unplanned:Unplanned")
def test_unplanned(memeval_result):
    check(memeval_result)
"""
    )
    result = suite_pytester.runpytest_subprocess(
        "test_unplanned.py",
        "--memsystem=context",
        "--memeval-suite=test_unplanned:Unplanned",
        "--memeval-responder=openai:answerer",
        "--memeval-base-url=http://127.0.0.1:9/v1",
        "--collect-only",
        "-q",
    )
    output = result.stdout.str()
    assert result.ret == pytest.ExitCode.OK, output
    assert "unplanned: interactive (its protocol decides its calls): not estimated" in output
    assert "the estimate built a context" not in output
