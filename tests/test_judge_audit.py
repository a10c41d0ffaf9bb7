"""--memeval-judge-audit: answers made from the gold (wrong ones on topic, evasive, listing
everything; correct paraphrases), and each judge's false-accept and false-reject rates with
Wilson intervals, in the terminal, the JSON report and the HTML page. Scripted judges: a
lenient one (accepts an answer that mentions any word of the gold, or none to reject) must
show a high false-accept rate, a strict one (accepts the gold alone, as written) a high
false-reject rate."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from test_errata import locomo_run  # noqa: F401  (the module's run of locomo's sample)
from test_locomo_suite import _suite as locomo_suite

from pytest_memeval.analysis.judge_audit import (
    CORRECT,
    WRONG,
    context_golds,
    judge_audit,
    probes,
    with_judge_audit,
)
from pytest_memeval.analysis.session_report import SessionReport
from pytest_memeval.rendering.html import render_html
from pytest_memeval.rendering.terminal import suite_lines
from pytest_memeval.results.records import Report
from pytest_memeval.types import Answer, Item, Trace, Verdict


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


class ScriptedPanel:
    """Two judges in one panel, as `JudgePanel.score` writes their verdicts."""

    def score(self, item: Item, answer: Answer, trace: Trace) -> Verdict:
        gold, said = str(item.gold), answer.label or ""
        lenient = not _words(said) & {"not", "sure"} or bool(_words(said) & _words(gold))
        strict = said == gold
        judges = {"lenient": {"correct": lenient}, "strict": {"correct": strict}}
        return Verdict(lenient and strict, detail={"judges": judges})


def test_the_answers_are_made_from_the_gold_deterministically() -> None:
    suite = locomo_suite()
    item = suite.item(suite.index()[0].id)
    others = context_golds(suite, item)
    made = probes(item, others)
    assert made == probes(item, others)  # the same answers every time
    kinds = [p.kind for p in made]
    assert {"other", "negation", "evasive", "everything", "paraphrase"} <= set(kinds)
    assert set(kinds) <= set(WRONG + CORRECT)
    gold = str(item.gold)
    text = {p.kind: p.text for p in made}
    assert text["other"] in others and text["other"] != gold  # another gold of the same conversation
    assert gold in text["everything"] and text["other"] in text["everything"]
    assert gold in text["paraphrase"] and gold not in text["evasive"]


def test_a_date_or_a_count_gets_a_wrong_value() -> None:
    suite = locomo_suite()
    numbered = next(item for item in (suite.item(e.id) for e in suite.index()) if re.search(r"\d", str(item.gold)))
    (wrong_value,) = [p for p in probes(numbered, []) if p.kind == "wrong_value"]
    assert wrong_value.text != str(numbered.gold)
    assert re.sub(r"\d", "", wrong_value.text) == re.sub(r"\d", "", str(numbered.gold))


def test_a_lenient_judge_accepts_wrong_answers_and_a_strict_one_rejects_right_ones() -> None:
    suite = locomo_suite()
    items = [suite.item(e.id) for e in suite.index()[:5]]
    audit = judge_audit(suite, ScriptedPanel(), "lenient,strict", items)
    lenient, strict = audit.judges
    assert (lenient.judge, strict.judge) == ("lenient", "strict")
    assert audit.n_items == 5 and audit.unjudged == 0
    assert (
        lenient.false_accept.n
        == strict.false_accept.n
        == sum(p.wrong for i in items for p in probes(i, context_golds(suite, i)))
    )
    assert lenient.false_accept.value is not None and lenient.false_accept.value > 0.5
    assert lenient.false_reject.value == 0.0
    assert strict.false_accept.value == 0.0
    assert strict.false_reject.value is not None and strict.false_reject.value > 0.5
    assert lenient.by_kind["negation"].value == 1.0  # "No, it was not X" shares the gold's words
    for metric in (lenient.false_accept, lenient.false_reject, strict.false_accept, strict.false_reject):
        low, high = metric.ci
        assert low is not None and high is not None and low <= metric.value <= high  # Wilson


def test_the_audit_is_in_the_terminal_the_json_and_the_page(locomo_run: tuple[Any, SessionReport]) -> None:
    suite, session = locomo_run
    audited = with_judge_audit(
        SessionReport(session.settings, session.report),
        3,
        lambda _: suite,
        lambda _: ScriptedPanel(),
        lambda _: "panel",
    )
    (audit,) = audited.report.judge_audits
    assert audit.suite == "locomo" and audit.n_items == 3
    lines = suite_lines(audited.report, "locomo", width=160)
    head = next(i for i, line in enumerate(lines) if line.startswith("  judge audit (locomo): "))
    assert re.match(r"\s+lenient\s+false accepts \S+ \[.*\] of \d+ wrong answers, false rejects", lines[head + 1])
    again = Report.from_json(json.loads(json.dumps(audited.report.to_json())))
    assert again.judge_audits == audited.report.judge_audits
    page = render_html(audited.report)
    assert "<h3>Judge audit</h3>" in page and "false accepts [95% CI]" in page


def test_a_deterministic_judge_is_not_audited(locomo_run: tuple[Any, SessionReport]) -> None:
    suite, session = locomo_run
    plain = with_judge_audit(
        SessionReport(session.settings, session.report),
        3,
        lambda _: suite,
        lambda s: s.judge(),
        lambda _: "deterministic",
    )
    assert plain.report.judge_audits == ()


@pytest.mark.slow
def test_a_run_with_an_llm_judge_prints_and_writes_its_audit(suite_pytester: pytest.Pytester) -> None:
    """Through the plugin: the audit is graded on the controller after the run's own judges
    are closed, and lands in the terminal, the JSON report and the page."""
    from llm_server import LLMServer
    from test_judge_sensitivity import two_minded_judge
    from test_locomo_suite import _report as locomo_report

    html = suite_pytester.path / "report.html"
    with LLMServer(two_minded_judge) as server:
        result, report = locomo_report(
            suite_pytester,
            "audit",
            "--memsystem=context",
            "-k",
            "sample-2024-0-q000 or sample-2024-0-q001",
            "--memeval-judge=openai:gpt-4o-mini@mem0-j",
            "--memeval-judge-audit=2",
            f"--memeval-base-url={server.base_url}",
            f"--memeval-html={html}",
        )
    (audit,) = report["judge_audits"]
    assert audit["suite"] == "locomo" and audit["n_items"] == 2 and audit["unjudged"] == 0
    (row,) = audit["judges"]
    assert (
        row["judge"] == "gpt-4o-mini@mem0-j" and row["false_accept"]["n"] + row["false_reject"]["n"] == audit["probes"]
    )
    assert "judge audit (locomo): " in result.stdout.str()
    assert "<h3>Judge audit</h3>" in html.read_text(encoding="utf-8")
