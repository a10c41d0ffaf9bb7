"""The mem0 adapter: infer=False offline, infer=True against a scripted loopback LLM."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import kit_helpers
import pytest
from llm_server import LLMServer, Reply, Request

from pytest_memeval.errors import ConfigError
from pytest_memeval.memory.mem0 import Mem0Memory
from pytest_memeval.running.registry import check_settings, resolve_memsystem
from pytest_memeval.types import Message

# every test builds the system with the MiniLM embedder (seconds to load) and its store
pytestmark = pytest.mark.slow

FACT = re.compile(r"The (\w+) of (\w+) is (\w+)\.")


def extract_facts(request: Request) -> str:
    """Plays mem0's extraction LLM: one memory per toy fact among the new messages, reworded."""
    prompt = str(request.messages[-1]["content"])
    new = prompt.split("## New Messages", 1)[1].split("## Observation Date", 1)[0]
    return json.dumps({"memory": [{"text": f"Noted: The {t} of {n} is {v}."} for t, n, v in FACT.findall(new)]})


def keep_every_message(request: Request) -> str:
    """Plays a literal-minded extraction LLM: every new message becomes a memory as it was said."""
    prompt = str(request.messages[-1]["content"])
    section = prompt.split("## New Messages\n", 1)[1].rsplit("\n\n## Observation Date", 1)[0]
    said = re.split(r"(?m)^(?:user|assistant|system): ", section)[1:]
    return json.dumps({"memory": [{"text": text[:-1] if text.endswith("\n") else text} for text in said]})


@pytest.fixture
def make_mem0(tmp_path: Path) -> Iterator[Callable[..., Mem0Memory]]:
    built: list[Mem0Memory] = []

    def make(**settings: Any) -> Mem0Memory:
        memory = Mem0Memory(path=tmp_path / f"mem0-{len(built)}", **settings)
        built.append(memory)
        return memory

    yield make
    for memory in built:
        memory.close()


def llm(server: LLMServer, **extra: Any) -> dict[str, Any]:
    return {"llm_base_url": server.base_url, "llm_model": "scripted-extractor", "llm_max_retries": 0, **extra}


def test_settings_are_checked_against_the_constructor() -> None:
    resolved = resolve_memsystem("mem0")
    check_settings(resolved, {"infer": True, "llm_model": "m", "top_k": 5, "threshold": 0, "collection_prefix": "x-"})
    with pytest.raises(ConfigError, match="infer must be bool"):
        check_settings(resolved, {"infer": "yes"})
    with pytest.raises(ConfigError, match="unknown setting 'llm_key'.*llm_base_url"):
        check_settings(resolved, {"llm_key": "secret"})


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"infer": True}, "infer = true needs llm_model"),
        ({"llm_base_url": "http://127.0.0.1:9/v1"}, "llm_model is not"),
        ({"collection_prefix": "bad name/"}, "collection name"),
        ({"threshold": 1.5}, "threshold"),
        ({"top_k": 0}, "top_k"),
    ],
)
def test_bad_settings_fail_when_built(make_mem0: Callable[..., Mem0Memory], settings: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_mem0(**settings)


def test_without_an_llm_each_message_is_stored_as_said(make_mem0: Callable[..., Mem0Memory]) -> None:
    with LLMServer(extract_facts) as server:
        memory = make_mem0(**llm(server, infer=False))
        memory.ingest(
            "ada",
            [
                Message("user", "The colour of ada is red.", id="D1:1"),
                Message("system", "Profile: ada, 34.", id="D1:2"),
                Message("assistant", " ", id="D1:3"),
            ],
        )
        memory.ingest("ben", [Message("user", "The colour of ben is blue.")])
        assert [(m.text, m.metadata["role"], m.sources) for m in memory.dump("ada") or []] == [
            ("The colour of ada is red.", "user", ("D1:1",)),
            ("Profile: ada, 34.", "user", ("D1:2",)),
        ]
        hits = memory.retrieve("ada", "what colour is ada", 5)
        assert hits[0].text == "The colour of ada is red." and all(m.score is not None for m in hits)
        assert hits[0].sources == ("D1:1",)  # each message its own add call: its memory names it alone
        assert [m.sources for m in memory.retrieve("ben", "colour", 1)] == [()]  # a message without an id
        assert [m.text for m in memory.retrieve("ada", "colour", 1)] == ["The colour of ada is red."]
        assert server.count == 0, "infer=False must not call the LLM"


def test_with_an_llm_mem0_stores_what_the_llm_extracted(
    make_mem0: Callable[..., Mem0Memory], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
    with LLMServer(extract_facts) as server:
        memory = make_mem0(**llm(server))
        assert memory.infer
        memory.ingest(
            "ada",
            [
                Message("user", "Hi! How are you?", id="D1:1"),
                Message("user", "The colour of ada is red.", id="D1:2"),
                Message("assistant", "Good to know."),
            ],
        )
        assert [m.text for m in memory.dump("ada") or []] == ["Noted: The colour of ada is red."]
        # an extracted fact names the messages of its session's add call: mem0 keeps no finer grain
        assert [(m.text, m.sources) for m in memory.retrieve("ada", "colour of ada", 3)] == [
            ("Noted: The colour of ada is red.", ("D1:1", "D1:2"))
        ]
        (request,) = server.requests
        assert request.model == "scripted-extractor"
        assert request.body["response_format"] == {"type": "json_object"}
        assert request.headers["authorization"] == "Bearer sk-test-key"
        assert "Hi! How are you?" in request.text


def test_reset_hides_the_old_session_from_the_llm(make_mem0: Callable[..., Mem0Memory]) -> None:
    """mem0 shows the LLM a user's recent turns; after a reset they must be gone too."""
    with LLMServer(extract_facts) as server:
        memory = make_mem0(**llm(server))
        memory.ingest("ada", [Message("user", "The code of ada is ZEBRA.")])
        memory.ingest("ada", [Message("user", "The pet of ada is owl.")])
        assert "ZEBRA" in server.requests[1].text, "control: without a reset the old turn is shown"
        memory.reset("ada")
        memory.ingest("ada", [Message("user", "The city of ada is lima.")])
        assert "ZEBRA" not in server.requests[2].text
        assert [m.text for m in memory.dump("ada") or []] == ["Noted: The city of ada is lima."]


def test_an_llm_error_raises_instead_of_storing_nothing(make_mem0: Callable[..., Mem0Memory]) -> None:
    with LLMServer(Reply.error(500)) as server:
        memory = make_mem0(**llm(server))
        with pytest.raises(Exception, match="500"):
            memory.ingest("ada", [Message("user", "The colour of ada is red.")])
        assert server.count == 1


def test_a_slow_llm_times_out(make_mem0: Callable[..., Mem0Memory]) -> None:
    with LLMServer(Reply.slow("{}", 30.0)) as server:
        memory = make_mem0(**llm(server, llm_timeout=0.5))
        started = time.monotonic()
        with pytest.raises(Exception, match="(?i)timed out|timeout"):
            memory.ingest("ada", [Message("user", "The colour of ada is red.")])
        assert time.monotonic() - started < 10


def test_the_kit_passes_without_an_llm(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    kit = kit_helpers.prepare(pytester, monkeypatch, tmp_path)
    result = kit_helpers.run(kit, "--memsystem=mem0", timeout=1200)
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=26, skipped=1)


def test_the_kit_passes_through_llm_extraction(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    kit = kit_helpers.prepare(pytester, monkeypatch, tmp_path)
    with LLMServer(keep_every_message) as server:
        result = kit_helpers.run(
            kit, "--memsystem=mem0", f"--memeval-adapter-config={_toy_config(tmp_path, server)}", timeout=1200
        )
        assert result.ret == 0, result.stdout.str()
        result.assert_outcomes(passed=25, skipped=2)  # infer: the offline readers' check does not apply
        assert server.count > 20, "the kit did not go through the LLM"


def _toy_config(tmp_path: Path, server: LLMServer) -> Path:
    config = tmp_path / "memsystems.toml"
    config.write_text(
        f'[mem0]\nllm_base_url = "{server.base_url}"\nllm_model = "scripted-extractor"\nllm_max_retries = 0\n'
    )
    return config


def test_the_toy_suite_runs_through_extraction_on_two_workers(
    toy_pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-toy")
    with LLMServer(extract_facts) as server:
        config = _toy_config(tmp_path, server)
        result = toy_pytester.runpytest_subprocess(
            "test_toy.py", "--memsystem=mem0", f"--memeval-adapter-config={config}", "-n", "2", timeout=600
        )
        result.assert_outcomes(passed=12)
        # one extraction per context (four toy personas, one session each), whichever worker filled it
        assert server.count == 4
        assert {r.headers["authorization"] for r in server.requests} == {"Bearer sk-toy"}


def test_an_llm_outage_makes_items_errors_not_wrong_answers(toy_pytester: pytest.Pytester, tmp_path: Path) -> None:
    with LLMServer(Reply.error(503)) as server:
        config = _toy_config(tmp_path, server)
        result = toy_pytester.runpytest(
            "test_toy.py", "--memsystem=mem0", f"--memeval-adapter-config={config}", "-k", "ada"
        )
        result.assert_outcomes(errors=3, deselected=9)
        assert "memsystem 'mem0' failed in ingest: LLMError" in result.stdout.str()


def test_multisource_runs_on_mem0_and_pairs_with_chroma(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MEMEVAL_CACHE_DIR", str(tmp_path / "cache"))
    report = tmp_path / "report.json"
    result = pytester.runpytest_subprocess(
        "--memsystem=mem0,chroma",
        "--memeval-suite=multisource",
        "-n",
        "2",
        "-k",
        "stable_121",
        f"--memeval-report={report}",
        "-p",
        "no:cacheprovider",
    )
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stdout.str()[-2000:]
    data = json.loads(report.read_text())
    assert [(run["key"]["memsystem"], run["n_items"], run["n_errors"]) for run in data["runs"]] == [
        ("chroma", 18, 0),
        ("mem0", 18, 0),
    ]
    (comparison,) = data["comparisons"]
    assert (comparison["a"]["memsystem"], comparison["b"]["memsystem"], comparison["n_paired"]) == (
        "mem0",
        "chroma",
        18,
    )
    assert set(comparison["metrics"]) == {"accuracy", "coverage", "selective_accuracy", "f05"}
