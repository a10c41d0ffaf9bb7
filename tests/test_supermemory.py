"""The supermemory adapter against a loopback server built from the official client's types.

Not the hosted service (it cannot be reached from here): these tests pin the contract the
adapter relies on: paths, request fields, reply models, authentication and processing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import kit_helpers
import pytest

from pytest_memeval.errors import ConfigError
from pytest_memeval.memory.supermemory import SupermemoryMemory
from pytest_memeval.types import Message

pytest.importorskip(
    "supermemory", reason='the [supermemory] extra is not installed (pip install "pytest-memeval[supermemory]")'
)
from supermemory_server import SupermemoryServer

KEY = "sk-loopback"


@pytest.fixture
def server() -> Iterator[SupermemoryServer]:
    with SupermemoryServer(api_key=KEY) as running:
        yield running


@pytest.fixture
def memory(server: SupermemoryServer) -> Iterator[SupermemoryMemory]:
    system = SupermemoryMemory(api_key=KEY, base_url=server.base_url, poll_interval_s=0.01)
    yield system
    system.close()


def config_file(path: Path, server: SupermemoryServer, **extra: object) -> Path:
    lines = ["[supermemory]", f'api_key = "{KEY}"', f'base_url = "{server.base_url}"', "poll_interval_s = 0.01"]
    lines += [f"{name} = {value!r}".replace("'", '"') for name, value in extra.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_ingest_waits_for_processing_then_search_ranks_by_similarity(
    memory: SupermemoryMemory, server: SupermemoryServer
) -> None:
    memory.ingest("ada", [Message("user", "The colour of ada is red."), Message("assistant", "Bob likes green tea.")])
    hits = memory.retrieve("ada", "what colour is ada", 5)
    assert [h.text for h in hits] == ["The colour of ada is red.", "Bob likes green tea."]
    assert hits[0].score is not None and hits[1].score is not None and hits[0].score > hits[1].score
    paths = [(method, path.rsplit("/", 2)[-2:]) for method, path, _ in server.requests]
    # two documents added, each status read until done (queued once), then one search
    assert [method for method, _ in paths] == ["POST", "POST", "GET", "GET", "GET", "GET", "POST"]
    add_body = server.requests[0][2]
    assert add_body == {"content": "The colour of ada is red."}
    assert server.requests[-1][2] == {
        "query": "what colour is ada",
        "limit": 5,
        "searchMode": "hybrid",
        "threshold": 0.0,
        "include": {"documents": True},
    }
    assert all(h.sources == () for h in hits)  # messages without ids: no provenance to keep


def test_each_memory_names_the_message_of_its_source_document(server: SupermemoryServer) -> None:
    memory = SupermemoryMemory(api_key=KEY, base_url=server.base_url, poll_interval_s=0.01, search_mode="chunks")
    try:
        memory.ingest(
            "ada", [Message("user", "The colour of ada is red.", id="D1:1"), Message("user", "Tea.", id="D1:2")]
        )
        assert server.requests[0][2] == {
            "content": "The colour of ada is red.",
            "metadata": {"memeval_sources": ["D1:1"]},
        }
        hits = memory.retrieve("ada", "what colour is ada", 2)
        assert [(h.text, h.sources) for h in hits] == [("The colour of ada is red.", ("D1:1",)), ("Tea.", ("D1:2",))]
    finally:
        memory.close()


def test_namespaces_are_the_services_own_and_close_deletes_them(server: SupermemoryServer) -> None:
    first = SupermemoryMemory(api_key=KEY, base_url=server.base_url, poll_interval_s=0.01)
    second = SupermemoryMemory(api_key=KEY, base_url=server.base_url, poll_interval_s=0.01)
    first.ingest("shared", [Message("user", "red")])
    second.ingest("shared", [Message("user", "blue")])
    assert [m.text for m in first.dump("shared") or [] if m.id and m.id.startswith("mem-")] == ["red"]
    assert len(server.namespaces()) == 2
    first.reset("shared")
    assert first.retrieve("shared", "red", 3) == [] and first.dump("shared") == []
    assert [m.text for m in second.retrieve("shared", "blue", 3)] == ["blue"]
    first.close()
    second.close()
    second.close()
    assert server.namespaces() == []


def test_a_missing_key_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SUPERMEMORY_API_KEY", raising=False)
    with pytest.raises(
        ConfigError, match="^supermemory: no API key: set api_key in --memeval-adapter-config or SUPERMEMORY_API_KEY$"
    ):
        SupermemoryMemory()


def test_a_wrong_key_is_an_error_not_an_empty_memory(server: SupermemoryServer) -> None:
    system = SupermemoryMemory(api_key="sk-wrong", base_url=server.base_url, max_retries=0)
    with pytest.raises(Exception, match="401"):
        system.ingest("ada", [Message("user", "red")])


def test_processing_that_never_ends_times_out(server: SupermemoryServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server, "get_document", lambda ns, doc_id: (200, _queued(doc_id)))
    system = SupermemoryMemory(api_key=KEY, base_url=server.base_url, processing_timeout_s=0.2, poll_interval_s=0.05)
    with pytest.raises(TimeoutError, match="still processing after 0 s"):
        system.ingest("ada", [Message("user", "red")])


def _queued(doc_id: str) -> dict:
    return {
        "id": doc_id,
        "type": "text",
        "metadata": {},
        "system": {"status": "queued", "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z"},
    }


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"search_mode": "fuzzy"}, "search_mode must be one of hybrid, memories, chunks"),
        ({"threshold": 2.0}, "threshold must be within"),
        ({"namespace_prefix": "a/b"}, "namespace_prefix"),
    ],
)
def test_bad_settings_are_one_line(settings: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        SupermemoryMemory(api_key=KEY, **settings)


@pytest.mark.slow
def test_the_kit_passes_against_the_loopback_contract(
    server: SupermemoryServer, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    kit = kit_helpers.prepare(pytester, monkeypatch, tmp_path)
    config = config_file(tmp_path / "memsystems.toml", server)
    result = kit_helpers.run(kit, "--memsystem=supermemory", f"--memeval-adapter-config={config}")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=26, skipped=1)  # skipped: the floor check
    assert server.namespaces() == [], "the kit left namespaces behind"


@pytest.mark.slow
def test_the_toy_suite_runs_on_supermemory(
    server: SupermemoryServer, toy_pytester: pytest.Pytester, tmp_path: Path
) -> None:
    config = config_file(tmp_path / "memsystems.toml", server, search_mode="memories")
    result = toy_pytester.runpytest("test_toy.py", "--memsystem=supermemory", f"--memeval-adapter-config={config}")
    result.assert_outcomes(passed=12)
    assert server.namespaces() == []
