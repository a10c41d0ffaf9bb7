"""A judge of --memeval-judge applies to the selected suites it fits, and the run says which:
`default` without --memeval-suite judges the suites whose protocol names a judge model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from harness import CommandLine, option_defaults

from pytest_memeval.running.run_setup import prepare_run


@pytest.fixture
def defaults(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, Any]:
    monkeypatch.setenv("MEMEVAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-judge-fit")
    return option_defaults(request.config)


def test_default_without_suites_judges_the_suites_whose_protocol_names_a_model(defaults: dict[str, Any]) -> None:
    prepared = prepare_run(CommandLine(defaults, ["--memsystem=context", "--memeval-judge=default"]), True)
    assert prepared.notes == (
        "--memeval-judge default judges locomo, longmemeval, halumem, beam; memfail, knowme, behavior keep their own judges "
        "(their protocols name no judge model: add openai:MODEL)",
    )
    state = prepared.state
    assert state.judge_name(state.suite("locomo")) == "gpt-4o-mini@mem0-j"
    assert state.judge_name(state.suite("longmemeval")) == "gpt-4o-2024-08-06@longmemeval"
    assert state.judge_name(state.suite("beam")) == "gpt-4.1-mini@beam"
    assert state.judge_name(state.suite("memfail")) == "deterministic"
    assert prepared.state.settings.llm is not None and prepared.state.settings.llm.model == "gpt-4o-mini"


def test_a_panel_keeps_the_judges_that_fit_each_suite(defaults: dict[str, Any]) -> None:
    args = ["--memsystem=context", "--memeval-suite=locomo,memfail", "--memeval-judge=default,openai:judge-b"]
    prepared = prepare_run(CommandLine(defaults, args), True)
    state = prepared.state
    assert state.judge_name(state.suite("locomo")) == "gpt-4o-mini@mem0-j,judge-b@mem0-j"
    assert state.judge_name(state.suite("memfail")) == "judge-b"
    assert prepared.notes == (
        "--memeval-judge default judges locomo; memfail keeps its own judge "
        "(its protocol names no judge model: add openai:MODEL)",
    )


def test_a_judge_that_fits_every_selected_suite_says_nothing(defaults: dict[str, Any]) -> None:
    args = ["--memsystem=context", "--memeval-suite=locomo,memfail", "--memeval-judge=openai:judge"]
    assert prepare_run(CommandLine(defaults, args), True).notes == ()
