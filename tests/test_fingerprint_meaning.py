"""Fingerprints compare meaning, not spelling: for every --memeval-suite-option of every
bundled suite and every option of the plugin that enters the protocol, two command lines
that mean the same give one fingerprint, and two that differ give two, naming the setting.

Each command line goes the plugin's way to the fingerprint in this process: options parsed
and checked against the suites (as `run_setup.prepare_run` does, without indexing their
items), the suites built, the run's fingerprint computed (`run_fingerprint`).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from harness import CommandLine
from pytest_memeval.suites.locomo.judge import DEFAULT_PASS_F1
from pytest_memeval.suites.longmemeval.llm import OFFICIAL_JUDGE_MODEL
from pytest_memeval.suites.memfail.llm_prompt import DEFAULT_VARIANT
from pytest_memeval.suites.multisource.reader import DEFAULT_READER, READERS

from pytest_memeval.analysis.comparability import in_terms_of, protocol_note, run_fingerprint
from pytest_memeval.config.judge_specs import with_protocol_model
from pytest_memeval.config.options import read_settings
from pytest_memeval.errors import ConfigError
from pytest_memeval.framework.suite import Suite
from pytest_memeval.results.baseline import Baseline
from pytest_memeval.results.fingerprint import Fingerprint
from pytest_memeval.running.registry import available_suites, load_suite
from pytest_memeval.running.settings_checks import check_against_suites, judged_suites
from pytest_memeval.running.state import RunState

KNOWME_DATA = Path(__file__).parent / "data" / "knowme"
#: a rubric file in the KnowMe-Bench release's format: one `# type` section per task family
RUBRIC = "\n\n".join(
    f"# type {tasks}\n\nGrade it. Question: {{{{question}}}} Reference: {{{{reference_answer}}}} "
    "Model: {{model_answer}}"
    for tasks in (
        "Logical Event Ordering",
        "Mnestic Trigger Analysis、Temporal Reasoning",
        "Expert-Annotated Psychoanalysis, Mind-Body Interaction",
        "Adversarial Abstention、Information Extraction",
    )
)
OTHER_READER = next(name for name in READERS if name != DEFAULT_READER)
OTHER_PROMPT = "guided" if DEFAULT_VARIANT != "guided" else "graded"


@pytest.fixture(scope="module")
def defaults(request: pytest.FixtureRequest) -> dict[str, Any]:
    options = vars(request.config.option)
    assert options["memsystem"] is None, "run the plugin's tests without memeval options"
    return {name: value for name, value in options.items() if name.startswith(("memeval_", "memsystem"))}


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A cache shared by the module (each suite generates its data once), the knowme test
    release with the authors' rubric file, and rubric files elsewhere."""
    root = tmp_path_factory.mktemp("meaning")
    release = root / "KnowMeBench"
    shutil.copytree(KNOWME_DATA, release / "KnowmeBench")
    (release / "evaluate").mkdir()
    (release / "evaluate" / "evaluate prompt.md").write_text(RUBRIC, encoding="utf-8")
    (root / "same-rubric.md").write_text(RUBRIC, encoding="utf-8")
    (root / "other-rubric.md").write_text(RUBRIC.replace("Grade it.", "Grade it strictly."), encoding="utf-8")
    return {"cache": root / "cache", "knowme": release / "KnowmeBench", "root": root}


def fingerprint_of(
    defaults: dict[str, Any], places: dict[str, Path], args: list[str]
) -> tuple[Fingerprint, list[Suite]]:
    filled = [arg.format(**{name: str(path) for name, path in places.items()}) for arg in args]
    command = CommandLine(defaults, ["--memsystem=none", f"--memeval-cache-dir={places['cache']}", *filled])
    available = available_suites()
    settings = read_settings(command, tuple(available))
    check_against_suites(settings, available, bundled_only=True)
    state = RunState.from_settings(with_protocol_model(settings, judged_suites(settings, available)))
    suites = [state.suite(name) for name in state.settings.suites]
    return run_fingerprint(state.settings, state.memsystems, suites), suites


def suite(name: str, *args: str) -> list[str]:
    return [f"--memeval-suite={name}", *args]


def option(setting: str) -> str:
    return f"--memeval-suite-option={setting}"


LLM = ["--memeval-base-url=http://127.0.0.1:9/v1"]

#: (why, one command line, another that means the same)
SAME: list[tuple[str, list[str], list[str]]] = [
    # locomo
    ("categories: the default spelled out", suite("locomo"), suite("locomo", option("locomo.categories=1,2,3,4"))),
    ("categories: in another order", suite("locomo"), suite("locomo", option("locomo.categories=4,3,2,1"))),
    (
        "categories: a set, spaced and repeated",
        suite("locomo", option("locomo.categories=1,2,3,4,5")),
        suite("locomo", option("locomo.categories=5, 3,1,2,4,4")),
    ),
    (
        "category_names: the default spelled out",
        suite("locomo"),
        suite("locomo", option("locomo.category_names=scorer")),
    ),
    ("pass_f1: the default spelled out", suite("locomo"), suite("locomo", option(f"locomo.pass_f1={DEFAULT_PASS_F1}"))),
    (
        "pass_f1: one number in three forms",
        suite("locomo", option("locomo.pass_f1=0.3")),
        suite("locomo", option("locomo.pass_f1=.30")),
    ),
    (
        "pass_f1: an exponent",
        suite("locomo", option("locomo.pass_f1=0.3")),
        suite("locomo", option("locomo.pass_f1=3e-1")),
    ),
    # longmemeval
    ("file: the default spelled out", suite("longmemeval"), suite("longmemeval", option("longmemeval.file=s"))),
    ("dates: the default spelled out", suite("longmemeval"), suite("longmemeval", option("longmemeval.dates=text"))),
    # personamem
    ("file: the default spelled out", suite("personamem"), suite("personamem", option("personamem.file=32k"))),
    (
        "file: a set, spaced and repeated",
        suite("personamem", option("personamem.file=32k,1M")),
        suite("personamem", option("personamem.file=1M, 32k,1M")),
    ),
    ("fill: the default spelled out", suite("personamem"), suite("personamem", option("personamem.fill=session"))),
    # beam
    ("scoring: the default spelled out", suite("beam"), suite("beam", option("beam.scoring=official"))),
    (
        "scoring: in capitals",
        suite("beam", option("beam.scoring=corrected")),
        suite("beam", option("beam.scoring=CORRECTED")),
    ),
    (
        "scale: a set, in any case and order",
        suite("beam", option("beam.scale=100K,10M")),
        suite("beam", option("beam.scale=10m, 100k,100K")),
    ),
    ("--memeval-seed: beam's sample from its default seed", suite("beam"), suite("beam", "--memeval-seed=0")),
    # memfail
    (
        "prompt: the default spelled out",
        suite("memfail"),
        suite("memfail", option(f"memfail.prompt={DEFAULT_VARIANT}")),
    ),
    # multisource
    (
        "reader: the default spelled out",
        suite("multisource"),
        suite("multisource", option(f"multisource.reader={DEFAULT_READER}")),
    ),
    # bayes
    ("probe_every: the default spelled out", suite("bayes"), suite("bayes", option("bayes.probe_every=1"))),
    (
        "probe_every: one number in two forms",
        suite("bayes", option("bayes.probe_every=5")),
        suite("bayes", option("bayes.probe_every=05")),
    ),
    # knowme
    (
        "datasets: every dataset of the release spelled out",
        suite("knowme", "--memeval-data={knowme}"),
        suite("knowme", "--memeval-data={knowme}", option("knowme.datasets=1,2,3")),
    ),
    (
        "datasets: numbers or names, in any order",
        suite("knowme", "--memeval-data={knowme}", option("knowme.datasets=1,3")),
        suite("knowme", "--memeval-data={knowme}", option("knowme.datasets=dataset3,dataset1")),
    ),
    (
        "rubric: the release's own file named",
        suite("knowme", "--memeval-data={knowme}"),
        suite("knowme", "--memeval-data={knowme}", option("knowme.rubric={knowme}/../evaluate/evaluate prompt.md")),
    ),
    (
        "rubric: a copy of it elsewhere (the content is the rubric, not the path)",
        suite("knowme", "--memeval-data={knowme}"),
        suite("knowme", "--memeval-data={knowme}", option("knowme.rubric={root}/same-rubric.md")),
    ),
    # behavior
    (
        "judge_call: the default spelled out",
        suite("behavior", "--memeval-judge=openai:m", *LLM),
        suite("behavior", "--memeval-judge=openai:m", option("behavior.judge_call=authors"), *LLM),
    ),
    # the plugin's own options
    ("--memeval-seed: the suite's default spelled out", suite("bayes"), suite("bayes", "--memeval-seed=2026")),
    (
        "--memeval-seed: in another order",
        suite("bayes", "--memeval-seed=1,2"),
        suite("bayes", "--memeval-seed=2,1"),
    ),
    (
        "--memeval-seed: below full, multisource runs the first seed alone",
        suite("multisource", "--memeval-seed=1"),
        suite("multisource", "--memeval-seed=1,3"),
    ),
    (
        "--memeval-seed: read by no suite on a release",
        suite("knowme", "--memeval-data={knowme}"),
        suite("knowme", "--memeval-data={knowme}", "--memeval-seed=7"),
    ),
    ("--memeval-seed: longmemeval's sample is one", suite("longmemeval"), suite("longmemeval", "--memeval-seed=7")),
    ("--memeval-seed: halumem's default spelled out", suite("halumem"), suite("halumem", "--memeval-seed=2025")),
    # halumem
    ("file: the default spelled out", suite("halumem"), suite("halumem", option("halumem.file=medium"))),
    (
        "file: another spelling",
        suite("halumem", option("halumem.file=long")),
        suite("halumem", option("halumem.file=Long")),
    ),
    ("--memeval-split: the default spelled out", suite("multisource"), suite("multisource", "--memeval-split=test")),
    (
        "--memeval-split: a suite whose items are all held out",
        suite("locomo"),
        suite("locomo", "--memeval-split=all"),
    ),
    ("--memeval-k: in another order", suite("memfail", "--memeval-k=5,10"), suite("memfail", "--memeval-k=10,5")),
    ("--memeval-k: the default spelled out", suite("memfail"), suite("memfail", "--memeval-k=010")),
    (
        "--memeval-judge: default is the protocol's model with the suite's own prompt",
        suite("longmemeval", "--memeval-judge=default", *LLM),
        suite("longmemeval", f"--memeval-judge=openai:{OFFICIAL_JUDGE_MODEL}@longmemeval", *LLM),
    ),
    (
        "--memeval-judge: the suite's own prompt spelled out",
        suite("longmemeval", "--memeval-judge=openai:m", *LLM),
        suite("longmemeval", "--memeval-judge=openai:m@longmemeval", *LLM),
    ),
    (
        "--memeval-responder: spaces around the model",
        suite("memfail", "--memeval-responder=openai:m", *LLM),
        suite("memfail", "--memeval-responder=openai: m ", *LLM),
    ),
    (
        "--memeval-max-tokens: the default spelled out",
        suite("memfail", "--memeval-responder=openai:m", *LLM),
        suite("memfail", "--memeval-responder=openai:m", "--memeval-max-tokens=01024", *LLM),
    ),
]

#: (why, one command line, another that means something else, where the fingerprints differ)
DIFFERENT: list[tuple[str, list[str], list[str], str]] = [
    ("categories", suite("locomo"), suite("locomo", option("locomo.categories=1,2,3,4,5")), "params.categories"),
    (
        "categories: another set",
        suite("locomo", option("locomo.categories=1,2")),
        suite("locomo", option("locomo.categories=1,3")),
        "params.categories",
    ),
    ("category_names", suite("locomo"), suite("locomo", option("locomo.category_names=mem0")), "params.category_names"),
    ("pass_f1", suite("locomo"), suite("locomo", option("locomo.pass_f1=0.3")), "params.pass_f1"),
    ("file", suite("longmemeval"), suite("longmemeval", option("longmemeval.file=oracle")), "params.file"),
    ("dates", suite("longmemeval"), suite("longmemeval", option("longmemeval.dates=timestamp")), "params.dates"),
    ("halumem file", suite("halumem"), suite("halumem", option("halumem.file=long")), "params.file"),
    ("--memeval-seed: halumem's sample", suite("halumem"), suite("halumem", "--memeval-seed=7"), "seeds"),
    ("prompt", suite("memfail"), suite("memfail", option(f"memfail.prompt={OTHER_PROMPT}")), "params.prompt"),
    ("file: another length", suite("personamem"), suite("personamem", option("personamem.file=128k")), "params.file"),
    ("fill", suite("personamem"), suite("personamem", option("personamem.fill=prefix")), "params.fill"),
    ("scoring", suite("beam"), suite("beam", option("beam.scoring=corrected")), "params.scoring"),
    ("scale", suite("beam"), suite("beam", option("beam.scale=100K")), "params.scale"),
    ("--memeval-seed: beam's sample of another seed", suite("beam"), suite("beam", "--memeval-seed=3"), "seeds"),
    (
        "reader",
        suite("multisource"),
        suite("multisource", option(f"multisource.reader={OTHER_READER}")),
        "params.reader",
    ),
    (
        "probe_every",
        suite("bayes", option("bayes.probe_every=5")),
        suite("bayes", option("bayes.probe_every=25")),
        "params.probe_every",
    ),
    (
        "datasets",
        suite("knowme", "--memeval-data={knowme}"),
        suite("knowme", "--memeval-data={knowme}", option("knowme.datasets=1,3")),
        "params.datasets",
    ),
    (
        "rubric: another content",
        suite("knowme", "--memeval-data={knowme}"),
        suite("knowme", "--memeval-data={knowme}", option("knowme.rubric={root}/other-rubric.md")),
        "params.rubric",
    ),
    (
        "judge_call",
        suite("behavior", "--memeval-judge=openai:m", *LLM),
        suite("behavior", "--memeval-judge=openai:m", option("behavior.judge_call=schema"), *LLM),
        "params.judge_call",
    ),
    ("--memeval-seed", suite("bayes"), suite("bayes", "--memeval-seed=7"), "seeds"),
    (
        "--memeval-seed: below full, multisource runs the first seed alone",
        suite("multisource", "--memeval-seed=1,3"),
        suite("multisource", "--memeval-seed=3,1"),
        "seeds",
    ),
    ("--memeval-split", suite("multisource"), suite("multisource", "--memeval-split=dev"), "split"),
    ("--memeval-size", suite("memfail"), suite("memfail", "--memeval-size=small"), "size"),
    ("--memeval-k", suite("memfail"), suite("memfail", "--memeval-k=5"), "k"),
    (
        "--memeval-judge: another model",
        suite("longmemeval", "--memeval-judge=default", *LLM),
        suite("longmemeval", "--memeval-judge=openai:m", *LLM),
        "judges",
    ),
    (
        "--memeval-judge: another prompt",
        suite("longmemeval", "--memeval-judge=openai:m", *LLM),
        suite("longmemeval", "--memeval-judge=openai:m@mem0-j", *LLM),
        "judges",
    ),
    (
        "--memeval-responder",
        suite("memfail", "--memeval-responder=openai:m", *LLM),
        suite("memfail", "--memeval-responder=openai:n", *LLM),
        "responder",
    ),
    (
        "--memeval-max-tokens",
        suite("memfail", "--memeval-responder=openai:m", *LLM),
        suite("memfail", "--memeval-responder=openai:m", "--memeval-max-tokens=512", *LLM),
        "llm.max_tokens",
    ),
    (
        "--memeval-structured",
        suite("memfail", "--memeval-responder=openai:m", *LLM),
        suite("memfail", "--memeval-responder=openai:m", "--memeval-structured=off", *LLM),
        "llm.structured",
    ),
    (
        "--memeval-api",
        suite("memfail", "--memeval-responder=openai:m", *LLM),
        suite("memfail", "--memeval-responder=openai:m", "--memeval-api=completions", *LLM),
        "llm.api",
    ),
]


@pytest.mark.parametrize("why, one, other", SAME, ids=[case[0] for case in SAME])
def test_equal_meanings_give_one_fingerprint(
    defaults: dict[str, Any], places: dict[str, Path], why: str, one: list[str], other: list[str]
) -> None:
    first, _ = fingerprint_of(defaults, places, one)
    second, _ = fingerprint_of(defaults, places, other)
    assert first.protocol_difference(second) is None
    assert first.protocol_digest() == second.protocol_digest()


@pytest.mark.parametrize("why, one, other, where", DIFFERENT, ids=[case[0] for case in DIFFERENT])
def test_different_meanings_give_two_fingerprints_naming_the_setting(
    defaults: dict[str, Any], places: dict[str, Path], why: str, one: list[str], other: list[str], where: str
) -> None:
    first, _ = fingerprint_of(defaults, places, one)
    second, _ = fingerprint_of(defaults, places, other)
    difference = first.protocol_difference(second)
    assert difference is not None and first.protocol_digest() != second.protocol_digest()
    assert where in difference.split(" is ")[0], difference


def test_every_suite_option_of_every_bundled_suite_is_covered() -> None:
    """A new --memeval-suite-option needs its cases above."""
    declared = {f"{name}.{key}" for name, target in available_suites().items() for key in load_suite(target).parameters}
    named = {
        arg.removeprefix("--memeval-suite-option=").split("=")[0]
        for case in [*SAME, *DIFFERENT]
        for arg in [*case[1], *case[2]]
        if arg.startswith("--memeval-suite-option=")
    }
    assert declared <= named, declared - named


def test_a_run_read_in_its_own_terms_is_itself(defaults: dict[str, Any], places: dict[str, Path]) -> None:
    """Reading another report in this run's terms changes nothing of what is already in them."""
    args = suite("locomo", option("locomo.categories=3,1"), "--memeval-k=10,5", "--memeval-judge=default", *LLM)
    fingerprint, suites = fingerprint_of(defaults, places, args)
    assert fingerprint.suite("locomo").params == {"categories": "1,3"}  # type: ignore[union-attr]
    assert in_terms_of(fingerprint, suites) == fingerprint


def _format_1(fingerprint: Fingerprint, spelled: dict[str, Any], judges: list[str]) -> dict[str, Any]:
    """`fingerprint` as a report of format 1 (before 2026-11-29) wrote it: the settings,
    seeds and k as the command line spelled them, the judges once for the run."""
    import hashlib

    protocol = fingerprint.protocol_json()
    for name, values in spelled.items():
        protocol["suites"][name].update(values)
    for entry in protocol["suites"].values():
        del entry["judges"]
    protocol["judges"] = judges
    text = json.dumps(protocol, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return {
        "format": "memeval-fingerprint/1",
        "protocol": protocol,
        "systems": fingerprint.systems_json(),
        "digest": hashlib.sha256(text.encode()).hexdigest(),
    }


def test_a_baseline_of_format_1_is_compared_by_meaning(
    defaults: dict[str, Any], places: dict[str, Path], tmp_path: Path
) -> None:
    """A report written before settings were normalised (settings as spelled, `default`
    judges) is read by this run's suites: the same protocol spelled otherwise is compared,
    another one is refused naming the setting."""
    args = suite("locomo", "--memeval-judge=default", *LLM)
    fingerprint, suites = fingerprint_of(defaults, places, args)
    spelled = {"locomo": {"params": {"categories": "4,3,2,1", "pass_f1": f"{DEFAULT_PASS_F1}0"}, "seeds": [2024]}}
    old = Fingerprint.from_json(_format_1(fingerprint, spelled, ["default"]))
    assert fingerprint.protocol_difference(old) is not None  # as written, it differs
    baseline = Baseline(tmp_path / "old.json", (), old)
    assert protocol_note(baseline, fingerprint, any_protocol=False, suites=suites) is None

    other = {"locomo": {"params": {"categories": "5,4,3,2,1"}}}
    refused = Baseline(tmp_path / "old.json", (), Fingerprint.from_json(_format_1(fingerprint, other, ["default"])))
    with pytest.raises(ConfigError, match=r"suites\.locomo\.params\.categories is absent in this run, \"1,2,3,4,5\""):
        protocol_note(refused, fingerprint, any_protocol=False, suites=suites)
