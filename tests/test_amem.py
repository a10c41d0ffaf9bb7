"""The A-MEM adapter: the conformance kit against a scripted LLM and against a real local model."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import kit_helpers
import pytest
from llm_server import LLMServer, Reply, Request
from local_model import LocalModel

from pytest_memeval.config.adapter_settings import constructor_arguments
from pytest_memeval.config.llm_settings import LLMSettings
from pytest_memeval.errors import AdapterError, ConfigError
from pytest_memeval.llm.gateway import LLMGateway
from pytest_memeval.running.registry import check_settings, resolve_memsystem
from pytest_memeval.types import Message

pytest.importorskip("agentic_memory", reason="the amem extra is not installed")

from pytest_memeval.memory.amem import AMemMemory

# every test builds the system with the MiniLM embedder (seconds to load) and its store
pytestmark = pytest.mark.slow

_NEIGHBOUR_ID = re.compile(r"memory_id:(\S+)")


def a_mem_llm(request: Request) -> str:
    """Plays A-MEM's LLM: keywords from the note; evolution links to and retags every neighbour."""
    prompt = str(request.messages[-1]["content"])
    if "should_evolve" not in prompt:
        content = prompt.rsplit("Content for analysis:", 1)[-1]
        words = re.findall(r"[A-Za-z]{4,}", content)[:4]
        return json.dumps({"keywords": words, "context": "A filed code.", "tags": ["filing"]})
    neighbours = _NEIGHBOUR_ID.findall(prompt)
    return json.dumps(
        {
            "should_evolve": True,
            "actions": ["strengthen", "update_neighbor"],
            "suggested_connections": neighbours[:1],
            "tags_to_update": ["filing", "linked"],
            "new_context_neighborhood": ["Evolved: a neighbour of a new note."] * len(neighbours),
            "new_tags_neighborhood": [["filing", "evolved"]] * len(neighbours),
        }
    )


def a_mem_llm_linking(request: Request) -> str:
    """A-MEM's LLM as the kit meets it: evolution links each new note to its nearest neighbour.

    (Rewriting every neighbour on every note, as `a_mem_llm` does, re-embeds five notes per
    write; the kit would take far longer and check nothing more.)
    """
    prompt = str(request.messages[-1]["content"])
    if "should_evolve" not in prompt:
        return a_mem_llm(request)
    neighbours = _NEIGHBOUR_ID.findall(prompt)
    return json.dumps(
        {
            "should_evolve": True,
            "actions": ["strengthen"],
            "suggested_connections": neighbours[:1],
            "tags_to_update": ["filing", "linked"],
            "new_context_neighborhood": [],
            "new_tags_neighborhood": [],
        }
    )


@pytest.fixture
def kit(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.Pytester:
    return kit_helpers.prepare(pytester, monkeypatch, tmp_path)


@pytest.fixture
def make_amem(tmp_path: Path) -> Iterator:
    built: list[AMemMemory] = []

    def make(**settings: object) -> AMemMemory:
        memory = AMemMemory(path=tmp_path / f"amem-{len(built)}", **constructor_arguments(AMemMemory, settings))
        built.append(memory)
        return memory

    yield make
    for memory in built:
        memory.close()


def test_settings_are_checked_against_the_constructor() -> None:
    resolved = resolve_memsystem("amem")
    check_settings(
        resolved, {"llm_model": "m", "llm_base_url": "http://127.0.0.1:1/v1", "evolve": False, "llm_timeout": 30}
    )
    with pytest.raises(ConfigError, match="evolve must be bool"):
        check_settings(resolved, {"evolve": "no"})
    with pytest.raises(ConfigError, match="unknown setting 'top_k'"):
        check_settings(resolved, {"top_k": 3})


@pytest.mark.parametrize(
    "settings, message",
    [({}, "needs llm_model"), ({"llm_model": "m", "llm_max_prompt_chars": 10}, "llm_max_prompt_chars")],
)
def test_bad_settings_fail_when_built(make_amem, settings: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_amem(**settings)


def test_the_kit_passes_with_a_scripted_llm(kit: pytest.Pytester, tmp_path: Path) -> None:
    with LLMServer(a_mem_llm_linking) as server:
        config = kit_helpers.llm_adapter_config(tmp_path, "amem", server.base_url, "scripted-a-mem", llm_max_retries=0)
        result = kit_helpers.run(kit, "--memsystem=amem", f"--memeval-adapter-config={config}", timeout=1800)
        assert result.ret == 0, result.stdout.str()[-3000:]
        result.assert_outcomes(passed=25, skipped=2)
        prompts = [r.text for r in server.requests]
        assert any("should_evolve" in p for p in prompts) and any("Content for analysis" in p for p in prompts)


def test_notes_keep_the_message_and_carry_a_mems_attributes(make_amem) -> None:
    with LLMServer(a_mem_llm) as server:
        memory = make_amem(llm_base_url=server.base_url, llm_model="scripted", llm_max_retries=0)
        memory.ingest(
            "ada",
            [
                Message("user", "The violin lesson invoice is filed under VX-1."),
                Message("assistant", "Noted the harbour ferry timetable."),
            ],
        )
        first, second = memory.dump("ada")
        assert first.text == "The violin lesson invoice is filed under VX-1."
        assert first.metadata["context"] == "Evolved: a neighbour of a new note."  # evolution rewrote it
        assert second.metadata["links"] == [first.id] and second.metadata["tags"] == ["filing", "linked"]
        # A-MEM's temperature (1.0) is replaced by the run's, and every call is capped
        assert {r.body["temperature"] for r in server.requests} == {0.0}
        assert {r.body["max_tokens"] for r in server.requests} == {512}


def test_without_evolution_each_note_costs_one_call(make_amem) -> None:
    with LLMServer(a_mem_llm) as server:
        memory = make_amem(llm_base_url=server.base_url, llm_model="scripted", evolve=False)
        memory.ingest("ada", [Message("user", f"Fact number {i} is filed.") for i in range(3)])
        assert server.count == 3 and len(memory.dump("ada")) == 3


def test_an_llm_outage_is_an_error_not_an_empty_note(make_amem) -> None:
    """A-MEM itself swallows the failure and stores a note without keywords; the adapter raises."""
    with LLMServer(Reply.error(503)) as server:
        memory = make_amem(llm_base_url=server.base_url, llm_model="scripted", llm_max_retries=0)
        with pytest.raises(AdapterError, match="A-MEM's LLM call failed.*InternalServerError"):
            memory.ingest("ada", [Message("user", "The violin lesson invoice is filed under VX-1.")])


def test_a_server_without_json_schema_gets_llama_cpps_form(make_amem) -> None:
    """llama-cpp-python refuses response_format json_schema; the schema is sent as json_object."""

    def llama_cpp_python(request: Request) -> Reply | str:
        if request.body["response_format"]["type"] == "json_schema":
            return Reply.error(500, "Input should be 'text' or 'json_object' (body.response_format.type)")
        assert request.body["response_format"]["schema"]["type"] == "object"
        return a_mem_llm(request)

    with LLMServer(llama_cpp_python) as server:
        memory = make_amem(llm_base_url=server.base_url, llm_model="scripted", llm_max_retries=0)
        memory.ingest("ada", [Message("user", "First note."), Message("user", "Second note.")])
        kinds = [r.body["response_format"]["type"] for r in server.requests]
        assert kinds == ["json_schema", "json_object", "json_object", "json_object"]
        assert [m.text for m in memory.dump("ada")] == ["First note.", "Second note."]


def test_a_very_long_note_is_stored_whole_and_its_prompts_fit(make_amem) -> None:
    with LLMServer(a_mem_llm) as server:
        memory = make_amem(llm_base_url=server.base_url, llm_model="scripted", llm_max_prompt_chars=4000)
        long_note = "word " * 20_000 + "END-CODE-77"
        memory.ingest("ada", [Message("user", "A short first note."), Message("user", long_note)])
        assert max(len(r.text) for r in server.requests) <= 4100
        assert any(m.text == long_note for m in memory.dump("ada"))


@pytest.mark.live_model
@pytest.mark.xdist_group("live_model")
def test_a_real_local_model_writes_notes_and_keeps_namespaces_apart(make_amem, smollm2: LocalModel) -> None:
    """The real path end to end: A-MEM's prompts, llama.cpp's JSON-schema output, evolution.

    Two notes per namespace (four LLM calls each): small enough for two shared cores. The
    whole kit runs against the scripted LLM above.
    """
    memory = make_amem(llm_base_url=smollm2.base_url, llm_model=smollm2.alias, llm_timeout=900.0, llm_max_tokens=256)
    memory.ingest(
        "a",
        [
            Message("user", "The harbour ferry timetable is filed under the code ZX-a-00-111."),
            Message("user", "The violin lesson invoice is filed under the code ZX-a-01-222."),
        ],
    )
    memory.ingest("b", [Message("user", "The mountain cabin key is filed under the code ZX-b-00-333.")])
    dumped = memory.dump("a")
    assert [m.text for m in dumped] == [
        "The harbour ferry timetable is filed under the code ZX-a-00-111.",
        "The violin lesson invoice is filed under the code ZX-a-01-222.",
    ]
    assert all(isinstance(m.metadata["keywords"], list) for m in dumped)  # what the model wrote, parsed
    assert "ZX-a-01-222" in memory.retrieve("a", "violin lesson invoice", 1)[0].text
    assert all("ZX-a" not in m.text for m in memory.retrieve("b", "violin lesson invoice", 5))
    memory.reset("a")
    assert memory.dump("a") == [] and len(memory.dump("b") or []) == 1


def test_notes_whose_analysis_was_not_json_are_counted_not_hidden(make_amem) -> None:
    """A-MEM keeps a note with empty keywords when its LLM's reply does not parse (a small
    model cut at max_tokens); the record of the run says how often that happened."""
    with LLMServer(lambda request: '{"keywords": ["cut at max_tok') as server:
        memory = make_amem(llm_model="scripted", llm_base_url=server.base_url, evolve=False)
        memory.ingest("a", [Message("user", "The ferry code is ZX-1."), Message("user", "The lesson is on Monday.")])
        assert memory.ingest_stats("a") == {"notes_per_session": [2], "llm_replies_not_json": 2}
        assert len(memory.dump("a") or []) == 2
    with LLMServer(a_mem_llm) as server:
        memory = make_amem(llm_model="scripted", llm_base_url=server.base_url, evolve=False)
        memory.ingest("a", [Message("user", "The ferry code is ZX-1.")])
        memory.ingest("a", [Message("user", "The lesson is on Monday.")])
        assert memory.ingest_stats("a") == {"notes_per_session": [1, 1], "llm_replies_not_json": 0}
        memory.reset("a")
        assert memory.ingest_stats("a") == {"notes_per_session": [], "llm_replies_not_json": 0}


def a_mem_llm_with_a_twist(request: Request) -> str:
    """A-MEM's LLM wording every note's context anew each time it is asked."""
    reply = json.loads(a_mem_llm(request))
    if "context" in reply:
        reply["context"] = f"A filed code (take {uuid.uuid4().hex[:6]})."
    return json.dumps(reply)


def _notes_of_a_run(make_amem, gateway_settings: LLMSettings, upstream: str | None) -> list[tuple[str, object]]:
    with LLMGateway(gateway_settings) as gateway:
        route = gateway.route("memsystem 'amem'", upstream)
        memory = make_amem(llm_base_url=route, llm_model="scripted", llm_max_retries=0)
        memory.ingest("ada", [Message("user", "The violin lesson invoice is filed under VX-1.")])
        memory.ingest("ada", [Message("user", "The harbour ferry timetable is filed under HF-2.")])
        return [(m.text, m.metadata["context"]) for m in memory.dump("ada") or []]


def test_a_recording_through_the_gateway_replays_without_a_server(make_amem, tmp_path: Path) -> None:
    """`make record-local` records A-MEM's calls (analysis, and evolution with the neighbour's
    id and the minute it was written in its prompt) and replays them offline to the same notes."""
    cache = tmp_path / "llm.sqlite"
    with LLMServer(a_mem_llm_with_a_twist) as server:
        recorded = _notes_of_a_run(
            make_amem, LLMSettings(model="scripted", cache_mode="readwrite", cache_path=cache), server.base_url
        )
        assert any("should_evolve" in r.text for r in server.requests)  # the neighbour was in a prompt
        unrecorded = _notes_of_a_run(make_amem, LLMSettings(model="scripted"), server.base_url)
    assert unrecorded != recorded, "without the recording, A-MEM's LLM words the notes anew"
    replay = LLMSettings(model="scripted", cache_mode="replay", cache_path=cache)
    assert _notes_of_a_run(make_amem, replay, None) == _notes_of_a_run(make_amem, replay, None) == recorded
    with pytest.raises(AdapterError, match="replay cache miss: memsystem 'amem'"):
        with LLMGateway(LLMSettings(model="scripted", cache_mode="replay", cache_path=cache)) as gateway:
            memory = make_amem(llm_base_url=gateway.route("memsystem 'amem'"), llm_model="scripted", llm_max_retries=0)
            memory.ingest("ada", [Message("user", "A note the recording never saw.")])
