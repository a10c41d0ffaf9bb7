"""The KnowMe-Bench release as shipped: small files of our own in every released shape
(tests/data/knowme; the release has no licence, so none of its files are copied here),
its loader and its errors, in process and through pytest; and the real release when
$MEMEVAL_KNOWME_RELEASE names a checkout of it.

    dataset1  *_questions.json / *_answers.json, inner_thought, an undated unit, a null
              location, evidence as a list or one integer, an evidence id the stream lacks,
              string ids (T7), T4 answered by a ranked list, T2 with `strategy`
    dataset2  *_question.json / *_answer.json, `evidence_ids`, no evidence (T5), a prose
              ranking (T4), a ranked list as a T6 answer
    dataset3  Mind / Environment / Background and `category`, T2 holding an event order and
              an empty gold, T3 without evidence
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from pytest_memeval.suites.knowme.catalog import selected_datasets
from pytest_memeval.suites.knowme.released import dataset_dirs, load_dataset, task_of
from pytest_memeval.suites.knowme.released_golds import letter_order, reference_text, released_gold
from pytest_memeval.suites.knowme.stream import parse_units, render
from pytest_memeval.suites.knowme.suite import KnowmeSuite

from pytest_memeval.errors import ConfigError, DataError
from pytest_memeval.framework.suite import SuiteOptions

DATA = Path(__file__).parent / "data" / "knowme"
RELEASE = os.environ.get("MEMEVAL_KNOWME_RELEASE")
needs_release = pytest.mark.skipif(
    not RELEASE, reason="set MEMEVAL_KNOWME_RELEASE to a checkout of QuantaAlpha/KnowMeBench"
)


def options(tmp_path: Path, data: Path | None = DATA, size: str = "smoke", **params: str) -> SuiteOptions:
    return SuiteOptions(
        size=size, split=None, seeds=None, k=10, data_dir=data, cache_dir=tmp_path, bootstrap=50, params=params
    )


@pytest.mark.parametrize(
    "name, task",
    [
        ("Information Extraction_questions.json", "T1"),
        ("Information Extraction_question.json", "T1"),
        ("Context-Aware Extraction_answers.json", "T1"),
        ("Adversarial Abstention_answer.json", "T2"),
        ("Temporal Reasoning_answers.json", "T3"),
        ("Logical Event Ordering_question.json", "T4"),
        ("Mnestic Trigger Analysis_questions.json", "T5"),
        ("Mind-Body Interaction_question.json", "T6"),
        ("Expert-Annotated Psychoanalysis_questions.json", "T7"),
        ("T5_questions.json", "T5"),
        ("task_2_questions.json", "T2"),
        ("Weather_questions.json", None),
    ],
)
def test_the_task_of_a_file_comes_from_its_name(name: str, task: str | None) -> None:
    assert task_of(Path(name)) == task


def test_the_release_is_found_from_the_repository_its_folder_or_one_dataset(tmp_path: Path) -> None:
    repository = tmp_path / "KnowMeBench"
    shutil.copytree(DATA, repository / "KnowmeBench")
    names = ["dataset1", "dataset2", "dataset3"]
    assert [d.name for d in dataset_dirs(repository)] == names
    assert [d.name for d in dataset_dirs(repository / "KnowmeBench")] == names
    assert dataset_dirs(DATA / "dataset2") == [DATA / "dataset2"]
    assert [d.name for d in selected_datasets(repository, "1, dataset3")] == ["dataset1", "dataset3"]
    with pytest.raises(ConfigError, match="no dataset dataset4 in .* \\(found: dataset1, dataset2, dataset3\\)"):
        selected_datasets(repository, "1,4")


def test_dataset1_shape_plural_names_undated_units_int_and_dangling_evidence() -> None:
    data = load_dataset(DATA / "dataset1")
    assert sorted(data.questions) == ["T1", "T2", "T3", "T4", "T5", "T6", "T7"]
    assert [u.layer for u in data.units[2:6]] == [0, 1, 1, 0]  # dated 1979 inside a 1990 day
    undated = data.unit(15)
    assert undated.undated and undated.location == "unknown place" and undated.background == ""
    assert data.sessions[-1] == (12, 15)  # an undated unit joins the day it is narrated in
    assert render(undated).startswith("undated | unknown place\nAction: The next day")
    assert data.unit(9).location == "unknown place"  # null location
    # an undated unit is never read back as a dated one, nor glued onto the unit before it
    read = parse_units([render(data.unit(12)) + "\n" + render(undated)])
    assert len(read) == 1 and "mend the net" not in read[0].text
    t1 = data.questions["T1"]
    assert [q.evidence for q in t1] == [(2,), (7,)] and [q.kind for q in t1] == ["Object", "Location"]
    duration, order = data.questions["T3"]
    assert duration.evidence == (3, 7) and duration.extra["flags"] == ("evidence ids not in the stream: 99",)
    assert duration.gold == {"answer": "40 minutes", "seconds": 2400} and duration.extra["scoring"] == "duration"
    assert order.gold["order"] == ["B", "A"] and order.extra["scoring"] == "order" and order.flashback
    assert data.questions["T6"][0].extra["flags"] == ("evidence includes undated units",)
    assert data.questions["T5"][0].flashback
    assert data.questions["T2"][0].trap == "false_premise" and data.questions["T2"][0].extra["scoring"] == "abstain"
    assert data.questions["T7"][0].extra["released_id"] == "1" and data.questions["T7"][0].evidence == ()
    assert data.notes == (
        "1 stream unit with an empty timestamp: kept, stored as 'undated', never placed in time",
        "1 evidence id of 1 question not in the stream: dropped from those items' evidence (named in their flags)",
    )


def test_t4_gold_keeps_its_ranked_list() -> None:
    ranking = load_dataset(DATA / "dataset1").questions["T4"][0]
    assert isinstance(ranking.gold["answer"], list) and ranking.gold["answer"][2] == {
        "rank": 3,
        "event": "The car clipping my bicycle",
        "reasoning": "A broken wrist.",
    }
    assert ranking.gold["events"] == [
        "Slipping on the wet planks",
        "The ladder slipping",
        "The car clipping my bicycle",
    ]
    assert ranking.extra["reference"].splitlines() == [
        "1. Slipping on the wet planks (Not a scratch.)",
        "2. The ladder slipping (A scraped elbow.)",
        "3. The car clipping my bicycle (A broken wrist.)",
    ]


def test_dataset2_shape_singular_names_evidence_ids_prose_ranking_and_a_list_answer() -> None:
    data = load_dataset(DATA / "dataset2")
    assert sorted(data.questions) == ["T1", "T2", "T4", "T5", "T6"] and data.notes == ()
    assert data.questions["T1"][0].evidence == (1, 2) and data.questions["T5"][0].evidence == ()
    assert data.questions["T2"][0].extra["scoring"] == "abstain"  # "unable to answer"
    assert data.questions["T4"][0].gold["events"] == [
        "The jar of honey (ID 1) - bought at the market.",
        "The red scarf (ID 2) - hand-knitted over a winter.",
    ]
    t6 = data.questions["T6"][0]
    assert isinstance(t6.gold["answer"], list) and t6.extra["scoring"] == "text_coverage_approx"
    assert (
        t6.gold["reference"]
        == "1. I wave Lena off. (The outward act.)\n2. I keep smiling until the train is gone. (A mask over the loss.)"
    )


def test_dataset3_shape_capitalised_fields_and_a_t2_file_that_holds_orders_and_an_empty_gold() -> None:
    data = load_dataset(DATA / "dataset3")
    assert (
        data.unit(1).inner_thought == "I want to know their names." and data.unit(2).environment == "The sea is grey."
    )
    assert data.unit(3).background == "The painter knows the girls."
    abstain, order = data.questions["T2"]  # the third, with an empty gold, is left out
    assert (
        abstain.extra["scoring"] == "abstain"
        and order.extra["scoring"] == "order"
        and order.gold["order"] == ["B", "C", "A"]
    )
    assert data.questions["T3"][0].gold["seconds"] == 10 and data.questions["T3"][0].evidence == ()
    assert data.notes == (
        "T2: 1 question with an empty gold answer left out (ids 3; Adversarial Abstention_answer.json)",
        "T2: 1 gold not an abstention (e.g. an event order): graded against the gold as shipped",
    )


@pytest.mark.parametrize(
    "value, scoring",
    [
        ("The text does not mention / the information is insufficient / I don't know.", "abstain"),
        ("not mentioned in the text", "abstain"),
        ("unable to answer", "abstain"),
        ("A -> B -> C", "order"),
        ("C -> A -> D -> B. Event C occurs in 1952.", "order"),
    ],
)
def test_released_t2_golds(value: str, scoring: str) -> None:
    assert released_gold("T2", value)[1] == scoring  # type: ignore[index]


def test_released_golds_of_other_shapes() -> None:
    assert released_gold("T3", "2 hours, 30 minutes and 10 seconds (start time 16:30:00, end time 19:00:10)") == (
        {"answer": "2 hours, 30 minutes and 10 seconds (start time 16:30:00, end time 19:00:10)", "seconds": 9010},
        "duration",
    )
    assert released_gold("T2", "") is None and released_gold("T4", []) is None
    assert (
        letter_order("B -> C -> A (Event B is memory content)") == ["B", "C", "A"] and letter_order("Because") is None
    )
    assert (
        reference_text([{"rank": 2, "event": "b"}, {"rank": 1, "event": "a", "reasoning": "first"}])
        == "1. a (first)\n2. b"
    )


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
        (d1 / "input" / "dataset1.json").write_text("[{not json")
        return d1 / "input" / "dataset1.json"
    if case == "non-integer evidence":
        path = d1 / "answer" / "Mind-Body Interaction_answers.json"
        path.write_text(json.dumps([{"id": 1, "answer": "x", "evidence": ["unit eight"]}]))
        return path
    if case == "unanswered question":
        path = d1 / "answer" / "Information Extraction_answers.json"
        path.write_text(json.dumps([{"id": 2, "answer": "x", "evidence": []}]))
        return path
    if case == "unknown task":
        path = d1 / "question" / "Weather_questions.json"
        path.write_text("[]")
        return path
    if case == "missing stream":
        (d1 / "input" / "dataset1.json").unlink()
        return d1 / "input" / "dataset1.json"
    if case == "two streams":  # neither named after the dataset
        (d1 / "input" / "dataset1.json").rename(d1 / "input" / "units.json")
        (d1 / "input" / "other.json").write_text("[]")
        return d1 / "input"
    if case == "bad timestamp":
        path = d1 / "input" / "dataset1.json"
        path.write_text(json.dumps([{"id": 1, "timestamp": "June 1990", "location": "x", "action": "y"}]))
        return path
    if case == "duplicate unit":
        path = d1 / "input" / "dataset1.json"
        path.write_text(
            json.dumps([{"id": 1, "timestamp": "", "location": "x"}, {"id": "1", "timestamp": "", "location": "y"}])
        )
        return path
    raise AssertionError(case)


CASES = [
    "missing answers",
    "bad json",
    "non-integer evidence",
    "unanswered question",
    "unknown task",
    "missing stream",
    "two streams",
    "bad timestamp",
    "duplicate unit",
]


@pytest.mark.parametrize("case", CASES)
def test_a_broken_release_is_a_one_line_data_error_naming_the_file(tmp_path: Path, case: str) -> None:
    root = _copy(tmp_path)
    culprit = _break(root, case)
    with pytest.raises(DataError) as info:
        load_dataset(root / "dataset1")
    message = str(info.value)
    assert str(culprit) in message and "\n" not in message


def test_a_missing_stream_says_how_to_run_the_datasets_present(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _break(root, "missing stream")
    with pytest.raises(DataError, match="knowme.datasets="):
        load_dataset(root / "dataset1")
    suite = KnowmeSuite(options(tmp_path, root, datasets="2,3"))
    assert suite.catalog.context_ids() == ["dataset2", "dataset3"]
    with pytest.raises(ConfigError, match="give --memeval-data too"):
        KnowmeSuite(options(tmp_path, None, datasets="1"))


def test_no_dataset_directories(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no dataset<N> directories"):
        dataset_dirs(tmp_path)


def test_released_items_keep_golds_private_and_carry_reference_and_flags(tmp_path: Path) -> None:
    suite = KnowmeSuite(options(tmp_path))
    ids = [e.id for e in suite.index()]
    assert len(ids) == 9 + 5 + 3 and "dataset1-T3-2" in ids and "dataset2-T1-7" in ids and "dataset3-T2-3" not in ids
    item = suite.item("dataset1-T2-1")
    assert (
        item.gold == {"answer": "The record does not mention this / I don't know."}
        and item.strata["trap"] == "false_premise"
    )
    assert (
        item.view.task == "open"
        and item.view.extra["slots"] == {}
        and suite.item("dataset1-T1-1").view.task == item.view.task
    )
    assert item.private["evidence_texts"][0].startswith("1990-06-02 09:12:30 | the ferry quay")
    assert item.private["reference"] == "The record does not mention this / I don't know."
    assert suite.item("dataset1-T3-1").private["flags"] == ["evidence ids not in the stream: 99"]
    assert suite.item("dataset1-T4-1").private["reference"].startswith("1. Slipping on the wet planks (Not a scratch.)")
    assert suite.item("dataset1-T6-1").private["evidence_texts"][1].startswith("undated | unknown place")
    public = json.dumps([[suite.item(i).view.question, dict(suite.item(i).view.extra)] for i in ids])
    assert "ID 1" not in public and "reasoning" not in public and "Not a scratch" not in public
    stored = [m for s in suite.context("dataset1").sessions for m in s]
    assert stored[-1].content.startswith("undated | ") and stored[-1].timestamp == ""


@pytest.mark.slow
def test_the_release_runs_through_pytest_under_diagnostic_names(suite_pytester: pytest.Pytester) -> None:
    args = ("--memsystem=context", "--memeval-suite=knowme", f"--memeval-data={DATA}")
    collected = suite_pytester.runpytest(*args, "--collect-only", "-q", "--strict-markers")
    collected.stdout.fnmatch_lines(["*test_knowme[[]dataset1-T1-1[]]", "17 tests collected*"])
    report = suite_pytester.path / "report.json"
    result = suite_pytester.runpytest(*args, f"--memeval-report={report}", "-p", "no:cacheprovider")
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
    result.stdout.fnmatch_lines(
        ["knowme", "*context", "  items *17", "  t1_entity_f1_approx *", "*release as loaded:*"]
    )  # the note wraps at the terminal's width
    run = json.loads(report.read_text())["runs"][0]
    assert {
        "t2_abstain_exact",
        "t3_value_bands",
        "t4_rank_bands_approx",
        "t7_coverage_approx",
        "level_i_diag_approx",
    } <= set(run["metrics"])
    assert not {"t1_extraction", "t2_abstention", "t3_temporal", "level_i"} & set(run["metrics"])
    assert any("dataset3: T2: 1 question with an empty gold" in note for note in run["extra"]["data_notes"])
    records = json.loads(report.read_text())["records"]
    flagged = next(r for r in records if r["id"] == "dataset1-T3-1")
    assert flagged["detail"]["data_flags"] == ["evidence ids not in the stream: 99"]


@pytest.mark.slow
def test_a_broken_release_is_a_usage_error(suite_pytester: pytest.Pytester, tmp_path: Path) -> None:
    root = _copy(tmp_path)
    culprit = _break(root, "bad json")
    result = suite_pytester.runpytest_subprocess(
        "--memsystem=context", "--memeval-suite=knowme", f"--memeval-data={root}", "--collect-only"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.errlines if line.strip()]
    assert len(errors) == 1 and str(culprit) in errors[0], errors


# --- the real release, when a checkout is named -------------------------------------------


@needs_release
def test_the_real_release_loads_datasets_1_and_3(tmp_path: Path) -> None:
    root = Path(RELEASE or "")
    first = load_dataset(root / "KnowmeBench" / "dataset1")
    assert {t: len(q) for t, q in first.questions.items()} == {
        "T1": 130,
        "T2": 100,
        "T3": 131,
        "T4": 52,
        "T5": 240,
        "T6": 295,
        "T7": 62,
    }
    assert sum(u.undated for u in first.units) == 173 and first.notes[0].startswith(
        "173 stream units with an empty timestamp"
    )
    assert all(isinstance(q.gold["answer"], list) for q in first.questions["T4"])
    assert {q.extra["scoring"] for q in first.questions["T2"]} == {"abstain"}
    third = load_dataset(root / "KnowmeBench" / "dataset3")
    assert {t: len(q) for t, q in third.questions.items()} == {
        "T1": 100,
        "T2": 76,
        "T3": 200,
        "T4": 26,
        "T5": 200,
        "T6": 100,
        "T7": 46,
    }
    assert third.unit(1).location and any(u.inner_thought for u in third.units)
    suite = KnowmeSuite(options(tmp_path, root, size="full", datasets="1,3"))
    assert len(suite.index()) == 1010 + 748


@needs_release
def test_the_real_release_dataset2_questions_and_answers_load(tmp_path: Path) -> None:
    """Dataset 2's stream (over 4 MiB) may be absent from a checkout: its questions and
    answers are read here beside a one-unit stand-in stream (every evidence id then dangles)."""
    shipped = Path(RELEASE or "") / "KnowmeBench" / "dataset2"
    stream = shipped / "input" / "dataset2.json"
    if stream.is_file():
        data = load_dataset(shipped)
    else:
        stand_in = tmp_path / "dataset2"
        (stand_in / "input").mkdir(parents=True)
        (stand_in / "input" / "dataset2.json").write_text(
            json.dumps([{"id": 0, "timestamp": "1950-01-01 00:00:00", "location": "x"}])
        )
        for folder in ("question", "answer"):
            (stand_in / folder).symlink_to(shipped / folder, target_is_directory=True)
        data = load_dataset(stand_in)
    assert {t: len(q) for t, q in data.questions.items()} == {
        "T1": 100,
        "T2": 100,
        "T3": 230,
        "T4": 47,
        "T5": 141,
        "T6": 100,
        "T7": 80,
    }
    assert sum(isinstance(q.gold["answer"], list) for q in data.questions["T4"]) == 15
    assert sum(isinstance(q.gold["answer"], list) for q in data.questions["T6"]) == 1
