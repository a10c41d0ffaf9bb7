"""The LangMem adapter: the conformance kit against a scripted tool-calling LLM, and a real local model."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import kit_helpers
import pytest
from llm_server import LLMServer, Reply, Request
from local_model import LocalModel

from pytest_memeval.config.adapter_settings import AdapterLLM, constructor_arguments
from pytest_memeval.errors import ConfigError
from pytest_memeval.memory.embedders import HashingEmbedder
from pytest_memeval.running.registry import check_settings, resolve_memsystem
from pytest_memeval.types import Message

pytest.importorskip("langmem", reason="the langmem extra is not installed")

from pytest_memeval.memory.langmem import LangMemMemory

_SAID = re.compile(
    r"=+ (?:Human|Ai|System) Message =+\n\n(.*?)(?=\n\n=+ (?:Human|Ai|System) Message =+|\n</session_)", re.DOTALL
)


def langmem_llm(request: Request) -> Reply:
    """Plays LangMem's LLM: one new `Memory` tool call per message of the session, as said."""
    session = str(request.messages[-1]["content"])
    said = [text for text in _SAID.findall(session) if text.strip()]
    calls = [{"name": "Memory", "arguments": json.dumps({"content": text})} for text in said]
    return Reply(content="", tool_calls=calls)


@pytest.fixture
def kit(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.Pytester:
    return kit_helpers.prepare(pytester, monkeypatch, tmp_path)


@pytest.fixture
def server() -> Iterator[LLMServer]:
    with LLMServer(langmem_llm) as running:
        yield running


def test_settings_are_checked_against_the_constructor() -> None:
    resolved = resolve_memsystem("langmem")
    check_settings(
        resolved, {"llm_model": "m", "query_limit": 3, "enable_deletes": False, "llm_tool_string_chars": 512}
    )
    assert constructor_arguments(LangMemMemory, {"llm_tool_string_chars": 512})["llm"].tool_string_chars == 512
    with pytest.raises(ConfigError, match="query_limit must be int"):
        check_settings(resolved, {"query_limit": "3"})
    with pytest.raises(ConfigError, match="unknown setting 'embedder'"):
        check_settings(resolved, {"embedder": "x"})


@pytest.mark.parametrize(
    "settings, message",
    [
        ({}, "needs llm_model"),
        ({"llm_model": "m", "query_limit": 0}, "query_limit"),
        ({"llm_model": "m", "llm_tool_string_chars": 0}, "tool_string_chars must be at least 1, got 0"),
    ],
)
def test_bad_settings_fail_when_built(settings: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        LangMemMemory(HashingEmbedder(), **constructor_arguments(LangMemMemory, settings))


@pytest.mark.slow
def test_the_kit_passes_with_a_scripted_llm(kit: pytest.Pytester, tmp_path: Path, server: LLMServer) -> None:
    config = kit_helpers.llm_adapter_config(tmp_path, "langmem", server.base_url, "scripted-langmem", llm_max_retries=0)
    result = kit_helpers.run(
        kit, "--memsystem=langmem", f"--memeval-adapter-config={config}", "--memeval-embedder=hashing", timeout=1800
    )
    assert result.ret == 0, result.stdout.str()[-3000:]
    result.assert_outcomes(passed=24, skipped=3)  # rewrites_messages: no offline readers' check


def test_memories_are_what_langmems_llm_wrote(server: LLMServer) -> None:
    memory = LangMemMemory(HashingEmbedder(), llm=AdapterLLM(model="scripted", base_url=server.base_url, max_retries=0))
    memory.ingest("ada", [Message("user", "The violin invoice is filed under VX-1."), Message("assistant", "  ")])
    memory.ingest("ada", [Message("user", "The ferry timetable is filed under FT-2.")])
    assert [m.text for m in memory.dump("ada")] == [
        "The violin invoice is filed under VX-1.",
        "The ferry timetable is filed under FT-2.",
    ]
    first, second = server.requests
    # llama.cpp's tool-calling handler needs tool_choice; with existing memories LangMem asks
    # for "required" over three tools, which that handler rejects: it is sent as "auto"
    assert first.body["tool_choice"] == "auto" and [t["function"]["name"] for t in first.body["tools"]] == ["Memory"]
    assert second.body["tool_choice"] == "auto" and len(second.body["tools"]) == 3
    assert "VX-1" in str(second.messages[0]["content"])  # the existing memory is shown to the LLM
    # the tools go as LangMem wrote them unless llm_tool_string_chars is set (next test)
    assert "maxLength" not in first.body["tools"][0]["function"]["parameters"]["properties"]["content"]
    assert memory.retrieve("ada", "violin invoice", 1)[0].text == "The violin invoice is filed under VX-1."
    assert memory.retrieve("bob", "violin invoice", 5) == []


def test_tool_string_chars_bounds_each_string_argument_of_langmems_tools(server: LLMServer) -> None:
    """llama.cpp's tool handler generates arguments without max_tokens: the grammar bounds them."""
    llm = AdapterLLM(model="scripted", base_url=server.base_url, max_retries=0, tool_string_chars=40)
    memory = LangMemMemory(HashingEmbedder(), llm=llm)
    memory.ingest("ada", [Message("user", "The violin invoice is filed under VX-1.")])
    (request,) = server.requests
    content = request.body["tools"][0]["function"]["parameters"]["properties"]["content"]
    assert (content["type"], content["maxLength"]) == ("string", 40)
    assert [m.text for m in memory.dump("ada")] == ["The violin invoice is filed under VX-1."]


def test_an_llm_outage_is_an_error() -> None:
    with LLMServer(Reply.error(503)) as failing:
        memory = LangMemMemory(
            HashingEmbedder(), llm=AdapterLLM(model="scripted", base_url=failing.base_url, max_retries=0)
        )
        with pytest.raises(Exception, match="503|Internal|server"):
            memory.ingest("ada", [Message("user", "The violin invoice is filed under VX-1.")])
        assert memory.dump("ada") == []


@pytest.fixture(scope="module")
def smollm2_tools(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalModel]:
    # a small window: under tool_choice "auto" llama.cpp's handler may write a free-text answer
    # without max_tokens, until the window is full (docs/memory-systems.md)
    with LocalModel.smollm2(
        n_ctx=2048, log=tmp_path_factory.mktemp("llama") / "server.log", chat_format="chatml-function-calling"
    ) as model:
        yield model


@pytest.mark.slow
@pytest.mark.live_model
@pytest.mark.xdist_group("live_model")
def test_a_real_local_model_writes_memories_and_keeps_namespaces_apart(smollm2_tools: LocalModel) -> None:
    """The real path end to end: LangMem's prompts, llama.cpp's tool calls, the store.

    One session per namespace (one LLM call each): small enough for two shared cores. The
    whole kit runs against the scripted LLM above.
    """
    from pytest_memeval.memory.embedders import make_embedder

    memory = LangMemMemory(
        make_embedder("minilm"),
        llm=AdapterLLM(
            model=smollm2_tools.alias,
            base_url=smollm2_tools.base_url,
            timeout=300.0,
            max_retries=0,
            max_tokens=128,
            tool_string_chars=512,  # CI's SmolLM2 looped inside a tool argument past a 900 s timeout
        ),
    )
    memory.ingest("a", [Message("user", "The harbour ferry timetable is filed under the code ZX-a-00-111.")])
    memory.ingest("b", [Message("user", "The violin lesson invoice is filed under the code ZX-b-00-222.")])
    written_a, written_b = memory.dump("a") or [], memory.dump("b") or []
    assert written_a and written_b, "the model made no Memory tool call"
    assert not any("ZX-b" in m.text for m in written_a + memory.retrieve("a", "violin lesson invoice", 5))
    memory.reset("b")
    assert memory.dump("b") == [] and memory.dump("a")
