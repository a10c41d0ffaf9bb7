"""The letta adapter: settings, start-up failures, and a real Letta server on 127.0.0.1.

The live tests need Letta's server, which lives in an environment of its own (`make
letta-venv`, or MEMEVAL_LETTA_SERVER=/path/to/letta); without it they skip and say so.
They share one server per module, as xdist workers share one in docs/distributed.md.
"""

from __future__ import annotations

import json
import os
import stat
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import kit_helpers
import openai
import pytest
from llm_server import LLMServer, Reply, Request

from pytest_memeval.config.llm_settings import LLMSettings
from pytest_memeval.errors import ConfigError
from pytest_memeval.llm.gateway import LLMGateway
from pytest_memeval.llm.metering import Meter
from pytest_memeval.memory import letta as letta_module
from pytest_memeval.memory.chunking import split_at_spaces
from pytest_memeval.memory.embedders import HashingEmbedder
from pytest_memeval.memory.embedding_endpoint import EmbeddingEndpoint
from pytest_memeval.memory.letta import LettaMemory
from pytest_memeval.memory.letta_server import LettaServer
from pytest_memeval.memory.tokens import count_tokens
from pytest_memeval.types import Message

letta_client = pytest.importorskip(
    "letta_client", reason='the [letta] extra is not installed (pip install "pytest-memeval[letta]")'
)

REPO = Path(__file__).resolve().parent.parent
SERVER_COMMAND = os.environ.get("MEMEVAL_LETTA_SERVER") or str(REPO / ".letta-venv" / "bin" / "letta")
needs_server = pytest.mark.skipif(
    not os.access(SERVER_COMMAND, os.X_OK),
    reason=f"no Letta server at {SERVER_COMMAND} (make letta-venv, or set MEMEVAL_LETTA_SERVER)",
)


@pytest.fixture(autouse=True)
def forget_failed_starts() -> Iterator[None]:
    letta_module._FAILED_STARTS.clear()
    yield
    letta_module._FAILED_STARTS.clear()


def failing_server(tmp_path: Path) -> tuple[Path, Path]:
    """A `letta` that prints a reason and exits: what a broken server installation looks like."""
    script, calls = tmp_path / "letta", tmp_path / "calls"
    script.write_text(
        f"#!/bin/sh\necho started >> {calls}\necho 'ModuleNotFoundError: No module named asyncpg' >&2\nexit 3\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script, calls


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"mode": "stateful"}, "mode must be one of archival, agent"),
        ({"mode": "agent"}, "mode = 'agent' needs an LLM"),
        ({"blocks": "human, bad label"}, "blocks must be comma-separated block labels"),
        ({"passage_tokens": 0}, "passage_tokens must be at least 1"),
        ({"agent_prefix": "a/b"}, "agent_prefix"),
        ({"server_command": "/nonexistent/letta"}, "'/nonexistent/letta' is not an executable; install the server"),
    ],
)
def test_bad_settings_are_one_line(tmp_path: Path, settings: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        LettaMemory(path=tmp_path, embedder=HashingEmbedder(), **settings)
    assert "\n" not in str(info.value)


@pytest.mark.slow
def test_a_server_that_cannot_start_fails_once_in_one_line(tmp_path: Path) -> None:
    script, calls = failing_server(tmp_path)
    with pytest.raises(ConfigError) as first:
        LettaMemory(
            path=tmp_path / "work", embedder=HashingEmbedder(), server_command=str(script), startup_timeout_s=30
        )
    assert "did not answer" in str(first.value) and "No module named asyncpg" in str(first.value)
    assert "\n" not in str(first.value)
    with pytest.raises(ConfigError) as again:  # a worker's next items do not wait for it again
        LettaMemory(path=tmp_path / "work", embedder=HashingEmbedder(), server_command=str(script))
    assert str(again.value) == str(first.value)
    assert calls.read_text().count("started") == 1


@pytest.mark.slow
def test_a_run_with_an_unstartable_server_makes_each_item_an_error(
    toy_pytester: pytest.Pytester, tmp_path: Path
) -> None:
    script, calls = failing_server(tmp_path)
    config = tmp_path / "memsystems.toml"
    config.write_text(f'[letta]\nserver_command = "{script}"\nstartup_timeout_s = 30.0\n')
    result = toy_pytester.runpytest(
        "test_toy.py", "--memsystem=letta", f"--memeval-adapter-config={config}", "--memeval-embedder=hashing"
    )
    result.assert_outcomes(errors=12)
    assert "letta: the Letta server" in result.stdout.str() and "No module named asyncpg" in result.stdout.str()
    assert calls.read_text().count("started") == 1


def test_long_lines_become_passages_within_budget() -> None:
    line = " ".join(f"word{i}" for i in range(5000))
    pieces = split_at_spaces(line, 1000)
    assert len(pieces) == 5 and all(count_tokens(piece) <= 1000 for piece in pieces)
    assert " ".join(pieces) == line
    assert split_at_spaces("short", 1000) == ["short"]


def test_the_embedding_endpoint_serves_the_run_embedder() -> None:
    embedder = HashingEmbedder()
    with EmbeddingEndpoint(embedder) as endpoint:
        client = openai.OpenAI(base_url=endpoint.base_url, api_key="unused", max_retries=0)
        floats = client.embeddings.create(model="m", input=["the colour of ada", "b"], encoding_format="float")
        packed = client.embeddings.create(model="m", input="the colour of ada")  # base64, the client's default
        assert floats.data[0].embedding == pytest.approx(embedder.embed(["the colour of ada"])[0].tolist(), abs=1e-6)
        assert packed.data[0].embedding == pytest.approx(floats.data[0].embedding, abs=1e-6)
        request = urllib.request.Request(
            f"{endpoint.base_url}/embeddings", data=json.dumps({"input": [1, 2]}).encode(), method="POST"
        )
        with pytest.raises(urllib.error.HTTPError, match="400"):
            urllib.request.urlopen(request, timeout=10)


# -- live: a real Letta server -----------------------------------------------------------------
@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LettaServer]:
    if not os.access(SERVER_COMMAND, os.X_OK):
        pytest.skip(f"no Letta server at {SERVER_COMMAND} (make letta-venv, or set MEMEVAL_LETTA_SERVER)")
    with LettaServer(SERVER_COMMAND, tmp_path_factory.mktemp("letta-shared")) as running:
        yield running


def agents_on(server: LettaServer) -> list[str]:
    from letta_client import Letta

    return [agent.name for agent in Letta(base_url=server.base_url).agents.list()]


@pytest.mark.slow
@needs_server
def test_the_kit_passes_against_a_shared_server_from_two_workers(
    server: LettaServer, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    kit = kit_helpers.prepare(pytester, monkeypatch, tmp_path)
    config = tmp_path / "memsystems.toml"
    config.write_text(f'[letta]\nbase_url = "{server.base_url}"\n')
    result = kit_helpers.run(
        kit, "--memsystem=letta", f"--memeval-adapter-config={config}", "--memeval-embedder=hashing", "-n", "2"
    )
    assert result.ret == 0, result.stdout.str()
    # skipped: the floor check, and the ranking check (Letta's archival search gives no scores)
    result.assert_outcomes(passed=25, skipped=2)
    assert agents_on(server) == [], "the kit left agents behind on the server"


@needs_server
def test_the_adapter_starts_and_stops_a_server_of_its_own(tmp_path: Path) -> None:
    memory = LettaMemory(path=tmp_path, embedder=HashingEmbedder(), server_command=SERVER_COMMAND)
    try:
        server = memory._server
        assert server is not None and server.running and server.host == "127.0.0.1"
        memory.ingest(
            "ada",
            [Message("user", "The colour of ada is red.", id="D1:1"), Message("assistant", "Bob drinks green tea.")],
        )
        # the passage names its message through its tag; one of a message without an id names none
        assert [(m.text, m.sources) for m in memory.retrieve("ada", "which colour is ada", 2)] == [
            ("The colour of ada is red.", ("D1:1",)),
            ("Bob drinks green tea.", ()),
        ]
        assert sorted(m.text for m in memory.dump("ada") or []) == [
            "Bob drinks green tea.",
            "The colour of ada is red.",
        ]
        assert (tmp_path / server.home.name / ".letta" / "sqlite.db").exists()
    finally:
        memory.close()
    assert not server.running
    memory.close()


def memory_tool_script(request: Request) -> Reply:
    """A scripted agent: write the user's words to the human block once, then answer.

    Letta 0.11's agents edit blocks with `memory_insert`; older ones with `core_memory_append`."""
    tools = {tool["function"]["name"] for tool in request.body.get("tools", [])}
    fact = next(m["content"] for m in reversed(request.messages) if m["role"] == "user")
    for tool, text_field in (("memory_insert", "new_str"), ("core_memory_append", "content")):
        if tool in tools and not _called(request, tool):
            arguments = {"label": "human", text_field: f"Learned: {fact[-200:]}"}
            return Reply(content=None, tool_calls=[{"name": tool, "arguments": json.dumps(arguments)}])
    return Reply(content=None, tool_calls=[{"name": "send_message", "arguments": json.dumps({"message": "Noted."})}])


def _called(request: Request, tool: str) -> bool:
    return any(call["function"]["name"] == tool for m in request.messages for call in m.get("tool_calls") or [])


@needs_server
def test_the_stateful_agent_edits_its_human_block(server: LettaServer, tmp_path: Path) -> None:
    with LLMServer(memory_tool_script) as llm:
        memory = LettaMemory(
            mode="agent",
            base_url=server.base_url,
            embedder=HashingEmbedder(),
            llm_model="scripted",
            llm_base_url=llm.base_url,
        )
        try:
            assert memory.retrieve("ada", "anything", 5) == []
            memory.ingest("ada", [Message("user", "My favourite colour is red.")])
            (block,) = memory.retrieve("ada", "anything", 1)  # the block whatever k is
            assert block.id == "human" and "My favourite colour is red." in block.text
            assert not memory.keeps_sources and block.sources == ()  # what the agent wrote of every session
            assert memory.dump("ada") == [block]
            assert llm.count >= 1 and all(
                r.model == "scripted" for r in llm.requests if r.path.endswith("/chat/completions")
            )
        finally:
            memory.close()
    assert agents_on(server) == []


@needs_server
@pytest.mark.slow
def test_the_stateful_agent_runs_through_the_gateway_on_llama_cpps_rules_and_replays(
    server: LettaServer, tmp_path: Path
) -> None:
    caller = "memsystem 'letta'"

    def agent(llm_base_url: str) -> LettaMemory:
        return LettaMemory(
            mode="agent",
            base_url=server.base_url,
            embedder=HashingEmbedder(),
            llm_model="scripted",
            llm_base_url=llm_base_url,
        )

    def human_block(llm_base_url: str, meter: Meter) -> str:
        memory = agent(llm_base_url)
        try:
            with meter.scope("ada") as scope:
                memory.ingest("ada", [Message("user", "My favourite colour is red.")])
            scope.raise_miss()
            (block,) = memory.retrieve("ada", "anything", 1)
            return block.text
        finally:
            memory.close()

    cache = tmp_path / "llm.sqlite"
    with LLMServer(memory_tool_script, refuse_null_content=True) as llm:
        direct = agent(llm.base_url)
        try:  # Letta's history holds a tool call with content null: llama-cpp-python refuses it
            with pytest.raises(letta_client.InternalServerError):
                direct.ingest("ada", [Message("user", "My favourite colour is red.")])
        finally:
            direct.close()
        with LLMGateway(LLMSettings(model="scripted", cache_mode="readwrite", cache_path=cache)) as gateway:
            recorded = human_block(gateway.route(caller, llm.base_url), gateway.meter(caller))
            usage = gateway.meter(caller).usage("ada")
    assert "My favourite colour is red." in recorded
    assert usage.calls >= 2 and usage.prompt_tokens > 0
    with LLMGateway(LLMSettings(model="scripted", cache_mode="replay", cache_path=cache)) as gateway:
        assert human_block(gateway.route(caller), gateway.meter(caller)) == recorded  # no LLM server now
    assert agents_on(server) == []


def test_a_server_command_relative_to_the_working_directory_is_found_from_the_servers_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    command = tmp_path / "venv" / "bin" / "letta"
    command.parent.mkdir(parents=True)
    command.write_text("#!/bin/sh\n")
    command.chmod(command.stat().st_mode | stat.S_IEXEC)
    monkeypatch.chdir(tmp_path)
    assert LettaServer("venv/bin/letta", tmp_path / "home").command == str(command)


def test_the_agent_says_at_start_up_when_its_llm_bypasses_the_gateway() -> None:
    assert LettaMemory.llm_outside_gateway({}) is None
    assert LettaMemory.llm_outside_gateway({"mode": "agent", "base_url": "http://127.0.0.1:8283"}) is None
    handle = LettaMemory.llm_outside_gateway({"llm_handle": "openai/gpt-4o-mini"})
    assert handle is not None and "not recorded, replayed or counted" in handle
    remote = LettaMemory.llm_outside_gateway({"mode": "agent", "base_url": "https://api.letta.com"})
    assert remote is not None and "api.letta.com cannot reach the run's loopback LLM gateway" in remote
