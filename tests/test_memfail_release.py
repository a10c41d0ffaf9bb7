"""memfail on the authors' release (--memeval-data): every format variation of the shipped
CSV files, one-line errors for malformed ones, the storage order of the release's harness,
honest ids, and (when $MEMEVAL_MEMFAIL_RELEASE names a checkout) the real release against
the paper's Table 2."""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from pathlib import Path

import pytest
from llm_server import LLMServer, Request
from memfail_release_files import (
    coexisting_rows,
    conditional_rows,
    csv_text,
    longhop_rows,
    persona_rows,
    write_release,
)
from pytest_memeval.suites.memfail.release_build import build_released, select
from pytest_memeval.suites.memfail.release_rows import (
    COEXISTING_COLUMNS,
    CONDITIONAL_COLUMNS,
    FILES,
    LONGHOP_COLUMNS,
    PERSONA_COLUMNS,
    load_release,
)
from pytest_memeval.suites.memfail.suite import MemfailSuite

from pytest_memeval.errors import DataError
from pytest_memeval.framework.suite import SuiteOptions

#: a checkout of github.com/ishirgarg/MemFail (never copied into the project: it has no licence)
RELEASE = os.environ.get("MEMEVAL_MEMFAIL_RELEASE")
needs_release = pytest.mark.skipif(not RELEASE, reason="set MEMEVAL_MEMFAIL_RELEASE to a checkout of ishirgarg/MemFail")


def _suite(data_dir: Path, size: str = "full", seeds: tuple[int, ...] | None = None) -> MemfailSuite:
    return MemfailSuite(SuiteOptions(size, None, seeds, 10, data_dir, data_dir / "cache"))


def test_a_release_in_the_shipped_format_loads(tmp_path: Path):
    raw = (write_release(tmp_path) / "datasets" / FILES["longhop"]).read_bytes()
    assert b"\r\n" in raw and b'"When I meet rain, what do I end up doing?\n\nOptions:\nA. fold laundry' in raw
    assert b"\\u2014" in (tmp_path / "datasets" / FILES["cond_easy"]).read_bytes()  # JSON escapes, as shipped
    release = load_release(tmp_path)
    easy = release.cond_easy
    assert [r.condition_met for r in easy] == [True, False, False]  # "No" reads as no
    assert easy[0].essays[0].startswith("Odile runs a small bakery") and easy[1].essays[0].endswith('"never before".')
    assert release.coexisting[0].statements[1] == "Rooibos is my caf\u00e9-free evening cup."
    [persona] = release.persona
    assert [(q.distractor, q.answer[:9]) for q in persona.questions] == [
        (None, "Something"),
        ("Tomas Brandt", "I don't h"),
    ]
    hop3 = release.longhop[2]
    assert (hop3.hops, len(hop3.facts), len(hop3.chain)) == (3, 4, 5)
    assert hop3.stem == "When I meet snow, what do I end up doing?" and hop3.choices[1] == hop3.answer == "read poems"
    assert [len(r.facts) for r in release.longhop] == [2, 3, 4, 2]  # empty fact_3/fact_4 cells of short chains


def test_hand_edited_variations_read_the_same(tmp_path: Path):
    shipped = load_release(write_release(tmp_path / "shipped"))
    rows = conditional_rows()
    edited = {
        "cond_easy": "\ufeff" + csv_text(CONDITIONAL_COLUMNS, rows),  # a byte-order mark
        "cond_hard": csv_text(CONDITIONAL_COLUMNS, conditional_rows(hard=True), line_end="\n")
        + "\n\n",  # LF, blank lines
        "coexisting": csv_text([*COEXISTING_COLUMNS, "notes"], [{**r, "notes": "extra"} for r in coexisting_rows()]),
    }
    root = write_release(tmp_path / "edited", edited)
    # --memeval-data may name the checkout or its datasets/ folder
    for data_dir in (root, root / "datasets"):
        other = load_release(data_dir)
        for dataset in FILES:
            assert other.rows(dataset) == shipped.rows(dataset), dataset


def _broken(dataset: str, columns, rows) -> dict[str, str]:
    return {dataset: csv_text(columns, rows)}


def _edit(rows: list[dict], index: int, **changes) -> list[dict]:
    return [dict(row, **changes) if i == index else row for i, row in enumerate(rows)]


BROKEN = {
    "unclosed quote": (
        {"cond_easy": csv_text(CONDITIONAL_COLUMNS, conditional_rows()) + '"Odile,person\r\n'},
        "conditional_facts_dataset_easy.csv line 5: malformed CSV (unexpected end of data)",
    ),
    "too many fields": (
        {"cond_hard": csv_text(CONDITIONAL_COLUMNS, conditional_rows()).replace("Biscuit,", "Biscuit,x,", 1)},
        "conditional_facts_dataset_hard.csv row 2 (line 3): 11 fields, the header has 10",
    ),
    "missing column": (
        _broken("cond_easy", CONDITIONAL_COLUMNS[:-1], conditional_rows()),
        "conditional_facts_dataset_easy.csv: the header lacks column(s) ground_truth_answer",
    ),
    "repeated column": (
        {"persona": csv_text(list(PERSONA_COLUMNS) + ["entity"], [dict(r) for r in persona_rows()])},
        "persona_dataset.csv: the header repeats column 'entity'",
    ),
    "header only": ({"coexisting": csv_text(COEXISTING_COLUMNS, [])}, "coexisting_facts_dataset.csv: no data rows"),
    "empty file": ({"coexisting": ""}, "coexisting_facts_dataset.csv: the file is empty (no header row)"),
    "essay not JSON": (
        _broken("cond_easy", CONDITIONAL_COLUMNS, _edit(conditional_rows(), 1, entity_facts="[Biscuit chases")),
        "easy.csv row 2 (line 3): column 'entity_facts' is not valid JSON (Expecting value at character 1)",
    ),
    "empty essay list": (
        _broken("cond_easy", CONDITIONAL_COLUMNS, _edit(conditional_rows(), 0, entity_facts=[])),
        "row 1 (line 2): column 'entity_facts' must be a non-empty JSON list, got list",
    ),
    "essay not a string": (
        _broken("persona", PERSONA_COLUMNS, _edit(persona_rows(), 0, entity_facts=[{"essay": "x"}])),
        "persona_dataset.csv row 1 (line 2): column 'entity_facts': entry 1 must be a non-empty string, got dict",
    ),
    "empty cell": (
        _broken("cond_hard", CONDITIONAL_COLUMNS, _edit(conditional_rows(), 2, question="  ")),
        "hard.csv row 3 (line 4): column 'question' is empty",
    ),
    "condition_met": (
        _broken("cond_easy", CONDITIONAL_COLUMNS, _edit(conditional_rows(), 2, condition_met="maybe")),
        "row 3 (line 4): condition_met must be yes or no, got 'maybe'",
    ),
    "answer without a verdict": (
        _broken("cond_easy", CONDITIONAL_COLUMNS, _edit(conditional_rows(), 1, ground_truth_answer="Perhaps.")),
        "row 2 (line 3): ground_truth_answer must begin with Yes or No, got 'Perhaps.'",
    ),
    "preference count": (
        _broken("coexisting", COEXISTING_COLUMNS, _edit(coexisting_rows(), 1, preferences=["chess"])),
        "coexisting_facts_dataset.csv row 2 (line 3): 1 preferences but 3 preference_facts",
    ),
    "question object": (
        _broken("persona", PERSONA_COLUMNS, _edit(persona_rows(), 0, questions=[{"text": "Hi?"}])),
        "row 1 (line 2): questions entry 1 lacks distractor, ground_truth_answer, is_misleading",
    ),
    "is_misleading text": (
        _broken(
            "persona",
            PERSONA_COLUMNS,
            _edit(
                persona_rows(),
                0,
                questions=[{"text": "Hi?", "is_misleading": "true", "distractor": "Al", "ground_truth_answer": "x"}],
            ),
        ),
        "questions entry 1: is_misleading must be true or false, got 'true'",
    ),
    "no distractor": (
        _broken(
            "persona",
            PERSONA_COLUMNS,
            _edit(
                persona_rows(),
                0,
                questions=[{"text": "Hi?", "is_misleading": True, "distractor": None, "ground_truth_answer": "x"}],
            ),
        ),
        "questions entry 1: a misleading question needs a distractor name",
    ),
    "fact beyond the hops": (
        _broken("longhop", LONGHOP_COLUMNS, _edit(longhop_rows(), 0, fact_3="Stray fact.")),
        "long_hop_chains.csv row 1 (line 2): fact_3 is filled, but hop_count 1 uses fact_1..fact_2",
    ),
    "missing chain anchor": (
        _broken("longhop", LONGHOP_COLUMNS, _edit(longhop_rows(), 2, chain_5="")),
        "row 3 (line 18): chain_5 is empty, but hop_count 3 uses chain_1..chain_5",
    ),
    "hop count": (
        _broken("longhop", LONGHOP_COLUMNS, _edit(longhop_rows(), 1, hop_count="two")),
        "row 2 (line 10): hop_count must be 1..3, got 'two'",
    ),
    "wrong letter": (
        _broken("longhop", LONGHOP_COLUMNS, _edit(longhop_rows(), 0, correct_choice="C")),
        "row 1 (line 2): correct_choice C is 'water ferns', not the ground truth 'call my sister'",
    ),
    "options differ": (
        _broken("longhop", LONGHOP_COLUMNS, _edit(longhop_rows(), 3, choice_e="walk cats")),
        "row 4 (line 26): graded_question must be the question, a blank line, 'Options:'",
    ),
    "repeated id": (
        _broken("longhop", LONGHOP_COLUMNS, _edit(longhop_rows(), 3, id="longhop-1hop-001")),
        "long_hop_chains.csv row 4: id 'longhop-1hop-001' repeats row 1",
    ),
    "odd id": (
        _broken("longhop", LONGHOP_COLUMNS, _edit(longhop_rows(), 0, id="chain one")),
        "row 1 (line 2): id 'chain one' may hold only letters",
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_malformed_file_is_one_line_naming_file_and_row(tmp_path: Path, case: str):
    tables, message = BROKEN[case]
    write_release(tmp_path, tables)
    with pytest.raises(DataError) as raised:
        load_release(tmp_path)
    text = str(raised.value)
    assert "\n" not in text and text.startswith("memfail release: ") and message in text, text


def test_unreadable_files_and_meta_and_missing_ones_are_one_line_each(tmp_path: Path):
    latin = write_release(tmp_path / "latin")
    path = latin / "datasets" / FILES["persona"]
    path.write_bytes(path.read_bytes().replace(b"Mirela", "Mir\u00e9la".encode("latin-1")))
    meta = write_release(tmp_path / "meta", meta={"hop_counts": {"1": 3, "2": 1}})
    missing = write_release(tmp_path / "missing")
    (missing / "datasets" / FILES["coexisting"]).unlink()
    (tmp_path / "empty").mkdir()
    cases = {
        latin: "persona_dataset.csv: not UTF-8 text (invalid continuation byte at byte",
        meta: "long_hop_chains_meta.json: hop_counts {'1': 3, '2': 1} do not match long_hop/long_hop_chains.csv ({'1': 2, '2': 1, '3': 1})",
        missing: "file missing: " + str(missing / "datasets" / FILES["coexisting"]),
        tmp_path / "empty": "holds no MemFail release (expected datasets/conditional_facts/easy/",
    }
    for data_dir, message in cases.items():
        with pytest.raises(DataError, match=None) as raised:
            load_release(data_dir)
        assert message in str(raised.value) and "\n" not in str(raised.value)


def test_released_items_have_their_own_ids_and_the_harness_storage_order(tmp_path: Path):
    suite = _suite(write_release(tmp_path))
    entries = suite.index()
    assert Counter(e.context_id for e in entries) == {
        "release-s42-cond_easy": 3,
        "release-s42-cond_hard": 3,
        "release-s42-coexisting": 2,
        "release-s42-persona": 2,
        "release-s42-longhop": 4,
    }
    assert [e.id for e in entries if "longhop" in e.id][:2] == [
        "release-s42-longhop-1hop-001",
        "release-s42-longhop-2hop-001",
    ]
    assert all(e.id.startswith("release-s42-") for e in entries)  # generated ids are s<seed>-..., never release-
    # each unit is its own conversation, in the order of the release's evaluate_*.py scripts
    order = list(range(3))
    random.Random(42).shuffle(order)
    sessions = suite.context("release-s42-cond_easy").sessions
    assert [s[0].content for s in sessions] == [conditional_rows()[i]["entity_facts"][0] for i in order]
    assert all(len(s) == 1 and s[0].role == "user" for s in sessions)
    pairs = [(i, t) for i, row in enumerate(coexisting_rows()) for t in row["preference_facts"]]
    random.Random(42).shuffle(pairs)
    assert [s[0].content for s in suite.context("release-s42-coexisting").sessions] == [t for _, t in pairs]
    chains = longhop_rows()
    random.Random(42).shuffle(chains)
    facts = [row[f"fact_{i}"] for row in chains for i in range(1, 5) if row[f"fact_{i}"]]
    random.Random(42 ^ 0xF1AC).shuffle(facts)
    assert [s[0].content for s in suite.context("release-s42-longhop").sessions] == facts
    other_seed = _suite(tmp_path, seeds=(7,))
    assert other_seed.index()[0].id == "release-s7-cond_easy-001"
    with pytest.raises(Exception, match="malformed item id 's42-cond_easy-001'"):
        suite.item("s42-cond_easy-001")


def test_released_items_carry_the_release_gold_and_no_spans(tmp_path: Path):
    suite = _suite(write_release(tmp_path))
    easy = suite.item("release-s42-cond_easy-002")
    assert (easy.gold, easy.view.answer_space, easy.view.task) == ("no", ("yes", "no"), "conditional")
    assert easy.private["grading"] == {"ground_truth": "No, it is morning.", "spans": False}
    assert easy.private["facts"][0]["label"] == "rule: Biscuit chases his tail, after sunset"
    assert easy.private["facts"][0]["pieces"][0]["anchor"] == []
    marks = {e.id: e.marks for e in suite.index()}
    assert "cond_time_of_day" in marks["release-s42-cond_easy-002"]
    assert not any(
        m.startswith("cond_invented") for m in marks["release-s42-cond_easy-003"]
    )  # unknown types get no marker
    direct, misleading = suite.item("release-s42-persona-001-q1"), suite.item("release-s42-persona-001-q2")
    assert (
        direct.private["grading"]["free_text_gold"] and direct.private["facts"][0]["label"] == "essay about Mirela Voss"
    )
    assert misleading.private["facts"] == [] and misleading.private["grading"]["distractor"] == "Tomas Brandt"
    assert direct.cluster == misleading.cluster  # an essay's questions share a cluster
    hop = suite.item("release-s42-longhop-3hop-001")
    assert hop.view.question == "When I meet snow, what do I end up doing?" and hop.gold == hop.view.answer_space[1]
    assert [f["label"] for f in hop.private["facts"]] == [f"hop {i} of 4" for i in range(1, 5)]
    coexisting = suite.item("release-s42-coexisting-002")
    assert coexisting.gold == ["chess", "go", "backgammon"] and "facts_3" in marks["release-s42-coexisting-002"]


def test_sizes_take_the_first_rows_and_full_takes_every_row(tmp_path: Path):
    many = [dict(conditional_rows()[i % 3], question=f"Question {i}?") for i in range(120)]
    release = load_release(write_release(tmp_path, {"cond_easy": csv_text(CONDITIONAL_COLUMNS, many)}))
    assert [len(build_released(release, 42, "cond_easy", size).questions) for size in ("smoke", "small", "full")] == [
        8,
        30,
        120,
    ]
    assert len(build_released(release, 42, "cond_easy", "full").sessions) == 120
    assert len(build_released(release, 42, "longhop", "smoke").questions) == 4  # smoke asks for 6 chains, there are 4
    picked = select(release.longhop, "longhop", 3)  # the first chain of each hop count, in file order
    assert [row.id for row in picked] == ["longhop-1hop-001", "longhop-2hop-001", "longhop-3hop-001"]


def _run(pytester: pytest.Pytester, data_dir: Path, *args: str) -> tuple[pytest.RunResult, dict]:
    report = pytester.path / f"report-{abs(hash(args))}.json"
    result = pytester.runpytest(
        "--memsystem=context",
        "--memeval-suite=memfail",
        f"--memeval-data={data_dir}",
        f"--memeval-report={report}",
        "-p",
        "no:cacheprovider",
        *args,
    )
    return result, json.loads(report.read_text()) if report.exists() else {}


@pytest.mark.slow
def test_the_offline_reader_says_it_cannot_read_the_release(suite_pytester: pytest.Pytester, tmp_path: Path):
    result, report = _run(suite_pytester, write_release(tmp_path), "-m", "conditional_easy", "--memeval-max-errors=99")
    records = report["records"]
    assert len(records) == 3 and all(r["status"] == "invalid" and r["correct"] is None for r in records)
    result.stdout.fnmatch_lines(["*invalid answer from 'reader'*"])
    assert all(
        r["answer_detail"]["invalid"].startswith("memfail reader: the released data is written by an LLM")
        for r in records
    )


@pytest.mark.slow
def test_a_bad_release_is_a_usage_error(suite_pytester: pytest.Pytester, tmp_path: Path):
    root = write_release(
        tmp_path, {"cond_easy": csv_text(CONDITIONAL_COLUMNS, _edit(conditional_rows(), 1, condition_met="?"))}
    )
    result = suite_pytester.runpytest("--memsystem=context", "--memeval-suite=memfail", f"--memeval-data={root}")
    assert result.ret == 4
    result.stderr.fnmatch_lines(
        [
            "*memfail release: conditional_facts/easy/conditional_facts_dataset_easy.csv row 2 (line 3): "
            "condition_met must be yes or no, got '?'"
        ]
    )


def _model(request: Request) -> str:
    """A scripted model: it converses in storage turns, answers by the format it is given,
    and, as a judge, passes every stage."""
    content = request.messages[0]["content"]
    if content.startswith("You are a helpful chat assistant"):
        return "Noted."
    if content.startswith("You are an intelligent memory assistant"):
        if '"selected_choice"' in content:
            return json.dumps({"selected_choice": "B"})
        answer = "no" if "<yes or no>" in content else "oolong, rooibos"
        return json.dumps({"answer": answer, "memories_used": "-"})
    return json.dumps({"verdict": 1, "reason": "fine"})


@pytest.mark.slow
def test_without_an_llm_judge_released_failures_are_unattributed_and_say_so(
    suite_pytester: pytest.Pytester, tmp_path: Path
):
    with LLMServer(_model) as server:
        _, report = _run(
            suite_pytester,
            write_release(tmp_path),
            "--memeval-responder=openai:answerer",
            f"--memeval-base-url={server.base_url}",
            "--memeval-max-errors=99",
        )
    records = {r["id"].removeprefix("release-s42-"): r for r in report["records"]}
    detail = {key: dict(r["detail"], stage=r["stage"]) for key, r in records.items() if r["status"] != "error"}
    assert {key: (d["stage"], d["attribution"]) for key, d in detail.items() if key.startswith("cond_easy")} == {
        "cond_easy-001": ("unattributed", "unavailable"),
        "cond_easy-002": ("correct", "unavailable"),
        "cond_easy-003": ("correct", "unavailable"),
    }
    assert not records["coexisting-002"]["correct"]
    assert detail["coexisting-002"]["attribution_note"].startswith(
        "failure not attributed: released items carry no critical spans"
    )
    assert detail["coexisting-001"]["stage"] == "correct" and detail["longhop-3hop-001"]["stage"] == "correct"
    # a misleading question needs no memory: answering it is an abstention failure, attributable without spans
    assert (detail["persona-001-q2"]["stage"], detail["persona-001-q2"]["attribution"]) == ("abstention", "none_needed")
    # a direct Persona question's prose gold cannot be checked without the LLM judge: a counted error, one line
    assert records["persona-001-q1"]["reason"].startswith(
        "memfail: release-s42-persona-001-q1 has a free-text ground truth"
    )
    assert all(d["stored_turns"] == "user+assistant" for d in detail.values())


@pytest.mark.slow
def test_with_the_llm_judge_released_failures_are_attributed_by_it(suite_pytester: pytest.Pytester, tmp_path: Path):
    with LLMServer(_model) as server:
        _, report = _run(
            suite_pytester,
            write_release(tmp_path),
            "--memeval-responder=openai:answerer",
            "--memeval-judge=openai:judge",
            f"--memeval-base-url={server.base_url}",
            "-m",
            "persona_retrieval",
        )
        judged = [r for r in server.requests if "GROUND TRUTH ANSWER:" in r.text]
    records = report["records"]
    assert len(records) == 2 and all(
        r["status"] != "error" and r["detail"]["attribution"] == "llm_judge" for r in records
    )
    assert {r["id"]: r["detail"]["answer_check"] for r in records} == {
        "release-s42-persona-001-q1": "llm",
        "release-s42-persona-001-q2": "llm",
    }
    assert "Something without walnuts; she is allergic to them." in judged[0].text  # the release's ground-truth text


def test_the_gold_is_the_ground_truth_answer_and_a_disagreeing_condition_met_is_named(tmp_path: Path):
    """Like the release's Conditional Easy row 89: condition_met says yes, the answer says no.
    The paper (MemFail D.1.1): condition_met describes the question's context, the answer is
    ground_truth_answer; a right "no" must score."""
    from harness import make_record
    from pytest_memeval.suites.memfail.summary import summarize

    rows = _edit(conditional_rows(), 0, ground_truth_answer="No \u2014 Odile only hums when it rains; it is dry now.")
    suite = _suite(write_release(tmp_path, {"cond_easy": csv_text(CONDITIONAL_COLUMNS, rows)}))
    item = suite.item("release-s42-cond_easy-001")
    assert (item.gold, item.strata["condition_met"], item.strata["condition_met_disagrees"]) == ("no", "yes", "yes")
    assert "condition_met_disagrees" not in suite.item("release-s42-cond_easy-002").strata
    records = [
        make_record(i.id, suite="memfail", strata=dict(i.strata), correct=True, stage="correct")
        for i in (item, suite.item("release-s42-cond_easy-002"))
    ]
    note = summarize(records, 50).note
    assert note == "graded by ground_truth_answer where the release's condition_met disagrees: cond_easy-001"


@needs_release
def test_the_docs_give_the_conditional_splits_the_real_release_loads():
    """docs/suites/memfail.md's "loaded" column: the condition_met split Table 2 counts, the
    graded golds (ground_truth_answer) and the rows where the two disagree."""
    assert RELEASE is not None
    release = load_release(Path(RELEASE))
    table = (Path(__file__).resolve().parent.parent / "docs" / "suites" / "memfail.md").read_text(encoding="utf-8")
    for name, rows in (("Easy", release.cond_easy), ("Hard", release.cond_hard)):
        met, yes = sum(r.condition_met for r in rows), sum(r.answer_yes for r in rows)
        disagree = [r.number for r in rows if r.answer_yes != r.condition_met]
        where = f"row {disagree[0]}" if len(disagree) == 1 else "rows " + ", ".join(map(str, disagree))
        types = len({r.condition_type for r in rows})
        cell = f"{len(rows)}, condition met {met} / {len(rows) - met}, graded golds {yes} / {len(rows) - yes} ({where}), {types}"
        assert f"| Conditional-Facts {name} |" in table and f"| {cell} |" in table, cell


@needs_release
def test_the_real_release_matches_the_papers_table_2():
    assert RELEASE is not None
    release = load_release(Path(RELEASE))
    easy, hard = release.cond_easy, release.cond_hard
    assert (len(easy), sum(r.condition_met for r in easy), len({r.condition_type for r in easy})) == (100, 32, 27)
    assert (len(hard), sum(r.condition_met for r in hard), len({r.condition_type for r in hard})) == (100, 49, 27)
    # the gold is the answer: Easy's split is 31/69 (row 89's condition_met disagrees), Hard's stays 49/51
    assert [sum(r.answer_yes for r in rows) for rows in (easy, hard)] == [31, 49]
    assert [r.number for r in easy if r.answer_yes != r.condition_met] == [89]
    assert [r.number for r in hard if r.answer_yes != r.condition_met] == [22, 32]
    rows_by_n = Counter(len(r.preferences) for r in release.coexisting)
    assert [rows_by_n[n] for n in (2, 3, 4, 5)] == [26, 31, 20, 23]
    assert [n * rows_by_n[n] for n in (2, 3, 4, 5)] == [52, 93, 80, 115]  # "52/93/80/115 facts"
    questions = [q for r in release.persona for q in r.questions]
    assert (len(release.persona), len(questions)) == (100, 300)
    assert round(sum(q.distractor is not None for q in questions) / len(questions), 3) == 0.523
    by_k = Counter(r.hops for r in release.longhop)
    assert [by_k[k] for k in (1, 2, 3)] == [31, 32, 29]
    assert [sum(len(r.facts) for r in release.longhop if r.hops == k) for k in (1, 2, 3)] == [62, 96, 116]
    suite = _suite(Path(RELEASE))
    entries = suite.index()
    assert len(entries) == 692  # "692 graded questions per (system, k) configuration"
    for entry in entries:
        assert suite.item(entry.id).id == entry.id
    assert (
        sum(len(suite.context(f"release-s42-{d}").sessions) for d in ("cond_easy", "coexisting", "longhop"))
        == 100 + 340 + 274
    )
