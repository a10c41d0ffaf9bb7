"""Judge sensitivity: naming a judge's prompt beside its model (`openai:MODEL@PROMPT`,
`default`), and what the reports say when a panel of two judges grades the same answers:
each judge's accuracy, Cohen's kappa, the difference, the items where they disagree.

Unit tests hold the syntax, the resolution per suite and the statistics against hand
computations; the slow tests run locomo and longmemeval against a scripted loopback judge
that answers differently under Mem0's J and LongMemEval's prompt, and open the explorer
in a headless browser."""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from harness import make_record
from llm_server import LLMServer, Request
from pytest_memeval.suites.locomo.suite import LocomoSuite
from pytest_memeval.suites.longmemeval.suite import LongMemEvalSuite
from test_install import settings as plain_settings
from test_locomo_suite import _report as locomo_report
from test_longmemeval_suite import _report as longmemeval_report

from pytest_memeval.analysis.judge_sensitivity import judge_sensitivity
from pytest_memeval.config.judge_specs import JudgeSpec, off_protocol, panel_members, parse_judge, with_protocol_model
from pytest_memeval.config.llm_settings import LLMSettings
from pytest_memeval.errors import ConfigError
from pytest_memeval.rendering.terminal import judge_lines
from pytest_memeval.results.records import Record, Report, RunSummary
from pytest_memeval.stats import cluster_bootstrap, cohen_kappa

# --- the syntax ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "spec"),
    [
        ("openai:gpt-4o-mini", JudgeSpec("gpt-4o-mini")),
        ("openai:gpt-4o-mini@mem0-j", JudgeSpec("gpt-4o-mini", "mem0-j")),
        ("openai:vertex/claude@2024@longmemeval", JudgeSpec("vertex/claude@2024", "longmemeval")),
        ("default", JudgeSpec(None)),
        ("default@longmemeval", JudgeSpec(None, "longmemeval")),
    ],
)
def test_a_judge_names_its_model_and_its_prompt(raw: str, spec: JudgeSpec) -> None:
    assert parse_judge(raw) == spec and str(spec) == raw


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("gpt4", "'gpt4' is not of the form openai:MODEL[@PROMPT] or default[@PROMPT]"),
        ("openai:", "is not of the form openai:MODEL"),
        ("openai:m@", "'openai:m@' names no prompt after '@'"),
        ("openai:m@no prompt", "names no prompt after '@'"),
        ("defaults@mem0-j", "is not of the form"),
    ],
)
def test_a_malformed_judge_is_one_line(raw: str, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)) as caught:
        parse_judge(raw)
    assert "\n" not in str(caught.value)


def test_each_suite_resolves_the_prompt_and_the_protocol_model() -> None:
    specs = [parse_judge("default"), parse_judge("default@longmemeval"), parse_judge("openai:x@mem0-j")]
    locomo = panel_members(specs, LocomoSuite.judge_prompts, "locomo")
    assert [(m.name, m.model, m.prompt) for m in locomo] == [
        ("gpt-4o-mini@mem0-j", "gpt-4o-mini", "mem0-j"),
        ("gpt-4o-2024-08-06@longmemeval", "gpt-4o-2024-08-06", "longmemeval"),
        ("x@mem0-j", "x", "mem0-j"),
    ]
    # the same spelling on longmemeval: its own prompt is the default
    (member,) = panel_members([parse_judge("default")], LongMemEvalSuite.judge_prompts, "longmemeval")
    assert (member.name, member.model) == ("gpt-4o-2024-08-06@longmemeval", "gpt-4o-2024-08-06")
    # a suite without named prompts: a judge is its model
    (plain,) = panel_members([parse_judge("openai:m")], {}, "memfail")
    assert (plain.name, plain.model, plain.prompt) == ("m", "m", None)


@pytest.mark.parametrize(
    ("specs", "prompts", "message"),
    [
        (["openai:m@strict"], LocomoSuite.judge_prompts, "suite 'locomo' has no judge prompt 'strict'"),
        (["openai:m@mem0-j"], {}, "suite 'memfail' has no named judge prompts"),
        (["default"], {}, "default: suite 'memfail' names no judge model"),
        (
            ["openai:gpt-4o-mini", "openai:gpt-4o-mini@mem0-j"],
            LocomoSuite.judge_prompts,
            "suite 'locomo' would have judge 'gpt-4o-mini@mem0-j' twice",
        ),
    ],
)
def test_a_judge_a_suite_cannot_take_is_one_line(specs: list[str], prompts: Any, message: str) -> None:
    suite = "locomo" if prompts else "memfail"
    with pytest.raises(ConfigError, match=re.escape(message)):
        panel_members([parse_judge(s) for s in specs], prompts, suite)


def test_the_summary_says_when_a_judge_departs_from_the_protocol() -> None:
    prompts = LocomoSuite.judge_prompts
    assert off_protocol(["gpt-4o-mini@mem0-j"], prompts) == []
    assert off_protocol(["gpt-4o@mem0-j", "gpt-4o-2024-08-06@longmemeval"], prompts) == [
        "judge gpt-4o@mem0-j is not the protocol's model: mem0-j judges with gpt-4o-mini",
        "judge gpt-4o-2024-08-06@longmemeval grades with the longmemeval prompt, not the suite's own (mem0-j)",
    ]


# --- the run's model when a judge is `default` --------------------------------------------


def test_a_default_judge_gives_the_run_the_protocol_model(tmp_path: Path) -> None:
    """Adapters that extract with the run's LLM (mem0) get a real model name, not 'default'."""
    settings = replace(
        plain_settings("context"),
        suites=("longmemeval", "memfail"),
        cache_dir=tmp_path,
        llm=LLMSettings(model="default"),
        judges=(parse_judge("default"),),
    )
    prompts_of = {"memfail": {}, "longmemeval": LongMemEvalSuite.judge_prompts}
    resolved = with_protocol_model(settings, prompts_of)
    assert resolved.llm is not None and resolved.llm.model == "gpt-4o-2024-08-06"
    named = replace(settings, judges=(parse_judge("openai:mine"),))
    assert with_protocol_model(named, prompts_of) == named


# --- the statistics against hand computations ---------------------------------------------


def _kappa_by_hand(a: list[bool], b: list[bool]) -> float:
    n = len(a)
    observed = sum(x == y for x, y in zip(a, b)) / n
    pa, pb = sum(a) / n, sum(b) / n
    expected = pa * pb + (1 - pa) * (1 - pb)
    return (observed - expected) / (1 - expected)


def test_cohen_kappa_over_group_sums_is_the_textbook_one() -> None:
    a = [True, True, True, False, False, True, False, True, True, False]
    b = [True, False, True, False, True, True, False, False, True, False]
    columns = {"a": a, "b": b, "ab": [x and y for x, y in zip(a, b)]}
    result = cluster_bootstrap({"k": cohen_kappa("a", "b", "ab")}, columns, n_resamples=200)["k"]
    assert result.estimate == pytest.approx(_kappa_by_hand(a, b), abs=1e-12)
    # 7 of 10 agree; p_e = .6 * .5 + .4 * .5 = .5: kappa = (.7 - .5) / .5
    assert result.estimate == pytest.approx(0.4, abs=1e-12)
    assert result.ci_low <= result.estimate <= result.ci_high


def test_kappa_is_undefined_when_both_judges_say_the_same_to_everything() -> None:
    same = [True] * 6
    columns = {"a": same, "b": same, "ab": same}
    result = cluster_bootstrap({"k": cohen_kappa("a", "b", "ab")}, columns, n_resamples=50)["k"]
    assert math.isnan(result.estimate)


#: (item, cluster, Mem0's J, LongMemEval's) of a scripted panel
VERDICTS = [
    ("q1", "c1", True, True),
    ("q2", "c1", True, False),
    ("q3", "c1", False, False),
    ("q4", "c2", True, True),
    ("q5", "c2", True, False),
    ("q6", "c2", True, True),
    ("q7", "c3", False, False),
    ("q8", "c3", True, False),
    ("q9", "c3", True, True),
    ("q10", "c3", False, True),
]
J, STRICT = "gpt-4o-mini@mem0-j", "gpt-4o-2024-08-06@longmemeval"


def _panel_records() -> list[Record]:
    records = [
        make_record(
            item,
            suite="locomo",
            cluster=cluster,
            correct=j and strict,
            detail={
                "judges": {J: {"score": float(j), "correct": j}, STRICT: {"score": float(strict), "correct": strict}}
            },
        )
        for item, cluster, j, strict in VERDICTS
    ]
    # neither an error record nor a judge without a yes/no verdict counts
    records.append(make_record("q11", suite="locomo", status="error", reason="timeout"))
    records.append(
        make_record("q12", suite="locomo", detail={"judges": {J: {"correct": True}, STRICT: {"invalid": "x"}}})
    )
    return records


def test_each_judge_s_accuracy_kappa_and_the_disagreements_equal_a_hand_computation() -> None:
    sensitivity = judge_sensitivity(_panel_records(), n_resamples=400)
    assert sensitivity is not None
    j = [v[2] for v in VERDICTS]
    strict = [v[3] for v in VERDICTS]
    assert sensitivity.judges == (J, STRICT) and sensitivity.n == 10
    assert sensitivity.accuracy[J].value == pytest.approx(0.7) and sensitivity.accuracy[STRICT].value == pytest.approx(
        0.5
    )
    (pair,) = sensitivity.pairs
    assert (pair.a, pair.b, pair.n, pair.agree) == (J, STRICT, 10, 6)
    assert pair.kappa.value == pytest.approx(_kappa_by_hand(j, strict), abs=1e-12)
    assert pair.difference.difference == pytest.approx(0.2)
    assert [d[0] for d in sensitivity.disagreements] == ["q2", "q5", "q8", "q10"]
    assert sensitivity.disagreements[-1] == ("q10", 0, {J: False, STRICT: True})
    for metric in (*sensitivity.accuracy.values(), pair.kappa):  # clustered intervals around the estimate
        assert metric.ci[0] is not None and metric.ci[0] <= metric.value <= metric.ci[1]
        assert metric.n == 10


def test_a_single_judge_or_graded_scores_give_no_sensitivity() -> None:
    one = [make_record("q1", detail={"judges": {J: {"correct": True}}})]
    graded = [make_record("q1", detail={"judges": {"a": {"score": 3.0, "correct": None}, "b": {"score": 4.0}}})]
    assert judge_sensitivity(one, 100) is None and judge_sensitivity(graded, 100) is None


def test_the_sensitivity_round_trips_through_the_json_report() -> None:
    records = _panel_records()
    sensitivity = judge_sensitivity(records, n_resamples=100)
    run = RunSummary.of(records[0].key, records, judge_sensitivity=sensitivity)
    report = Report({}, (run,), tuple(records))
    again = Report.from_json(json.loads(json.dumps(report.to_json())))
    assert again.runs[0].judge_sensitivity == sensitivity
    data = report.to_json()["runs"][0]["judge_sensitivity"]
    assert data["disagreements"][0] == {"id": "q2", "repeat": 0, "verdicts": {J: True, STRICT: False}}


def test_the_terminal_block_is_short_and_names_the_disagreements() -> None:
    sensitivity = judge_sensitivity(_panel_records(), n_resamples=100)
    assert sensitivity is not None
    lines = judge_lines(sensitivity, "context", width=100)
    assert len(lines) == 5 and lines[0] == "  judge sensitivity (context), 10 records judged by every judge:"
    assert lines[1].split()[:3] == [J, "accuracy", "0.700"] and lines[2].split()[:3] == [STRICT, "accuracy", "0.500"]
    assert lines[3].startswith("    difference +0.200 [") and ", Cohen's kappa 0.2" in lines[3]
    assert lines[3].endswith("agree on 6 of 10")
    assert lines[4].strip() == "the judges disagree on 4 items: q2, q5, q8, q10"


# --- through pytest: a scripted judge that answers differently under the two prompts ------

QUESTION = re.compile(r"Question: (.*)\n")
GENEROUS = ("What", "When")  # Mem0's J says CORRECT to these questions
STRICT_YES = ("When",)  # LongMemEval's prompt says yes to these only


def two_minded_judge(request: Request) -> str:
    """Mem0's J is generous, LongMemEval's prompt strict, on the same answers."""
    content = request.messages[0]["content"]
    question = QUESTION.findall(content)[-1]  # J's prompt shows an example question first
    if content.startswith("Your task is to label"):
        return '{"label": "CORRECT"}' if question.startswith(GENEROUS) else '{"label": "WRONG"}'
    assert content.startswith("I will give you a"), content[:80]  # one of evaluate_qa.py's prompts
    return "yes" if question.startswith(STRICT_YES) else "no"


@pytest.mark.slow
def test_mem0_j_beside_longmemeval_s_judge_on_locomo_answers(suite_pytester: pytest.Pytester, tmp_path: Path) -> None:
    html = suite_pytester.path / "report.html"
    judges = "--memeval-judge=openai:gpt-4o-mini@mem0-j,openai:gpt-4o-2024-08-06@longmemeval"
    with LLMServer(two_minded_judge) as server:
        result, report = locomo_report(
            suite_pytester,
            "locomo",
            "--memsystem=context",
            judges,
            f"--memeval-base-url={server.base_url}",
            f"--memeval-html={html}",
        )
        requests = server.requests
    (run,) = report["runs"]
    records = report["records"]
    assert run["key"]["judge"] == "gpt-4o-mini@mem0-j,gpt-4o-2024-08-06@longmemeval"
    # each prompt went to its model with its protocol's call settings
    j_calls = [r for r in requests if r.messages[0]["content"].startswith("Your task")]
    strict_calls = [r for r in requests if r not in j_calls]
    assert len(j_calls) == len(strict_calls) == run["n_items"] == 40
    assert {(r.model, r.body["temperature"], r.body["max_tokens"]) for r in j_calls} == {("gpt-4o-mini", 0, 1024)}
    assert {(r.model, r.body["temperature"], r.body["max_tokens"]) for r in strict_calls} == {
        ("gpt-4o-2024-08-06", 0, 10)
    }
    # the hand computation, from the questions the records keep
    generous = [r["question"].startswith(GENEROUS) for r in records]
    strict = [r["question"].startswith(STRICT_YES) for r in records]
    sensitivity = run["judge_sensitivity"]
    j_name, strict_name = sensitivity["judges"]
    assert (j_name, strict_name) == ("gpt-4o-mini@mem0-j", "gpt-4o-2024-08-06@longmemeval")
    assert sensitivity["n"] == 40
    assert sensitivity["accuracy"][j_name]["value"] == pytest.approx(sum(generous) / 40)
    assert sensitivity["accuracy"][strict_name]["value"] == pytest.approx(sum(strict) / 40)
    (pair,) = sensitivity["pairs"]
    assert pair["agree"] == sum(a == b for a, b in zip(generous, strict))
    assert pair["kappa"]["value"] == pytest.approx(_kappa_by_hand(generous, strict), abs=1e-12)
    assert pair["difference"]["difference"] == pytest.approx((sum(generous) - sum(strict)) / 40)
    disagreeing = sorted(r["id"] for r, a, b in zip(records, generous, strict) if a != b)
    assert sorted(d["id"] for d in sensitivity["disagreements"]) == disagreeing
    assert all(r["question"].startswith("What") for r in records if r["id"] in disagreeing)
    # the sample's 4 conversations ask the same questions, so each judge's accuracy and their
    # kappa are the same in every cluster: nothing to resample, no interval, and the reason
    for metric in (*sensitivity["accuracy"].values(), pair["kappa"]):
        assert metric["ci"] == [None, None] and metric["no_interval"] == "no variation in 4 clusters", metric
    # an item passes when both judges say so; j is the panel's mean
    assert all(r["correct"] == (a and b) for r, a, b in zip(records, generous, strict))
    assert "j is the panel's mean" in run["note"] and "grades with the longmemeval prompt" in run["note"]
    # the terminal's block
    out = result.stdout.str()
    assert "judge sensitivity (context), 40 records judged by every judge:" in out
    assert re.search(rf"gpt-4o-mini@mem0-j\s+accuracy {sum(generous) / 40:.3f} \[", out)
    assert f"the judges disagree on {len(disagreeing)} items: {disagreeing[0]}" in out
    # the page: a judge sensitivity table, and the explorer's filter
    page = html.read_text(encoding="utf-8")
    assert "<h3>Judge sensitivity</h3>" in page and f"The judges disagree on {len(disagreeing)} of 40 records" in page
    _explorer_shows_the_disagreements(tmp_path, page, disagreeing)


#: ticks the explorer's "judges disagree" filter, reads the rows, opens the first
DISAGREE = """
window.addEventListener('load', () => {
  const found = {};
  const box = document.getElementById('f-disagree');
  found.offered = !document.getElementById('f-disagree-label').hidden;
  box.checked = true;
  box.dispatchEvent(new Event('input'));
  found.rows = [...document.querySelectorAll('#list tbody tr')].map(row => row.cells[0].querySelector('a').textContent);
  found.count = document.getElementById('count').textContent;
  document.querySelector('#list tbody a.item-link').click();
  found.fields = [...document.querySelectorAll('#detail .field')].map(f => f.textContent);
  const out = document.createElement('pre');
  out.id = 'memeval-check';
  out.textContent = JSON.stringify(found);
  document.body.append(out);
});
"""


def _explorer_shows_the_disagreements(tmp_path: Path, page: str, disagreeing: list[str]) -> None:
    from test_html_report import CHROMIUM, measured, with_check

    if CHROMIUM is None:
        pytest.skip("no headless browser on PATH: apt-get install chromium to run the rendering check")
    found = measured(tmp_path, with_check(page, check=DISAGREE))
    assert found["offered"] and sorted(found["rows"]) == disagreeing
    assert found["count"] == f"{len(disagreeing)} of 40 items"
    judges = next(f for f in found["fields"] if f.startswith("judges: "))
    assert judges == "judges: gpt-4o-mini@mem0-j \u2713 \u00b7 gpt-4o-2024-08-06@longmemeval \u2717"


@pytest.mark.slow
def test_default_judges_ask_each_protocol_s_model_and_a_changed_model_is_noted(
    suite_pytester: pytest.Pytester,
) -> None:
    """On longmemeval, `default` is its official judge (gpt-4o-2024-08-06, max_tokens 10) and
    `default@mem0-j` Mem0's J with gpt-4o-mini; a judge of another model is named in the note."""
    with LLMServer(two_minded_judge) as server:
        _, report = longmemeval_report(
            suite_pytester,
            "longmemeval",
            "--memsystem=context",
            "--memeval-judge=default,default@mem0-j,openai:gpt-4o@longmemeval",
            f"--memeval-base-url={server.base_url}",
        )
        requests = server.requests
    (run,) = report["runs"]
    assert run["key"]["judge"] == "gpt-4o-2024-08-06@longmemeval,gpt-4o-mini@mem0-j,gpt-4o@longmemeval"
    asked = {(r.model, r.messages[0]["content"].startswith("Your task"), r.body["max_tokens"]) for r in requests}
    assert asked == {("gpt-4o-2024-08-06", False, 10), ("gpt-4o-mini", True, 1024), ("gpt-4o", False, 10)}
    assert len(requests) == 3 * run["n_items"]
    assert (
        "judge gpt-4o@longmemeval is not the protocol's model: longmemeval judges with gpt-4o-2024-08-06" in run["note"]
    )
    assert "judge gpt-4o-mini@mem0-j grades with the mem0-j prompt, not the suite's own (longmemeval)" in run["note"]
    sensitivity = run["judge_sensitivity"]
    assert len(sensitivity["pairs"]) == 3  # every pair of the three judges
    same = next(
        p for p in sensitivity["pairs"] if {p["a"], p["b"]} == {"gpt-4o-2024-08-06@longmemeval", "gpt-4o@longmemeval"}
    )
    assert same["agree"] == same["n"] == run["n_scored"]  # one prompt, one script: the same verdicts
    assert all(r["detail"]["scorer"] == "llm" for r in report["records"])  # not the official judge alone
