"""The conformance kit (pytest_memeval.testing), run as users run it, against good and bad adapters."""

from __future__ import annotations

from pathlib import Path

import kit_helpers
import pytest
from kit_helpers import failed_tests

pytestmark = pytest.mark.slow

#: checks that also call retrieve with a small k, so an adapter that ignores k fails them too
K_CASCADE = {
    "test_retrieve_honours_k",
    "test_results_are_ranked",
    "test_dump_agrees_with_what_was_stored",
    "test_unicode_survives",
    "test_empty_queries",
}


@pytest.fixture
def kit(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.Pytester:
    return kit_helpers.prepare(pytester, monkeypatch, tmp_path)


def run_kit(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return kit_helpers.run(pytester, *args)


def test_without_a_memsystem_every_check_is_skipped(kit: pytest.Pytester) -> None:
    result = run_kit(kit)
    outcomes = result.parseoutcomes()
    assert outcomes.get("skipped", 0) > 10 and "passed" not in outcomes and "failed" not in outcomes
    result.stdout.fnmatch_lines(["*pass --memsystem=NAME*"])


def test_a_correct_small_adapter_passes_everything(kit: pytest.Pytester) -> None:
    result = run_kit(kit, "--memsystem=kit_adapters:ReferenceMemory")
    assert result.ret == 0, result.stdout.str()
    # the floor check and the provenance check (it declares none) do not apply
    result.assert_outcomes(passed=25, skipped=2)


def test_an_adapter_that_cannot_list_skips_only_the_dump_check(kit: pytest.Pytester) -> None:
    result = run_kit(kit, "--memsystem=kit_adapters:CannotList")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=24, skipped=3)
    result.stdout.fnmatch_lines(["*cannot list a namespace*"])


@pytest.mark.parametrize(
    "adapter, expected_failures",
    [
        (
            "SharedNamespaces",
            {
                "test_namespaces_are_isolated",
                "test_reset_empties_its_namespace_only",
                "test_namespace_names_are_opaque",
                "test_identical_facts_in_two_namespaces_stay_apart",
            },
        ),
        (
            "ResetForgetsNothing",
            {
                "test_reset_empties_its_namespace_only",
                "test_identical_facts_in_two_namespaces_stay_apart",
                "test_ingest_is_complete_when_it_returns",
            },
        ),
        ("IgnoresK", {"test_retrieve_honours_k"}),
        ("ClaimsSourcesItLacks", {"test_declared_provenance_names_the_ingested_messages"}),
        ("ScoresAscending", {"test_results_are_ranked"}),
        ("SwallowsErrors", {"test_malformed_input_raises"}),
        ("AsciiOnly", {"test_unicode_survives"}),
        ("TruncatesLong", {"test_very_long_inputs"}),
        ("EmptyQueryFails", {"test_empty_queries"}),
        ("DumpInventsIds", {"test_dump_agrees_with_what_was_stored"}),
        ("CloseTwiceFails", {"test_close_is_idempotent"}),
        ("DeduplicatesAcrossNamespaces", {"test_identical_facts_in_two_namespaces_stay_apart"}),
    ],
)
def test_each_broken_promise_fails_its_check(kit: pytest.Pytester, adapter: str, expected_failures: set[str]) -> None:
    result = run_kit(kit, f"--memsystem=kit_adapters:{adapter}")
    assert result.ret == 1
    failed = failed_tests(result)
    allowed = expected_failures | (K_CASCADE if "test_retrieve_honours_k" in expected_failures else set())
    assert expected_failures <= failed <= allowed, result.stdout.str()


def test_background_ingestion_fails_its_own_check_with_a_clear_message(kit: pytest.Pytester) -> None:
    """Every check that reads right after ingest fails too; this one says why."""
    result = run_kit(kit, "--memsystem=kit_adapters:IngestsInTheBackground", "-k", "complete_when_it_returns")
    assert failed_tests(result) == {"test_ingest_is_complete_when_it_returns"}, result.stdout.str()
    result.stdout.fnmatch_lines(["*right after ingest only 0 of 6 facts are there*"])


def test_an_adapter_the_offline_readers_cannot_read_is_told_what_to_change(kit: pytest.Pytester) -> None:
    result = run_kit(kit, "--memsystem=kit_adapters:SaysWhoSaidIt", "-k", "offline_readers")
    assert failed_tests(result) == {"test_the_offline_readers_read_its_memories"}, result.stdout.str()
    result.stdout.fnmatch_lines(
        ["*the offline readers of knowme, longmemeval cannot read this adapter's memories: it stored**Memory.verbatim*"]
    )


def test_none_passes_the_checks_that_apply_to_a_floor(kit: pytest.Pytester) -> None:
    result = run_kit(kit, "--memsystem=none")
    assert result.ret == 0, result.stdout.str()
    outcomes = result.parseoutcomes()
    # the floor check, the protocol, empty namespace/query/session checks and close run
    assert outcomes["passed"] == 8 and outcomes["skipped"] == 19, outcomes


def test_context_passes_without_the_k_check(kit: pytest.Pytester) -> None:
    """The ceiling declares honours_k = False: everything else applies to it."""
    result = run_kit(kit, "--memsystem=context")
    assert result.ret == 0, result.stdout.str()
    # skipped: five k checks, the floor check, the ranking check (context gives no scores);
    # it declares keeps_sources, so the provenance check runs
    result.assert_outcomes(passed=20, skipped=7)


def test_an_adapter_that_declares_it_ignores_k_is_not_held_to_k(kit: pytest.Pytester) -> None:
    result = run_kit(kit, "--memsystem=kit_adapters:DeclaresItIgnoresK")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=20, skipped=7)


def test_chroma_embedded_passes(kit: pytest.Pytester) -> None:
    result = run_kit(kit, "--memsystem=chroma", "--memeval-embedder=hashing")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=26, skipped=1)  # its chunks name their messages: the provenance check runs


def test_several_memsystems_are_checked_side_by_side(kit: pytest.Pytester) -> None:
    result = run_kit(kit, "--memsystem=kit_adapters:ReferenceMemory,none", "--collect-only", "-q")
    result.stdout.fnmatch_lines(
        ["*test_satisfies_the_protocol[[]kit_adapters:ReferenceMemory[]]", "*test_satisfies_the_protocol[[]none[]]"]
    )


def test_the_example_fts_adapter_passes(kit: pytest.Pytester) -> None:
    result = run_kit(kit, "--memsystem=fts_memory:FTSMemory")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=25, skipped=2)  # it declares no provenance (keeps_sources)
