"""The knowme rubric judge: all seven tasks graded as the paper does (a 0-5 rubric per task
family, x20), with the authors' rubric file read at run time when the user's release holds
it (here a file of our own in its format: the release has no licence) or our paraphrase
otherwise; the deterministic verdict kept as the diagnostic; judge failures as errors.
Against the loopback OpenAI-compatible server of tests/llm_server.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, Request
from pytest_memeval.suites.knowme.judge import KnowmeJudge, KnowmeLLMJudge
from pytest_memeval.suites.knowme.rubric import (
    ABSTENTION_ANSWER,
    ABSTENTION_REFERENCE,
    OUR_SYSTEM,
    find_rubric_file,
    our_rubric,
    release_rubric,
)
from pytest_memeval.suites.knowme.suite import KnowmeSuite

from pytest_memeval.errors import ConfigError
from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.types import Answer, Trace, Verdict

DATA = Path(__file__).parent / "data" / "knowme"
SYSTEM_LINE = "TEST-SYSTEM: you grade answers strictly."
#: a rubric file in the release's format (`# type` sections, two tasks joined by 、 or a comma)
RUBRIC = """# type Logical Event Ordering

RUBRIC-ORDERING. Compare the order. Costs $5 to ask.
- Question: {{question}}
- Reference: {{reference_answer}}
- Model: {{model_answer}}
Output { "score": <Integer 0-5>, "reasoning": "..." }

# type Mnestic Trigger Analysis、Temporal Reasoning

RUBRIC-VALUE. Question: {{question}} Reference: {{reference_answer}} Model: {{model_answer}}

# type Expert-Annotated Psychoanalysis, Mind-Body Interaction

RUBRIC-INSIGHT. Question: {{question}} Reference: {{reference_answer}} Model: {{model_answer}}

# type Adversarial Abstention、Information Extraction

RUBRIC-FACTS. Question: {{question}} Reference: {{reference_answer}} Model: {{model_answer}}
"""
SCRIPT = f'messages=[{{"role": "system", "content": "{SYSTEM_LINE}"}}, {{"role": "user", "content": prompt}}]\n'


def release(tmp_path: Path, rubric: str = RUBRIC, script: bool = True) -> Path:
    """A checkout in the release's layout: our test datasets and an evaluate/ folder."""
    root = tmp_path / "KnowMeBench"
    shutil.copytree(DATA, root / "KnowmeBench")
    (root / "evaluate").mkdir()
    (root / "evaluate" / "evaluate prompt.md").write_text(rubric, encoding="utf-8")
    if script:
        (root / "evaluate" / "run_eval.py").write_text(SCRIPT)
    return root


# --- the rubric file -----------------------------------------------------------------------


def test_the_release_rubric_file_becomes_one_prompt_per_family(tmp_path: Path) -> None:
    path = release(tmp_path) / "evaluate" / "evaluate prompt.md"
    rubric = release_rubric(path)
    assert rubric.family_of == {
        "T4": "T4",
        "T3": "T3+T5",
        "T5": "T3+T5",
        "T6": "T6+T7",
        "T7": "T6+T7",
        "T1": "T1+T2",
        "T2": "T1+T2",
    }
    template = rubric.prompts["T4"].template
    assert template.name == "knowme_release_t4" and len(template.version) == 12
    (system, text), (user, body) = template.messages
    assert (system, text, user) == ("system", SYSTEM_LINE, "user")
    assert "Costs $$5" in body and "- Question: $question" in body and "- Model: $answer" in body
    assert (
        rubric.source
        == f"the authors' rubric, read at run time from {path} (system line from {path.parent / 'run_eval.py'})"
    )
    assert find_rubric_file(path.parents[1]) == find_rubric_file(path.parents[1] / "KnowmeBench" / "dataset1") == path
    assert find_rubric_file(DATA) is None and find_rubric_file(None) is None
    # another wording is another template version, so cached verdicts never mix
    path.write_text(RUBRIC.replace("Compare the order", "Compare the sequence"), encoding="utf-8")
    assert release_rubric(path).prompts["T4"].template.version != template.version


def test_without_the_release_script_the_system_line_is_ours(tmp_path: Path) -> None:
    path = release(tmp_path, script=False) / "evaluate" / "evaluate prompt.md"
    rubric = release_rubric(path)
    assert rubric.prompts["T1+T2"].template.messages[0] == ("system", OUR_SYSTEM)
    assert rubric.source.endswith("(system line ours)")


@pytest.mark.parametrize(
    "rubric, message",
    [
        (RUBRIC.split("# type Adversarial")[0], "no '# type' rubric for T1, T2"),
        (RUBRIC.replace("- Model: {{model_answer}}\n", ""), "has no {{model_answer}} placeholder"),
        (
            RUBRIC.replace("# type Logical Event Ordering", "# type Weather Forecasting"),
            "cannot tell which task 'Weather Forecasting'",
        ),
        (
            RUBRIC + "\n# type Temporal Reasoning\n{{question}}{{reference_answer}}{{model_answer}}",
            "a second rubric for 'Temporal Reasoning'",
        ),
    ],
)
def test_a_rubric_file_that_cannot_grade_every_task_is_a_one_line_config_error(
    tmp_path: Path, rubric: str, message: str
) -> None:
    path = release(tmp_path, rubric) / "evaluate" / "evaluate prompt.md"
    with pytest.raises(ConfigError) as info:
        release_rubric(path)
    assert message in str(info.value) and str(path) in str(info.value) and "\n" not in str(info.value)


def test_our_rubric_covers_the_seven_tasks_in_the_releases_families() -> None:
    rubric = our_rubric()
    assert set(rubric.family_of) == {"T1", "T2", "T3", "T4", "T5", "T6", "T7"}
    assert {p.template.name for p in rubric.prompts.values()} == {
        "knowme_judge_facts",
        "knowme_judge_value",
        "knowme_judge_ordering",
        "knowme_judge_insight",
    }
    assert rubric.source.startswith("ours: a paraphrase of the paper's rubrics (knowme_judge_facts@")


# --- the judge on single items -------------------------------------------------------------


class FixedPanel:
    """A stand-in panel that gives one rubric score and remembers what it was asked."""

    def __init__(self, score: float) -> None:
        self.score_value = score
        self.asked: list[tuple[str, list[dict[str, str]]]] = []
        self.prompt: Any = None

    def score(self, item: Any, answer: Answer, *, label: str | None = None) -> Verdict:
        self.asked.append((label or "", self.prompt.messages(item, answer)))
        return Verdict(correct=None, score=self.score_value, detail={"judges": {"j": {"score": self.score_value}}})

    def close(self) -> None:
        pass


def _judge(score: float) -> tuple[KnowmeLLMJudge, dict[str, FixedPanel]]:
    rubric = our_rubric()
    panels = {}
    for family, prompt in rubric.prompts.items():
        panels[family] = FixedPanel(score)
        panels[family].prompt = prompt
    return KnowmeLLMJudge(KnowmeJudge(), rubric, panels), panels  # type: ignore[arg-type]


def test_every_task_goes_to_its_family_and_keeps_its_diagnostic(tmp_path: Path) -> None:
    suite = KnowmeSuite(
        SuiteOptions(size="smoke", split=None, seeds=None, k=10, data_dir=DATA, cache_dir=tmp_path, bootstrap=50)
    )
    judge, panels = _judge(4)
    t4 = suite.item("dataset1-T4-1")
    verdict = judge.score(t4, Answer("Slipping on the wet planks; the ladder; the car"), Trace())
    assert verdict.score == 80 and verdict.correct and verdict.detail["scorer"] == "rubric_llm"
    assert verdict.detail["family"] == "T4" and verdict.detail["rubric_template"] == "knowme_judge_ordering@1"
    assert verdict.detail["diagnostic"]["scorer"] == "ranking_text" and verdict.detail["diagnostic"]["approximate"]
    assert verdict.detail["diagnostic"]["score"] == 100
    ((_, (system, user)),) = panels["T4"].asked
    assert "Reference answer: 1. Slipping on the wet planks (Not a scratch.)\n2. The ladder slipping" in user["content"]
    flagged = judge.score(suite.item("dataset1-T3-1"), Answer("40 minutes"), Trace())
    assert flagged.detail["family"] == "T3+T5" and flagged.detail["data_flags"] == [
        "evidence ids not in the stream: 99"
    ]


def test_a_declined_answer_is_the_rubrics_0_without_a_call_except_on_t2(tmp_path: Path) -> None:
    suite = KnowmeSuite(
        SuiteOptions(size="smoke", split=None, seeds=None, k=10, data_dir=None, cache_dir=tmp_path, bootstrap=50)
    )
    judge, panels = _judge(5)
    abstain = Answer("ABSTAIN", abstained=True)
    t1 = suite.item("s2026-life00-T1-00")
    verdict = judge.score(t1, abstain, Trace())
    assert (verdict.score, verdict.correct, verdict.detail["not_called"]) == (0, False, "no answer: the rubric's 0")
    assert panels["T1+T2"].asked == []
    t2 = suite.item("s2026-life00-T2-00")
    assert judge.score(t2, abstain, Trace()).score == 100
    ((_, (_, user)),) = panels["T1+T2"].asked
    assert (
        f"Reference answer: {ABSTENTION_REFERENCE}" in user["content"]
        and f"Answer to grade: {ABSTENTION_ANSWER}" in user["content"]
    )


# --- through pytest, against the loopback server -----------------------------------------


def _run(pytester: pytest.Pytester, base_url: str, *args: str) -> tuple[pytest.RunResult, dict]:
    report = pytester.path / "report.json"
    report.unlink(missing_ok=True)
    result = pytester.runpytest_subprocess(
        "--memeval-suite=knowme",
        f"--memeval-base-url={base_url}",
        "--memeval-llm-cache=off",
        "--memeval-judge=openai:judge-a",
        f"--memeval-report={report}",
        "-p",
        "no:cacheprovider",
        "--memeval-embedder=hashing",
        *args,
    )
    return result, json.loads(report.read_text()) if report.exists() else {}


def ours_script(request: Request) -> str:
    text = request.text
    if "about the inner life" in text:
        return '{"score": 4, "reason": "right inner state, literal"}'
    if "factual question" in text:
        return (
            '{"score": 5, "reason": "declined as the reference does"}'
            if ABSTENTION_ANSWER in text
            else '{"score": 3, "reason": "partial"}'
        )
    raise AssertionError(text[:300])


@pytest.mark.slow
def test_generated_lives_graded_by_our_rubric_under_the_papers_names(suite_pytester: pytest.Pytester) -> None:
    with LLMServer(ours_script) as server:
        result, report = _run(
            suite_pytester,
            server.base_url,
            "--memsystem=context,none",
            "-m",
            "T1_extraction or T2_abstention or T6_mind_body",
        )
        requests = server.requests
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stdout.str()[-2000:]
    runs = {run["key"]["memsystem"]: run for run in report["runs"]}
    context, none = runs["context"], runs["none"]
    assert context["n_items"] == none["n_items"] == 27 and context["n_errors"] == none["n_errors"] == 0
    records = report["records"]
    assert all(r["detail"]["scorer"] == "rubric_llm" and not r["detail"]["approximate"] for r in records)
    called = [r for r in records if "not_called" not in r["detail"]]
    assert len(requests) == len(called) == 27 + 9  # context answers all three tasks; none is asked only on T2
    value = lambda run, name: run["metrics"][name]["value"]  # noqa: E731
    assert (
        value(context, "t1_extraction") == 60
        and value(context, "t2_abstention") == 100
        and value(context, "t6_mind_body") == 80
    )
    assert value(context, "t1_entity_f1") == 100 and "t6_coverage_approx" in context["metrics"]
    assert (
        value(none, "t1_extraction") == 0 and value(none, "t2_abstention") == 100 and value(none, "t1_t2_balance") == 0
    )
    assert value(context, "level_i") == 80 and value(context, "level_iii") == 80
    assert context["extra"]["rubric"] == our_rubric().source and "; rubric: ours: a paraphrase" in context["note"]
    assert context["extra"]["rubric_templates"] == ["knowme_judge_facts@1", "knowme_judge_insight@1"]
    comparison = report["comparisons"][0]["metrics"]
    assert comparison["t1_extraction"]["difference"] == 60 and "t1_entity_f1" in comparison
    assert all("s2026-life" not in r.text and "T1" not in r.text for r in requests)


def authors_script(request: Request) -> str:
    system, user = request.messages
    assert system["content"] == SYSTEM_LINE and user["content"].startswith("RUBRIC-"), request.text[:300]
    return '{"score": 4, "reasoning": "Step 1: compared. Step 2: fine."}'


@pytest.mark.slow
def test_the_release_is_graded_with_the_rubric_read_from_the_users_copy(
    suite_pytester: pytest.Pytester, tmp_path: Path
) -> None:
    root = release(tmp_path)
    with LLMServer(authors_script) as server:
        result, report = _run(suite_pytester, server.base_url, "--memsystem=context", f"--memeval-data={root}")
        requests = server.requests
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stdout.str()[-2000:]
    run = report["runs"][0]
    assert run["n_items"] == 17 and run["n_errors"] == 0
    records = {r["id"]: r for r in report["records"]}
    called = [r for r in records.values() if "not_called" not in r["detail"]]
    assert len(requests) == len(called) and all(r["score"] == 80 for r in called)
    assert {"t1_extraction", "t4_ordering", "t7_principle", "level_ii", "t1_entity_f1_approx"} <= set(run["metrics"])
    path = root / "evaluate" / "evaluate prompt.md"
    assert (
        run["extra"]["rubric"]
        == f"the authors' rubric, read at run time from {path} (system line from {path.parent / 'run_eval.py'})"
    )
    assert all(t.startswith("knowme_release_") for t in run["extra"]["rubric_templates"])
    assert f"read at run time from {path}" in run["note"]
    ordering = next(r.messages[1]["content"] for r in requests if "Order the gifts" in r.messages[1]["content"])
    assert ordering.startswith("RUBRIC-ORDERING. Compare the order. Costs $5 to ask.\n- Question: Order the gifts")
    assert "- Reference: 1. The jar of honey (ID 1) - bought at the market.\n2. The red scarf" in ordering
    assert "- Model: Lena gives me a jar of honey." in ordering
    facts = [r.messages[1]["content"] for r in requests if r.messages[1]["content"].startswith("RUBRIC-FACTS")]
    assert any("Reference: unable to answer" in text for text in facts)
    assert records["dataset1-T4-1"]["detail"]["family"] == "T4"
    assert records["dataset1-T4-1"]["detail"]["diagnostic"]["scorer"] == "ranking_text"


@pytest.mark.slow
def test_a_rubric_file_named_by_the_suite_option_grades_generated_lives(
    suite_pytester: pytest.Pytester, tmp_path: Path
) -> None:
    path = release(tmp_path) / "evaluate" / "evaluate prompt.md"
    with LLMServer(authors_script) as server:
        result, report = _run(
            suite_pytester,
            server.base_url,
            "--memsystem=context",
            "-k",
            "life00-T4",
            f"--memeval-suite-option=knowme.rubric={path}",
        )
        requests = server.requests
    run = report["runs"][0]
    assert run["n_items"] == 3 == len(requests) and run["metrics"]["t4_ordering"]["value"] == 80
    assert all(r.messages[1]["content"].startswith("RUBRIC-ORDERING") for r in requests)
    assert run["extra"]["rubric"].startswith(f"the authors' rubric, read at run time from {path}")


@pytest.mark.slow
@pytest.mark.parametrize("case", ["missing file", "no T7 rubric"])
def test_a_bad_rubric_file_is_a_usage_error(suite_pytester: pytest.Pytester, tmp_path: Path, case: str) -> None:
    if case == "missing file":
        args, expected = [f"--memeval-suite-option=knowme.rubric={tmp_path / 'nothing.md'}"], "no such file"
    else:
        root = release(tmp_path, RUBRIC.replace("Expert-Annotated Psychoanalysis, ", ""))
        args, expected = [f"--memeval-data={root}"], "no '# type' rubric for T7"
    result = suite_pytester.runpytest_subprocess(
        "--memsystem=context", "--memeval-suite=knowme", "--collect-only", *args
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.errlines if line.strip()]
    assert len(errors) == 1 and expected in errors[0], errors


@pytest.mark.slow
def test_invalid_judge_output_is_an_error_not_a_score(suite_pytester: pytest.Pytester, tmp_path: Path) -> None:
    root = release(tmp_path)
    # our rubric's key ("reason") is not the authors' ("reasoning"): invalid output
    with LLMServer('{"score": 4, "reason": "fine"}') as server:
        result, report = _run(
            suite_pytester, server.base_url, "--memsystem=context", f"--memeval-data={root}", "-k", "T6"
        )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    run = report["runs"][0]
    assert run["n_errors"] == run["n_items"] == 2 and run["metrics"] == {}
    assert all("judge" in r["reason"] and "invalid output" in r["reason"] for r in report["records"])
