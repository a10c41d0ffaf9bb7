"""Partial results labelled where people look first (issue 41, item 2; docs/reports.md):
a generated sample, a subset of a suite and an incomplete run are named in the closing
table, the HTML headline and the JSON; an incomplete run's last line says how many items
ran and the command that resumes it; a suite's headline metric does not change with the
items that ran."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from harness import make_record, suite_options

from pytest_memeval.analysis.partial import SessionEnd, incomplete_run, selected_count, session_incomplete, subset_of
from pytest_memeval.rendering.html import render_html
from pytest_memeval.rendering.terminal import Headline, headline_text, overview_lines
from pytest_memeval.results.records import Incomplete, Metric, Report, RunKey, RunSummary, Subset, SuiteSummary
from pytest_memeval.running.registry import available_suites, load_suite

KEY = RunKey("locomo", "chroma")


def test_every_bundled_suite_on_its_generated_data_is_a_sample(tmp_path: Path) -> None:
    for name, target in available_suites().items():
        assert load_suite(target)(suite_options(tmp_path)).sample(), name


def test_locomo_on_the_released_file_is_no_sample(tmp_path: Path) -> None:
    from pytest_memeval.suites.locomo import write_sample
    from pytest_memeval.suites.locomo.suite import LocomoSuite

    data = tmp_path / "data"
    data.mkdir()
    write_sample(data / "locomo10.json")
    assert LocomoSuite(suite_options(tmp_path, data_dir=data)).sample() == ""


def partial_report() -> Report:
    f1 = Metric(62.54, (60.7, 63.0), 40)
    runs = (
        RunSummary(KEY, 40, 40, 0, 0, SuiteSummary({"f1": f1}), sample="generated data, not the locomo release"),
        RunSummary(
            RunKey("multisource", "chroma"),
            98,
            98,
            0,
            0,
            SuiteSummary({"accuracy": Metric(0.0, no_interval="no variation in 12 clusters")}),
            subset=Subset(98, 216),
            incomplete="98 of 120 selected items ran",
        ),
    )
    return Report(
        {}, runs, (), incomplete=Incomplete("interrupted", 138, 160, "pytest --memsystem=chroma --memeval-resume")
    )


HEADLINES = {KEY: Headline("f1"), RunKey("multisource", "chroma"): Headline("accuracy")}


def test_the_closing_table_labels_a_sample_a_subset_and_an_incomplete_run() -> None:
    _, lines = overview_lines(partial_report(), HEADLINES, [])
    assert lines[0].split()[:6] == ["suite", "run", "items", "wrong", "errors", "labels"]
    assert lines[1].split()[:6] == ["locomo", "chroma", "40", "0", "0", "sample"]
    assert "f1 62.540 [60.700, 63.000]" in lines[1]
    assert (
        "subset 98 of 216, incomplete" in lines[2] and "accuracy 0.000 [n/a: no variation in 12 clusters]" in lines[2]
    )
    assert lines[3].startswith("sample: generated data, not the benchmark's release")
    assert lines[4].startswith("subset N of M: the selection (-k, -m, --lf, --deselect, one shard)")
    assert "incomplete: 138 of 160 selected items ran (interrupted)" in lines


def test_the_html_headline_labels_them_and_says_first_what_is_incomplete() -> None:
    page = render_html(partial_report(), headlines=HEADLINES)
    header = page[page.index("<header>") : page.index("</header>")]
    assert "Incomplete: 138 of 160 selected items ran (interrupted); resume with: pytest --memsystem=chroma" in header
    assert "1 run on generated data, not the benchmark&#x27;s release: locomo" in header
    headline = page[page.index('<section id="headline">') :]
    headline = headline[: headline.index("</section>")]
    assert headline.count('class="badge partial"') == 3
    assert ">subset 98 of 216<" in headline and ">incomplete<" in headline and ">sample<" in headline


def test_the_json_names_them_per_run_and_for_the_session() -> None:
    data = partial_report().to_json()
    locomo, multisource = data["runs"]
    assert locomo["sample"] and locomo["labels"] == ["sample"]
    assert multisource["labels"] == ["subset 98 of 216", "incomplete"]
    assert data["incomplete"] == {
        "reason": "interrupted",
        "ran": 138,
        "selected": 160,
        "resume": "pytest --memsystem=chroma --memeval-resume",
    }
    assert Report.from_json(json.loads(json.dumps(data))).incomplete == partial_report().incomplete


def test_a_run_without_its_suites_headline_metric_says_na_and_why() -> None:
    """behavior said `C1_native` in one shard and `C1` in another; knowme switched to
    `over_abstention` under --lf: the suite fixes its headline."""
    behavior = load_suite(available_suites()["behavior"])
    knowme = load_suite(available_suites()["knowme"])
    assert (behavior.headline(), knowme.headline()) == ("C1", "t1_t2_balance")
    native_only = RunSummary(RunKey("behavior", "m"), 4, 4, 0, 0, SuiteSummary({"C1_native": Metric(3.9, (3.6, 4.2))}))
    assert headline_text(native_only, Headline("C1")) == "C1 n/a (not defined on the items that ran)"
    nothing = RunSummary(RunKey("behavior", "m"), 4, 0, 0, 4)
    assert headline_text(nothing, Headline("C1")) == "C1 n/a (no item scored)"


def records(ids: list[str]) -> list:  # type: ignore[type-arg]
    return [make_record(i, suite="toy", memsystem="m", cluster=i[0]) for i in ids]


def test_an_interrupted_run_is_incomplete_not_a_subset() -> None:
    """What was collected tells a selection (-k) from items that never ran (Ctrl-C)."""
    ran = records(["a1", "a2", "b1"])
    collected = {("toy", "m", 10): frozenset({("a1", 0), ("a2", 0), ("b1", 0), ("b2", 0)})}
    interrupted = SessionEnd("interrupted", collected, "pytest --memeval-resume")
    expected = frozenset(collected[("toy", "m", 10)])
    assert subset_of(ran, expected, 4) is None  # all four were selected
    assert incomplete_run(ran, expected, over_max_errors=False) == "3 of 4 selected items ran"
    assert selected_count([ran], interrupted) == 4
    assert session_incomplete(interrupted, 1, 3, 4, "") == Incomplete("interrupted", 3, 4, "pytest --memeval-resume")
    # -k selected three of the suite's four: a subset, complete
    selected = SessionEnd("", {("toy", "m", 10): frozenset({("a1", 0), ("a2", 0), ("b1", 0)})})
    assert subset_of(ran, frozenset(selected.selected[("toy", "m", 10)]), 4) == Subset(3, 4)  # type: ignore[index]
    assert incomplete_run(ran, frozenset({("a1", 0), ("a2", 0), ("b1", 0)}), over_max_errors=False) == ""
    assert session_incomplete(selected, 0, 3, 3, "") is None


def test_errors_beyond_the_allowance_make_a_run_incomplete() -> None:
    failed = [make_record("x", status="error", reason="boom"), *records(["a1"])]
    assert incomplete_run(failed, None, over_max_errors=True) == "1 item ended in an error or an invalid answer"
    assert incomplete_run(failed, None, over_max_errors=False) == ""


# --- as a run shows them -----------------------------------------------------------------------

INTERRUPT = """
import pytest

def pytest_runtest_setup(item):
    if "dev-" in item.nodeid:
        raise KeyboardInterrupt
"""


@pytest.mark.slow
def test_an_interrupted_run_writes_its_reports_marked_and_its_last_line_resumes_it(
    toy_pytester: pytest.Pytester, default_reports: None
) -> None:
    conftest = toy_pytester.makeconftest(INTERRUPT)
    result = toy_pytester.runpytest("test_toy.py", "--memsystem=context", "-p", "no:randomly", no_reraise_ctrlc=True)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    report = json.loads((toy_pytester.path / "memeval-report.json").read_text())
    assert report["incomplete"]["ran"] == 9 and report["incomplete"]["selected"] == 12
    assert report["runs"][0]["labels"] == ["incomplete"]
    assert (
        "Incomplete: 9 of 12 selected items ran (interrupted)"
        in (toy_pytester.path / "memeval-report.html").read_text()
    )
    result.stdout.fnmatch_lines(["toy  *context  *9  *0  *0  incomplete  accuracy 1.000 *"])
    last = result.outlines[-1]
    assert last.startswith("memeval: incomplete: 9 of 12 selected items ran (interrupted); resume with: ")
    assert " test_toy.py --memsystem=context -p no:randomly " in last and last.endswith(" --memeval-resume")
    assert result.outlines[-2] == "memeval: exit status 2: the run was interrupted"
    conftest.unlink()
    resumed = toy_pytester.runpytest("test_toy.py", "--memsystem=context", "-p", "no:randomly", "--memeval-resume")
    assert resumed.ret == pytest.ExitCode.OK
    report = json.loads((toy_pytester.path / "memeval-report.json").read_text())
    assert report["incomplete"] is None and report["runs"][0]["labels"] == [] and report["runs"][0]["n_items"] == 12


@pytest.mark.slow
def test_a_last_failed_run_is_a_subset_with_its_suites_headline(
    toy_pytester: pytest.Pytester, default_reports: None
) -> None:
    toy_pytester.runpytest("test_toy.py", "--memsystem=faulty_adapters:ForgetsEveryOtherTime")
    result = toy_pytester.runpytest("test_toy.py", "--memsystem=faulty_adapters:ForgetsEveryOtherTime", "--lf")
    report = json.loads((toy_pytester.path / "memeval-report.json").read_text())
    (run,) = report["runs"]
    assert run["subset"]["of"] == 12 and run["labels"] == [f"subset {run['subset']['n']} of 12"]
    result.stdout.fnmatch_lines([f"toy *subset {run['subset']['n']} of 12  accuracy *"])
