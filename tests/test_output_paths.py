"""Two outputs of a run at one file are refused before the run, however the path is spelled.

The audit's cases: `--memeval-report=run.json --memeval-html=run.json` left only the page;
`--memeval-html` or `--junitxml` at the journal's path was removed at the end with the
journal. The option matrix of test_bad_input.py covers the plain spellings through the
run's preparation; here, in this process, the spellings that only a path resolution sees.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pytest_memeval.config.outputs import check_outputs, journal_path, run_outputs
from pytest_memeval.config.shard_syntax import MAX_SHARDS, Shard
from pytest_memeval.errors import ConfigError
from pytest_memeval.running.shards import assign


def _refusal(report: Path | None, html: Path | None = None, junitxml: str | None = None) -> str:
    with pytest.raises(ConfigError) as raised:
        check_outputs(run_outputs(report, html, junitxml, None))
    message = str(raised.value)
    assert "\n" not in message
    return message


def test_the_journal_and_junit_xml_at_one_path_are_refused(tmp_path: Path) -> None:
    report = tmp_path / "run.json"
    message = _refusal(report, junitxml=str(journal_path(report)))
    assert message.startswith("--junitxml: ") and "is also the journal beside --memeval-report" in message


def test_a_relative_and_an_absolute_spelling_of_one_file_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    message = _refusal(tmp_path / "out" / ".." / "run.json", junitxml="run.json")
    assert message.startswith("--junitxml: run.json is also the JSON report (--memeval-report)")


def test_a_symlink_to_another_output_is_refused_also_before_that_file_exists(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    (tmp_path / "link.json").symlink_to(page)  # dangling until the page is written
    message = _refusal(tmp_path / "link.json", html=page)
    assert message.startswith(f"--memeval-html: {page} is also the JSON report")


def test_a_hard_link_to_another_output_is_refused(tmp_path: Path) -> None:
    (tmp_path / "run.json").write_text("{}")
    os.link(tmp_path / "run.json", tmp_path / "page.html")
    assert _refusal(tmp_path / "run.json", html=tmp_path / "page.html").startswith("--memeval-html: ")


def test_distinct_outputs_pass(tmp_path: Path) -> None:
    report = tmp_path / "run.json"
    check_outputs(run_outputs(report, tmp_path / "run.html", str(tmp_path / "junit.xml"), tmp_path / "calls.sqlite"))
    check_outputs(run_outputs(None, None, None, None))


def test_a_shard_count_is_bounded_before_anything_is_allocated() -> None:
    with pytest.raises(ConfigError, match=f"N is at most {MAX_SHARDS}"):
        Shard.parse("1/99999999999999999999999")
    # more shards than units: one unit each, the rest empty, in the memory of the units alone
    units = {("toy", f"c{i}"): 1.0 for i in range(3)}
    assert sorted(assign(units, dict.fromkeys(units, 1), 10**12).values()) == [1, 2, 3]
