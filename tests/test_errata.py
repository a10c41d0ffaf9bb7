"""--memeval-errata: corrections to a benchmark's golds, from the plugin's own format or
dial481/locomo-audit's errors.json as shipped (files generated here in its exact format:
the audit is CC BY-NC and not in this repository). The errata change exactly the items they
name: an excluded one leaves the corrected metrics, a corrected gold is judged again, a
WRONG_CITATION leaves its item as it is, and every other record counts as published."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from harness import make_settings
from test_locomo_suite import _suite as locomo_suite

from pytest_memeval.analysis.errata import with_errata
from pytest_memeval.analysis.session_report import SessionReport
from pytest_memeval.config.errata import AUDIT_SOURCE, read_errata
from pytest_memeval.errors import ConfigError
from pytest_memeval.memory.context import ContextMemory
from pytest_memeval.rendering.terminal import errata_lines
from pytest_memeval.results.records import Record, RunKey
from pytest_memeval.running.evaluation import Components, evaluate_items


def _audit_entry(question_id: str, error_type: str, correct: str, golden: str = "gold") -> dict[str, Any]:
    """One element of locomo-audit's errors.json: its nine keys, in its order."""
    return {
        "question_id": question_id,
        "question": "When did Ana adopt her cat?",
        "golden_answer": golden,
        "category": 2,
        "error_type": error_type,
        "cited_evidence": ["D2:4"],
        "correct_evidence": ["D2:4"],
        "reasoning": "generated for this test",
        "correct_answer": correct,
    }


def _write_audit(path: Path, entries: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps(entries, indent=2))  # as shipped: indent 2, ASCII, no final newline
    return path


@pytest.fixture(scope="module")
def locomo_run() -> tuple[Any, SessionReport]:
    """locomo's generated sample on `context`, read by the offline reader, judged by F1."""
    suite = locomo_suite()
    parts = Components.offline(suite, ContextMemory(), "context", suite.reader())
    key = RunKey("locomo", "context")
    ids = [entry.id for entry in suite.index()][:20]  # two conversations
    records = list(evaluate_items(parts, ids, key))
    settings = make_settings("context", suites=("locomo",), bootstrap=50)
    return suite, SessionReport.build(settings, lambda _: suite, {key: records})


def test_locomo_audit_ids_map_onto_the_suite_s_items_by_position() -> None:
    suite = locomo_suite()
    conversations = list(suite.catalog.conversations)
    # the audit counts the qa list from 0, category-5 questions included (q008, q009 here)
    assert suite.erratum_item("locomo_0_qa3") == f"{conversations[0]}-q003"
    assert suite.erratum_item("locomo_2_qa10") == f"{conversations[2]}-q010"
    assert suite.erratum_item("locomo_9_qa3") == "locomo_9_qa3"  # no tenth conversation: no item of this run
    assert suite.erratum_item(f"{conversations[1]}-q000") == f"{conversations[1]}-q000"  # its own ids as they are


def test_errata_change_exactly_the_named_items(tmp_path: Path, locomo_run: tuple[Any, SessionReport]) -> None:
    suite, session = locomo_run
    conversations = list(suite.catalog.conversations)
    published = {r.id: r for r in session.report.records}
    wrong = next(r for r in session.report.records if r.correct is False and r.id.startswith(conversations[0]))
    index = int(wrong.id.rsplit("-q", 1)[1])
    right = next(r for r in session.report.records if r.correct is True and r.id.startswith(conversations[1]))
    path = _write_audit(
        tmp_path / "errors.json",
        [
            # the gold the audit gives is the reader's own answer: the item turns right
            _audit_entry(f"locomo_0_qa{index}", "TEMPORAL_ERROR", wrong.answer or ""),
            _audit_entry(f"locomo_1_qa{int(right.id.rsplit('-q', 1)[1])}", "AMBIGUOUS", "debatable"),
            _audit_entry("locomo_2_qa0", "WRONG_CITATION", "gold (answer is correct, citation is wrong)"),
            _audit_entry("locomo_9_qa0", "HALLUCINATION", "not in this run"),
        ],
    )
    errata = read_errata(str(path))
    assert errata is not None and errata.kept == 1 and len(errata.entries) == 3
    corrected = with_errata(session, errata, lambda _: suite, lambda s: s.judge())
    (run,) = corrected.report.runs
    assert run.errata is not None
    changes = {c.id: c for c in run.errata.changes}
    assert set(changes) == {wrong.id, right.id}  # nothing else changed
    assert changes[right.id].excluded and changes[right.id].source == AUDIT_SOURCE
    assert changes[wrong.id].published is False and changes[wrong.id].corrected is True
    assert changes[wrong.id].reason.startswith("TEMPORAL_ERROR: ")
    # the corrected F1, by hand: the excluded record out, the corrected one's answer is its gold
    f1 = {i: r.detail["f1"] for i, r in published.items() if i != right.id} | {wrong.id: 1.0}
    scale = run.metrics["f1"].value / (sum(r.detail["f1"] for r in published.values()) / len(published))
    assert run.errata.n_scored == len(published) - 1
    assert run.errata.metrics["f1"].value == pytest.approx(scale * sum(f1.values()) / len(f1))
    lines = errata_lines(run, "context", width=120)
    assert lines[0].startswith("  errata (context): 2 records changed (1 excluded, 1 judged against a corrected gold")
    assert any(re.match(r"\s+f1\s+\S+ \[.*\] published, \S+ \[.*\] corrected", line) for line in lines)
    # the JSON report holds them beside the published metrics
    again = corrected.report.to_json()["runs"][0]["errata"]
    assert {c["id"] for c in again["changes"]} == {wrong.id, right.id}


def test_the_plugin_s_own_format(tmp_path: Path, locomo_run: tuple[Any, SessionReport]) -> None:
    suite, session = locomo_run
    first, second = (r.id for r in session.report.records[:2])
    path = tmp_path / "errata.json"
    path.write_text(
        json.dumps(
            {
                "format": "memeval-errata/1",
                "source": "a test",
                "errata": [
                    {"suite": "locomo", "item": first, "exclude": True, "reason": "no answer in the transcript"},
                    {"suite": "locomo", "item": second, "gold": "nothing anyone says", "reason": "r", "source": "s2"},
                ],
            }
        )
    )
    errata = read_errata(str(path))
    assert errata is not None
    (run,) = with_errata(session, errata, lambda _: suite, lambda s: s.judge()).report.runs
    assert run.errata is not None
    assert [(c.id, c.excluded, c.source) for c in run.errata.changes] == [
        (first, True, "a test"),
        (second, False, "s2"),
    ]
    assert errata.digest("locomo") and errata.digest("longmemeval") == ""


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"format": "other"}, "is neither memeval-errata/1"),
        ({"format": "memeval-errata/1", "source": "s", "errata": [{"suite": "locomo", "item": "x"}]}, "says neither"),
        (
            {"format": "memeval-errata/1", "source": "s", "errata": [{"suite": "l", "item": "x", "exclude": True}] * 2},
            "item x of l is corrected twice",
        ),
        ([_audit_entry("locomo_0_qa1", "TYPO", "x")], "unknown error_type 'TYPO'"),
        ([{"question": "no id"}], "entry 0: not a locomo-audit error"),
    ],
)
def test_a_bad_errata_file_is_one_line(tmp_path: Path, document: Any, message: str) -> None:
    path = tmp_path / "errata.json"
    path.write_text(json.dumps(document))
    with pytest.raises(ConfigError, match=re.escape(message)) as caught:
        read_errata(str(path))
    assert "\n" not in str(caught.value)


def test_records_keep_their_ids_and_nothing_is_dropped(locomo_run: tuple[Any, SessionReport]) -> None:
    """The published run is untouched by its errata: the same records, the same metrics."""
    _, session = locomo_run
    records: tuple[Record, ...] = session.report.records
    assert len(records) == 20 and all(r.is_scored for r in records)
