"""behavior on the authors' release (agulaya24/beyond-recall, Apache-2.0): the replay of the
paper's statistics and the real subjects through the suite.

tests/data/beyond_recall is an excerpt of the release (its README says what was kept): two
subjects, three questions each, in every file shape the release uses. The whole release is
read too when a checkout is at $MEMEVAL_BEYOND_RECALL_DIR (default:
../releases/agulaya24+beyond-recall next to ../shared).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from llm_server import LLMServer, Request
from pytest_memeval.suites.behavior.released import (
    GEMINI_JUDGES,
    PRIMARY_JUDGES,
    condition_of,
)
from pytest_memeval.suites.behavior.released_scores import read_release
from pytest_memeval.suites.behavior.released_study import (
    Study,
    paragraphs,
    truncated,
)
from pytest_memeval.suites.behavior.replay import main as replay_main
from pytest_memeval.suites.behavior.replay import replay
from pytest_memeval.suites.behavior.suite import BehaviorSuite
from reference_data import SHARED_DIR

from pytest_memeval.errors import ConfigError, DataError
from pytest_memeval.framework.suite import SuiteOptions

EXCERPT = Path(__file__).parent / "data" / "beyond_recall"
RELEASE = Path(
    os.environ.get("MEMEVAL_BEYOND_RECALL_DIR") or SHARED_DIR.parent / "releases" / "agulaya24+beyond-recall"
)
needs_release = pytest.mark.skipif(
    not (RELEASE / "results" / "global_augustine").is_dir(), reason=f"no beyond-recall checkout at {RELEASE}"
)
ALL = PRIMARY_JUDGES + GEMINI_JUDGES

#: the paper's per-subject table (section 4.1): C5, C4, C2a, C4a, C4a-C5, C4a-C4 (Franklin is outside the 14)
PAPER_TABLE = {
    "ebers": (1.02, 2.02, 1.54, 2.07, 1.05, 0.05),
    "sunity_devee": (1.03, 2.46, 2.27, 2.41, 1.38, -0.05),
    "hamerton": (1.26, 2.43, 2.63, 2.77, 1.51, 0.34),
    "fukuzawa": (1.67, 2.67, 2.35, 2.78, 1.11, 0.11),
    "bernal_diaz": (1.70, 2.41, 2.27, 2.48, 0.78, 0.07),
    "babur": (1.76, 2.03, 1.91, 2.01, 0.25, -0.02),
    "seacole": (1.77, 2.63, 2.48, 2.59, 0.82, -0.04),
    "keckley": (1.84, 2.39, 2.43, 2.44, 0.59, 0.05),
    "yung_wing": (1.88, 2.13, 2.22, 2.40, 0.52, 0.27),
    "zitkala_sa": (2.34, 2.10, 2.03, 2.02, -0.32, -0.08),
    "cellini": (2.38, 2.42, 2.54, 2.53, 0.15, 0.11),
    "rousseau": (2.44, 2.32, 2.81, 2.53, 0.10, 0.21),
    "augustine": (2.58, 2.56, 2.48, 2.70, 0.11, 0.14),
    "equiano": (2.77, 2.43, 2.46, 2.42, -0.35, -0.01),
}
#: section 4.4 (5-judge primary, all 14 subjects): C3 - C1 per system and configuration
PAPER_MEMORY = {
    ("mem0", "controlled"): 0.12,
    ("mem0", "native"): 0.33,
    ("letta", "controlled"): 0.20,
    ("letta", "native"): -0.02,
    ("zep", "controlled"): 0.19,
    ("zep", "native"): 0.33,
    ("supermemory", "controlled"): -0.05,
    ("baselayer", "controlled"): 0.08,
}


def _row(result: dict, subject: str) -> dict:
    return next(r for r in result["subjects"] if r["subject"] == subject)


# --- the replay ------------------------------------------------------------------------------


@needs_release
def test_the_replay_reproduces_the_papers_table_and_primary_test() -> None:
    result = replay(RELEASE, PRIMARY_JUDGES)
    assert [r["subject"] for r in result["subjects"]] == list(PAPER_TABLE)  # ordered by baseline, as the paper's table
    for subject, (c5, c4, c2a, c4a, d5, d4) in PAPER_TABLE.items():
        row = _row(result, subject)
        assert [round(row[c], 2) for c in ("C5", "C4", "C2a", "C4a")] == [c5, c4, c2a, c4a], subject
        assert round(row["C4a-C5"], 2) == d5, subject
        # the paper's C4a-C4 is the difference of its rounded entries (Seacole: 2.59 - 2.63; unrounded -0.035)
        assert round(round(row["C4a"], 2) - round(row["C4"], 2), 2) == d4, subject
    c4a = result["tests"]["C4a-C5"]
    assert (c4a["W"], round(c4a["p_value"], 4), c4a["n_subjects"], c4a["improved"]) == (11.0, 0.0067, 14, 12)
    c2a = result["tests"]["C2a-C5"]
    assert (c2a["W"], round(c2a["p_value"], 3)) == (10.0, 0.005)
    delta = result["gradient"]["delta_regression"]
    assert (round(delta["slope"], 2), round(delta["r_squared"], 2), [round(x, 2) for x in delta["slope_ci"]]) == (
        -0.96,
        0.82,
        [-1.24, -0.67],
    )
    low = result["low_baseline"]
    assert (low["n"], round(low["mean_delta_C4a_C5"], 2), low["improved"], round(low["mean_C4a"], 2)) == (
        9,
        0.89,
        9,
        2.44,
    )
    wrong = result["wrong_spec_v1"]
    assert (wrong["n"], round(wrong["mean_C2c_v1_C5"], 2), round(wrong["mean_C2a_C5"], 2)) == (13, -0.25, 0.35)


@needs_release
def test_the_replay_reproduces_the_memory_system_deltas_and_reports_what_is_absent() -> None:
    result = replay(RELEASE, PRIMARY_JUDGES)
    rows = {(r["system"], r["config"]): r for r in result["memory_systems"]}
    for key, value in PAPER_MEMORY.items():
        assert round(rows[key]["mean_delta"], 2) == value and rows[key]["n_subjects"] == 14, key
    # the paper's Supermemory native (-0.01 over 14) comes from a paid-tier rerun whose per-judge
    # files the release holds for two subjects only; the released files give the authors' own
    # recompute (docs/research/memory_systems_5judge_primary.md): -0.073 over 10 subjects
    native = rows[("supermemory", "native")]
    assert (round(native["mean_delta"], 3), native["n_subjects"]) == (-0.073, 10)
    assert (rows[("letta", "controlled")]["W"], round(rows[("letta", "controlled")]["p_value"], 4)) == (6.0, 0.0017)
    assert (rows[("mem0", "controlled")]["W"], round(rows[("mem0", "controlled")]["p_value"], 4)) == (15.0, 0.0166)
    assert sorted(result["absent"]) == sorted(
        f"results/{'hamerton' if s == 'hamerton' else 'global_' + s}/letta_fullpipeline_results.json"
        for s in PAPER_TABLE
        if s != "zitkala_sa"  # the files of 4 MiB and more are not in this copy
    )
    assert result["responses"]["read"] > 12_000 and result["parse_failures"] > 0


def test_every_file_shape_of_the_excerpt_is_read_in_the_locked_order() -> None:
    result = replay(EXCERPT, PRIMARY_JUDGES)
    assert [r["subject"] for r in result["subjects"]] == ["hamerton", "rousseau"]
    rousseau, hamerton = _row(result, "rousseau"), _row(result, "hamerton")
    # judgments_v2.json, C5 over q21, q25, q33: haiku 5,1,3; sonnet 4,1,1; opus 4,2,4; gpt4o 4,3,3; gpt54 4,1,4
    assert rousseau["C5"] == pytest.approx((3 + 2 + 10 / 3 + 10 / 3 + 3) / 5)
    # Hamerton's C4 (judgments_harmonized.json): haiku, sonnet, gpt4o, gpt54 2,1,1 and opus 2,3,3
    assert hamerton["C4"] == pytest.approx((4 * 4 / 3 + 8 / 3) / 5) and hamerton["C5"] == 1.0
    # C2c from the wide files (haiku_score 5,1,1; gpt54_score 2,1,1) and the long sonnet/opus/gpt4o files
    # scores of the five judges: Rousseau's judgments_v2 75 (3 x 5 conditions x 5), mem0 and letta 30
    # each, letta native 6 (haiku only); Hamerton's harmonized 30, wide haiku 9 and gpt54 9 (C2a,
    # C2c, C4a; his early C3_full_* rows are not the paper's), sonnet/opus/gpt4o files 27
    assert hamerton["C2c_v1"] is not None and result["scores"] == 75 + 30 + 30 + 6 + 30 + 9 + 9 + 27
    # Gemini Pro parse failures (score 0, parse_failure true) are missing, never zeros: with the
    # whole panel Hamerton's C5 stays 1.0, and his C4 gets Gemini Flash 2,1,1 and Gemini Pro's one score, 2
    every = replay(EXCERPT, ALL)
    assert _row(every, "hamerton")["C5"] == 1.0
    assert _row(every, "hamerton")["C4"] == pytest.approx((8 + 4 / 3 + 2) / 7)
    assert every["parse_failures"] == 5 + 3  # Gemini Pro's five, and gpt4o's three on Letta C1


def test_merged_files_fill_only_judges_without_their_own_file_and_backfills_are_opt_in() -> None:
    primary, every = replay(EXCERPT, PRIMARY_JUDGES), replay(EXCERPT, ALL)

    def mem0(result):
        return next(r for r in result["memory_systems"] if r["system"] == "mem0")

    # the Gemini scores: Rousseau's judgments_v2 15 (Flash), mem0_judgments_merged.json 6 (Flash: the
    # merged file repeats the five primary judges, which are not read twice), Hamerton's harmonized
    # 12 (Flash and Pro), wide gemini_score 9 (Flash) and gemini_pro_score 9
    assert every["scores"] - primary["scores"] == 15 + 6 + 12 + 9 + 9
    assert mem0(primary)["n_subjects"] == 1 and mem0(primary)["mean_delta"] != mem0(every)["mean_delta"]
    filled = replay(EXCERPT, PRIMARY_JUDGES, backfills=True)
    assert (
        primary["backfilled"] == 0
        and filled["backfilled"] == 3
        and filled["parse_failures"] == primary["parse_failures"] - 3
    )

    # gpt4o's Letta C1 cells were all parse failures; the backfill gives it scores 3, 3, 3
    def judges_on_letta_c1(release):
        return {s.judge for s in release.scores if s.system == "letta" and s.condition == "C1" and s.score is not None}

    assert "gpt4o" not in judges_on_letta_c1(read_release(EXCERPT, ["rousseau"]))
    assert "gpt4o" in judges_on_letta_c1(read_release(EXCERPT, ["rousseau"], backfills=True))
    assert primary["absent"] == ["results/global_rousseau/letta_fullpipeline_results.json"]
    assert primary["responses"] == {"read": 33, "empty": 0}


def test_release_condition_names() -> None:
    assert condition_of("C4a_full_facts_plus_spec") == ("C4a", None) == condition_of("C4a_full_all_facts_plus_spec")
    assert condition_of("C2c_full_wrong_spec") == ("C2c_v1", None)
    assert condition_of("C1_zep") == ("C1", "zep") and condition_of("C3_mem0_fp") == ("C3_native", "mem0")
    assert condition_of("C3_full_mem0") is None and condition_of("C1_unknown") is None


def test_the_replay_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "replay.json"
    assert replay_main([str(EXCERPT), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "C4a-C5: Wilcoxon signed-rank across 2 subjects" in printed
    assert "absent from this copy: results/global_rousseau/letta_fullpipeline_results.json" in printed
    assert json.loads(out.read_text())["judges"] == list(PRIMARY_JUDGES)
    with pytest.raises(SystemExit) as stopped:
        replay_main([str(tmp_path)])
    assert stopped.value.code == 4 and "is not a beyond-recall checkout" in capsys.readouterr().err


def test_a_malformed_judge_file_is_one_line_naming_it(tmp_path: Path) -> None:
    root = tmp_path / "copy"
    shutil.copytree(EXCERPT, root)
    (root / "results" / "global_rousseau" / "mem0_judgments_opus.json").write_text('{"rows": []}')
    with pytest.raises(DataError, match="mem0_judgments_opus.json: expected a list of objects"):
        replay(root, PRIMARY_JUDGES)
    (root / "results" / "global_rousseau" / "mem0_judgments_opus.json").write_text(
        '[{"condition": "C1_mem0", "judge": "opus", "score": 3}]'
    )
    with pytest.raises(DataError, match="row 0 has no integer question_id"):
        replay(root, PRIMARY_JUDGES)


# --- the real subjects through the suite ------------------------------------------------------


def test_the_study_reads_battery_facts_specs_corpus_and_pairing() -> None:
    study = Study.load(EXCERPT)
    assert study.subjects == ("hamerton", "rousseau")
    assert study.partners == {
        "hamerton": "rousseau",
        "rousseau": "hamerton",
    }  # the v2 manifest, restricted to who is here
    assert [q.id for q in study.questions("hamerton")] == [24, 28, 32]  # recall items are not behavioural predictions
    assert [q.id for q in study.questions("rousseau")] == [21, 25, 33]  # battery_v2.json: the paper's battery
    assert len(study.facts("rousseau")) == 8 and study.facts("hamerton")[0].startswith("Hamerton is the only person")
    spec = study.spec("hamerton")  # composed from the layers' injectable blocks
    assert (
        spec.startswith("## ANCHORS\n\n# EPISTEMIC ANCHORS")
        and "\n\n## CORE\n\n" in spec
        and "\n\n## UNIFIED BRIEF\n\n" in spec
    )
    assert study.spec("rousseau").startswith("# ANCHORS")
    # the training half: after the Gutenberg header, up to where heldout.txt begins
    half = study.training_half("rousseau")
    assert half is not None and "START OF" not in half and half.rstrip().endswith("I had scarcely enough to provide")
    held = (EXCERPT / "results" / "global_rousseau" / "heldout.txt").read_text().split()
    assert " ".join(half.split()[-5:]) != " ".join(held[:5]) and study.training_half("hamerton") is None
    assert truncated("a b  c d", 2) == "a b" and paragraphs("one\ntwo\n\n\nthree ") == ["one two", "three"]


@needs_release
def test_the_training_halves_have_the_papers_word_counts() -> None:
    """The release's C8 responses record how many words of training text the model got."""
    study = Study.load(RELEASE)
    for subject in study.subjects[1:]:
        recorded = json.loads((RELEASE / "results" / f"global_{subject}" / "c8_c9_results.json").read_text())[0][
            "training_words"
        ]
        half = study.training_half(subject)
        assert half is not None and len(half.split()) == int(recorded), subject


def test_the_suite_indexes_the_real_subjects(tmp_path: Path) -> None:
    suite = BehaviorSuite(SuiteOptions("full", None, None, 10, EXCERPT, tmp_path))
    ids = [e.id for e in suite.index()]
    # Hamerton: 3 questions x (5 direct + C1, C3); Rousseau: 3 x (7 direct + 2 controlled + 2 native)
    assert len(ids) == 3 * 7 + 3 * 11 and len(set(ids)) == len(ids)
    assert (
        "br-hamerton-q24-C8" not in ids
        and "br-hamerton-q24-C1_native" not in ids
        and "br-rousseau-q33-C3_native" in ids
    )
    study = Study.load(EXCERPT)
    item = suite.item("br-hamerton-q24-C2c_v2")
    assert item.view.extra["spec"] == study.spec("rousseau")  # Hamerton's v2 partner
    assert item.gold == study.questions("hamerton")[0].passage  # the verbatim held-out passage
    c4a = suite.item("br-rousseau-q21-C4a")
    assert set(c4a.view.extra) == {"facts", "spec"} and not c4a.view.retrieve
    assert c4a.strata["source"] == "beyond-recall release"
    assert c4a.view.question == study.questions("rousseau")[0].text and c4a.cluster == "br-rousseau"
    native = suite.context("br-rousseau-corpus")
    assert native.sessions and all(len(m.content) > 0 for s in native.sessions for m in s)
    assert [s[0].content for s in suite.context("br-rousseau-facts").sessions] == list(study.facts("rousseau"))
    marks = next(e.marks for e in suite.index() if e.id == "br-rousseau-q21-C3")
    assert {"behavior_C3", "behavior_controlled", "behavior_released", "behavior_with_spec"} <= set(marks)
    with pytest.raises(ConfigError):
        suite.item("br-hamerton-q24-C8")
    with pytest.raises(ConfigError):
        suite.item("br-rousseau-q99-C5")


def test_a_wrong_data_directory_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is neither a beyond-recall checkout"):
        BehaviorSuite(SuiteOptions("smoke", None, None, 10, tmp_path, tmp_path))
    (tmp_path / "data" / "global_subjects").mkdir(parents=True)
    with pytest.raises(ConfigError, match="is not a beyond-recall checkout"):
        BehaviorSuite(SuiteOptions("smoke", None, None, 10, tmp_path, tmp_path))


def _script(request: Request) -> str:
    text = request.messages[-1]["content"]
    if text.startswith("You are evaluating"):
        return "4" if "I would write it all down" in text else "2"
    return "I would write it all down." if "Behavioral specification:" in text else "I cannot say."


@pytest.mark.slow
def test_through_pytest_with_an_llm_responder_and_judge(suite_pytester: pytest.Pytester) -> None:
    report = suite_pytester.path / "released.json"
    with LLMServer(_script) as server:
        result = suite_pytester.runpytest_subprocess(
            "--memsystem=context",
            "--memeval-suite=behavior",
            f"--memeval-data={EXCERPT}",
            "-k",
            "q21 or q24",
            "--memeval-responder=openai:responder",
            "--memeval-judge=openai:judge",
            f"--memeval-base-url={server.base_url}",
            f"--memeval-report={report}",
            "-p",
            "no:cacheprovider",
            "--strict-markers",
        )
        asked = [r for r in server.requests if not r.messages[-1]["content"].startswith("You are evaluating")]
        judged = [
            r.messages[-1]["content"]
            for r in server.requests
            if r.messages[-1]["content"].startswith("You are evaluating")
        ]
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()[-2000:]
    data = json.loads(report.read_text())
    (run,) = data["runs"]
    assert run["n_items"] == 7 + 11 and run["n_errors"] == 0
    by_condition = {r["strata"]["condition"]: r for r in data["records"] if r["strata"]["subject"] == "br-rousseau"}
    assert by_condition["C2a"]["score"] == 4.0 and by_condition["C5"]["score"] == 2.0
    assert run["extra"]["subjects"]["br-rousseau"]["C2a"] == 4.0
    passage = Study.load(EXCERPT).questions("rousseau")[0].passage
    assert any(passage[:60] in j for j in judged)  # the judge compares with the verbatim held-out passage
    assert any("Known facts:" in r.messages[-1]["content"] for r in asked)
    # offline, the release cannot be answered or graded: every item is a counted error with one reason
    offline = suite_pytester.runpytest_subprocess(
        "--memsystem=none",
        "--memeval-suite=behavior",
        f"--memeval-data={EXCERPT}",
        "-k",
        "q24-C5",
        f"--memeval-report={report}",
        "-p",
        "no:cacheprovider",
    )
    assert offline.ret == pytest.ExitCode.TESTS_FAILED
    (record,) = json.loads(report.read_text())["records"]
    # (the record schema is being retyped: the one-line reason is `error` now, `reason` with status "error" next)
    assert "use an LLM responder" in record["reason"]
