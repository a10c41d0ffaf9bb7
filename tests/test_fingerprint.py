"""The protocol fingerprint: its value, what a suite contributes, and the refusals it drives."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from harness import make_record, make_settings
from llm_server import LLMServer

from pytest_memeval.analysis.comparability import file_digests, protocol_note, sha256_of, suite_protocol
from pytest_memeval.config.judge_specs import parse_judge
from pytest_memeval.config.settings import Settings
from pytest_memeval.errors import ConfigError
from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.results.baseline import Baseline, load_baseline
from pytest_memeval.results.fingerprint import Fingerprint, FingerprintError, SuiteProtocol, public_settings
from pytest_memeval.results.records import Report

TOY_PROMPT = SuiteProtocol("toy", "1", "smoke", prompts={"toy_judge": "a" * 64, "toy_answer": "b" * 64}, judges=("j",))
FINGERPRINT = Fingerprint(
    suites=(TOY_PROMPT,),
    responder="openai:m",
    llm={"temperature": 0.0, "max_tokens": 64},
    ks=(10,),
    systems={"chroma": {"target": "pytest_memeval.memory.chroma:ChromaMemory", "settings": {"chunk": 200}}},
    embedder="hashing",
)


def _settings(tmp_path: Path, **changes: Any) -> Settings:
    return make_settings("context", **{"embedder": "hashing", "cache_dir": tmp_path / "cache", **changes})


def test_a_fingerprint_round_trips_through_json_and_its_digest_is_stable() -> None:
    data = json.loads(json.dumps(FINGERPRINT.to_json()))
    again = Fingerprint.from_json(data)
    assert again == FINGERPRINT
    assert again.protocol_digest() == FINGERPRINT.protocol_digest()
    assert FINGERPRINT.short() == (
        f"protocol {FINGERPRINT.protocol_digest()[:12]}, systems {FINGERPRINT.systems_digest()[:12]}"
    )


def test_a_fingerprint_edited_by_hand_is_refused() -> None:
    data = FINGERPRINT.to_json()
    data["protocol"]["responder"] = "openai:other"
    with pytest.raises(FingerprintError, match="digest does not match"):
        Fingerprint.from_json(data)


def test_the_first_difference_names_the_prompt_in_one_line() -> None:
    other = replace(FINGERPRINT, suites=(replace(TOY_PROMPT, prompts={**TOY_PROMPT.prompts, "toy_judge": "c" * 64}),))
    difference = FINGERPRINT.protocol_difference(other, ("in a.json", "in b.json"))
    assert difference == "suites.toy.prompts.toy_judge is sha256 aaaaaaaaaaaa in a.json, sha256 cccccccccccc in b.json"


def test_memory_system_settings_are_outside_the_protocol_but_inside_the_fingerprint() -> None:
    other = replace(FINGERPRINT, systems={"chroma": {"target": "x", "settings": {"chunk": 400}}})
    assert FINGERPRINT.protocol_difference(other) is None
    assert FINGERPRINT.protocol_digest() == other.protocol_digest()
    assert (
        FINGERPRINT.difference(other)
        == 'systems.memsystems.chroma.target is "pytest_memeval.memory.chroma:ChromaMemory" here, "x" there'
    )


def test_suites_only_one_side_ran_are_a_difference_unless_only_shared_ones_count() -> None:
    more = FINGERPRINT.with_suite(SuiteProtocol("other", "2", "small"))
    assert more.protocol_difference(FINGERPRINT) == "suites.other is present here, absent there"
    assert more.protocol_difference(FINGERPRINT, shared_suites_only=True) is None
    assert FINGERPRINT.union(more) == more


def test_secrets_never_enter_the_fingerprint() -> None:
    settings = {
        "api_key": "sk-1",
        "host": "https://user:pw@db.example/x",
        "nested": {"auth_token": "t", "size": 3},
        "Password": "p",
        "chunk": 200,
        "llm_max_tokens": 256,  # a number is no secret, and it changes what a model writes
    }
    assert public_settings(settings) == {
        "chunk": 200,
        "host": "https://db.example/x",
        "llm_max_tokens": 256,
        "nested": {"size": 3},
    }


def test_data_files_are_hashed_once_per_content(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "sub").mkdir(parents=True)
    first, second = data / "a.json", data / "sub" / "b.json"
    first.write_text("one")
    second.write_text("two")
    digests = file_digests([first, second], data, tmp_path / "cache")
    assert digests == {"a.json": sha256_of(first), "sub/b.json": sha256_of(second)}
    first.write_text("uno")  # a new size: hashed again, not read from the cache
    assert file_digests([first], data, tmp_path / "cache")["a.json"] == sha256_of(first) != digests["a.json"]


def test_a_suite_contributes_its_version_data_and_prompts_by_default(tmp_path: Path) -> None:
    from toysuite import ToySuite

    from pytest_memeval.llm.templates import prompts_dir

    class Released(ToySuite):
        name = "multisource"  # named like a bundled suite, so its bundled templates are its prompts
        reads_data_dir = True
        protocol_version = "3"

    data = tmp_path / "release"
    data.mkdir()
    (data / "items.json").write_text("[]")
    (data / ".hidden").write_text("x")
    options = SuiteOptions("small", None, (1,), 10, data, tmp_path / "cache", params={"reader": "strict"})
    suite = Released(options)
    offline = suite_protocol(suite, _settings(tmp_path))
    assert offline == SuiteProtocol(
        "multisource", "3", "small", None, (1,), {"reader": "strict"}, {"items.json": sha256_of(data / "items.json")}
    )
    llm = suite_protocol(suite, _settings(tmp_path, responder="openai:m"))
    template = prompts_dir() / "multisource_direct.toml"
    assert llm.prompts == {"multisource_direct": sha256_of(template)}
    generated = suite_protocol(ToySuite(replace(options, data_dir=None)), _settings(tmp_path))
    assert generated.data == {} and generated.to_json()["data"] == "generated"


def _report_file(path: Path, fingerprint: Fingerprint | None) -> Path:
    report = Report({}, (), (make_record(suite="toy"),), fingerprint=fingerprint)
    path.write_text(json.dumps(report.to_json()))
    return path


def test_comparing_reports_with_different_judge_prompts_fails_in_one_line_naming_the_prompt(tmp_path: Path) -> None:
    changed = replace(FINGERPRINT, suites=(replace(TOY_PROMPT, prompts={**TOY_PROMPT.prompts, "toy_judge": "d" * 64}),))
    baseline = load_baseline(_report_file(tmp_path / "base.json", changed))
    with pytest.raises(ConfigError) as refused:
        protocol_note(baseline, FINGERPRINT, any_protocol=False)
    message = str(refused.value)
    assert "\n" not in message
    assert message == (
        "--memeval-baseline: base.json was run under another protocol: suites.toy.prompts.toy_judge is "
        "sha256 aaaaaaaaaaaa in this run, sha256 dddddddddddd in base.json (--memeval-any-protocol compares anyway)"
    )
    note = protocol_note(baseline, FINGERPRINT, any_protocol=True)
    assert note is not None and note.startswith(
        "--memeval-baseline: compared across protocols (--memeval-any-protocol)"
    )
    assert "toy_judge" in note


def test_a_baseline_of_the_same_protocol_or_without_a_fingerprint_is_compared(tmp_path: Path) -> None:
    same = load_baseline(_report_file(tmp_path / "same.json", FINGERPRINT))
    assert protocol_note(same, FINGERPRINT, any_protocol=False) is None
    old = Baseline(tmp_path / "old.json", same.records, None)
    assert protocol_note(old, FINGERPRINT, any_protocol=False) == (
        "--memeval-baseline: old.json has no protocol fingerprint (written before fingerprints): not checked"
    )


def test_the_report_keeps_its_fingerprint_and_notes_through_json() -> None:
    report = Report({}, (), (), fingerprint=FINGERPRINT, protocol_notes=("compared across protocols",))
    assert Report.from_json(json.loads(json.dumps(report.to_json()))) == report


PROMPTED_TEST = """
import pytest
from pytest_memeval import check

@pytest.mark.memeval("campaign_suite:PromptedToySuite")
def test_prompted(memeval_result):
    check(memeval_result)
"""


@pytest.mark.slow
def test_a_run_refuses_a_baseline_whose_judge_prompt_differs(
    suite_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """End to end: the same command with an edited judge template is refused at configure
    (exit 4) in one line naming the template; --memeval-any-protocol compares and says so."""
    pytester = suite_pytester
    pytester.makepyfile(test_prompted=PROMPTED_TEST)
    prompt = pytester.path / "prompted_judge.toml"
    prompt.write_text('name = "prompted_judge"\nversion = "1"\nuser = "Is $answer right?"\n')
    monkeypatch.setenv("TOY_PROMPT", str(prompt))
    with LLMServer("yes") as server:  # the endpoint the judge is checked against before the run
        llm = ("--memeval-judge=openai:scripted", f"--memeval-base-url={server.base_url}")
        base = pytester.path / "base.json"
        first = pytester.runpytest_subprocess(
            "test_prompted.py", "--memsystem=context", f"--memeval-report={base}", *llm
        )
        assert first.ret == pytest.ExitCode.OK, first.stdout.str()
        recorded = json.loads(base.read_text())["fingerprint"]
        assert "prompted_judge" in recorded["protocol"]["suites"]["prompted"]["prompts"]
        assert f"memeval fingerprint: protocol {recorded['digest'][:12]}" in first.stdout.str()

        prompt.write_text('name = "prompted_judge"\nversion = "2"\nuser = "Is $answer correct?"\n')
        again = ("test_prompted.py", "--memsystem=context", f"--memeval-baseline={base}", *llm)
        refused = pytester.runpytest_subprocess(*again)
        assert refused.ret == pytest.ExitCode.USAGE_ERROR
        errors = [line for line in refused.stderr.lines if "another protocol" in line]
        assert len(errors) == 1 and "suites.prompted.prompts.prompted_judge is sha256" in errors[0]
        assert "Traceback" not in refused.stderr.str()

        allowed = pytester.runpytest_subprocess(
            *again, "--memeval-any-protocol", f"--memeval-report={pytester.path / 'b.json'}"
        )
        assert allowed.ret == pytest.ExitCode.OK, allowed.stdout.str()
        notes = json.loads((pytester.path / "b.json").read_text())["protocol_notes"]
        assert len(notes) == 1 and "prompted_judge" in notes[0] and "--memeval-any-protocol" in notes[0]
        assert "compared across protocols" in allowed.stdout.str()


def test_locomo_fingerprints_locomo10_json_alone_and_its_prompts(tmp_path: Path) -> None:
    from pytest_memeval.suites.locomo.sample import write_sample
    from pytest_memeval.suites.locomo.suite import LocomoSuite

    clone = tmp_path / "LoCoMo"
    (clone / "data").mkdir(parents=True)
    release = write_sample(clone / "data" / "locomo10.json")
    (clone / "README.md").write_text("not the protocol")
    suite = LocomoSuite(SuiteOptions("smoke", None, None, 10, clone, tmp_path / "cache"))
    protocol = suite_protocol(suite, _settings(tmp_path, judges=(parse_judge("openai:gpt-4o-mini"),)))
    assert protocol.data == {"data/locomo10.json": sha256_of(release)}
    assert set(protocol.prompts) == {"locomo_answer", "locomo_judge_j"}
    assert protocol.judges == ("gpt-4o-mini@mem0-j",)  # the suite's own prompt, named as its records name it


def test_longmemeval_fingerprints_the_one_released_file_it_reads(tmp_path: Path) -> None:
    from pytest_memeval.suites.longmemeval.sample import write_sample
    from pytest_memeval.suites.longmemeval.suite import LongMemEvalSuite

    release = tmp_path / "release"
    write_sample(release)  # all three files, as the release ships them
    options = SuiteOptions("smoke", None, None, 10, release, tmp_path / "cache", params={"file": "oracle"})
    protocol = suite_protocol(LongMemEvalSuite(options), _settings(tmp_path))
    oracle = release / "longmemeval_oracle.json"
    assert protocol.data == {"longmemeval_oracle.json": sha256_of(oracle)}
    assert protocol.params == {"file": "oracle"}
    generated = suite_protocol(LongMemEvalSuite(replace(options, data_dir=None)), _settings(tmp_path))
    assert generated.to_json()["data"] == "generated"
