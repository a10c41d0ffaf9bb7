"""The released KnowMe-Bench layout: a small hand-written fixture in that shape
(tests/data/knowme), its loader, and its errors, in process and through pytest."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_memeval.benchmarks.base import SuiteOptions
from pytest_memeval.benchmarks.knowme.released import dataset_dirs, load_dataset, task_of
from pytest_memeval.benchmarks.knowme.suite import KnowmeSuite
from pytest_memeval.errors import DataError

DATA = Path(__file__).parent / "data" / "knowme"


@pytest.mark.parametrize("name, task", [
    ("Information Extraction_questions.json", "T1"), ("Context-Aware Extraction_answers.json", "T1"),
    ("Adversarial Abstention_questions.json", "T2"), ("Temporal Reasoning_answers.json", "T3"),
    ("Logical Event Ordering_questions.json", "T4"), ("Mnestic Trigger Analysis_questions.json", "T5"),
    ("Mind-Body Interaction_questions.json", "T6"), ("Expert-Annotated Psychoanalysis_questions.json", "T7"),
    ("T5_questions.json", "T5"), ("task_2_questions.json", "T2"), ("Weather_questions.json", None),
])
def test_the_task_of_a_file_comes_from_its_name(name: str, task: str | None) -> None:
    assert task_of(Path(name)) == task


def test_both_field_spellings_load_and_flashbacks_are_found() -> None:
    assert [d.name for d in dataset_dirs(DATA)] == ["dataset1", "dataset2"]
    assert dataset_dirs(DATA / "dataset2") == [DATA / "dataset2"]
    first, second = load_dataset(DATA / "dataset1"), load_dataset(DATA / "dataset2")
    assert sorted(first.questions) == ["T1", "T2", "T3", "T4", "T5", "T6", "T7"]
    assert [u.layer for u in first.units[2:6]] == [0, 1, 1, 0]  # dated 1979 inside a 1990 day
    assert first.sessions[0] == (1, 2, 3, 4, 5, 6, 7)
    assert second.unit(1).inner_thought == "She remembers everything." and second.unit(1).environment == "I hear a busker."
    gap = first.questions["T5"][0]
    assert gap.flashback and gap.evidence == (3, 4)
    assert first.questions["T3"][0].gold == {"seconds": 2400}
    assert first.questions["T4"][0].gold["events"] == ["Slipping on the wet planks", "The ladder slipping", "The car clipping my bicycle"]


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "release"
    shutil.copytree(DATA, root)
    return root


def _break(root: Path, case: str) -> Path:
    d1 = root / "dataset1"
    if case == "missing answers":
        (d1 / "answer" / "Temporal Reasoning_answers.json").unlink()
        return d1 / "answer" / "Temporal Reasoning_answers.json"
    if case == "bad json":
        (d1 / "stream.json").write_text("[{not json")
        return d1 / "stream.json"
    if case == "unknown evidence":
        path = d1 / "answer" / "Mind-Body Interaction_answers.json"
        path.write_text(json.dumps([{"id": 1, "answer": "x", "evidence": [999]}]))
        return path
    if case == "unanswered question":
        path = d1 / "answer" / "Information Extraction_answers.json"
        path.write_text(json.dumps([{"id": 2, "answer": "x", "evidence": []}]))
        return path
    if case == "unknown task":
        path = d1 / "question" / "Weather_questions.json"
        path.write_text("[]")
        return path
    if case == "two streams":  # neither is named as the stream
        (d1 / "stream.json").rename(d1 / "units.json")
        (d1 / "other.json").write_text("[]")
        return d1
    raise AssertionError(case)


CASES = ["missing answers", "bad json", "unknown evidence", "unanswered question", "unknown task", "two streams"]


@pytest.mark.parametrize("case", CASES)
def test_a_broken_release_is_a_one_line_data_error_naming_the_file(tmp_path: Path, case: str) -> None:
    root = _copy(tmp_path)
    culprit = _break(root, case)
    with pytest.raises(DataError) as info:
        load_dataset(root / "dataset1")
    message = str(info.value)
    assert str(culprit) in message and "\n" not in message


def test_no_dataset_directories(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no dataset<N> directories"):
        dataset_dirs(tmp_path)


def test_released_items_keep_prose_golds_private_and_label_approximate_scorers(tmp_path: Path) -> None:
    suite = KnowmeSuite(SuiteOptions(size="smoke", split=None, seeds=None, k=10, data_dir=DATA, cache_dir=tmp_path, bootstrap=50))
    ids = [e.id for e in suite.index()]
    assert len(ids) == 10 and "dataset1-T3-2" in ids and "dataset2-T1-7" in ids
    item = suite.item("dataset1-T2-1")
    assert item.gold == "ABSTAIN" and item.view.task == "open" and item.view.extra["slots"] == {}
    assert suite.item("dataset1-T1-1").view.task == item.view.task  # the task is not in the view
    assert item.private["evidence_texts"][0].startswith("1990-06-02 09:12:30 | the ferry quay")
    assert suite.item("dataset1-T6-1").private["rubric_family"] == "insight"
    assert suite.item("dataset1-T3-2").private["rubric_family"] == "value"



def test_the_release_runs_through_pytest(suite_pytester: pytest.Pytester) -> None:
    args = ("--memsystem=context", "--memeval-suite=knowme", f"--memeval-data={DATA}")
    collected = suite_pytester.runpytest(*args, "--collect-only", "-q", "--strict-markers")
    collected.stdout.fnmatch_lines(["*test_knowme[[]dataset1-T1-1[]]", "10 tests collected*"])
    report = suite_pytester.path / "report.json"
    result = suite_pytester.runpytest(*args, f"--memeval-report={report}", "-p", "no:cacheprovider")
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
    result.stdout.fnmatch_lines(["knowme | context | reader | k=10  n=10", "  t1_extraction_approx *"])
    metrics = json.loads(report.read_text())["runs"][0]["metrics"]
    assert {"t2_abstention", "t3_temporal_approx", "t4_ordering_approx", "t7_principle_approx"} <= set(metrics)


def test_a_broken_release_is_a_usage_error(suite_pytester: pytest.Pytester, tmp_path: Path) -> None:
    root = _copy(tmp_path)
    culprit = _break(root, "bad json")
    result = suite_pytester.runpytest_subprocess("--memsystem=context", "--memeval-suite=knowme", f"--memeval-data={root}", "--collect-only")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.errlines if line.strip()]
    assert len(errors) == 1 and str(culprit) in errors[0], errors
