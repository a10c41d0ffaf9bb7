"""The memos adapter: settings, its process, the kit against a scripted LLM, a real local model.

MemOS lives in an environment of its own (`make memos-venv`, or MEMEVAL_MEMOS_PYTHON=/path/to/python);
without it the tests that run MemOS skip and say so.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import kit_helpers
import pytest
from llm_server import LLMServer, Reply, Request
from local_model import LocalModel

from pytest_memeval.errors import AdapterError, ConfigError
from pytest_memeval.memory.embedders import HashingEmbedder
from pytest_memeval.memory.memos import MemosMemory
from pytest_memeval.running.registry import accepts_settings, check_settings, resolve_memsystem
from pytest_memeval.running.state import LLM_ADAPTER_SETTINGS
from pytest_memeval.types import Message

REPO = Path(__file__).resolve().parent.parent
PYTHON = os.environ.get("MEMEVAL_MEMOS_PYTHON") or str(REPO / ".memos-venv" / "bin" / "python")
needs_memos = pytest.mark.skipif(
    not os.access(PYTHON, os.X_OK), reason=f"no MemOS environment at {PYTHON} (make memos-venv)"
)

_SPEAKER = re.compile(r"^(user|assistant|system):", re.MULTILINE)
_STAMP = re.compile(r"^\[[^\]]*\]: ")


def conversation(prompt: str) -> list[tuple[str, str]]:
    """(role, text) of each message MemOS put in its extraction prompt ("role:[stamp]: text")."""
    start, end = prompt.rfind("Conversation:\n"), prompt.rfind("\n\nYour Output:")
    assert 0 <= start < end, f"not MemOS's extraction prompt: {prompt[-300:]!r}"
    parts = _SPEAKER.split(prompt[start + len("Conversation:\n") : end])
    return [(parts[i], _STAMP.sub("", parts[i + 1].rstrip("\n"))) for i in range(1, len(parts) - 1, 2)]


def memos_llm(request: Request) -> str:
    """Plays MemOS's extractor: one memory per message, its value the message as written."""
    said = conversation(str(request.messages[-1]["content"]))
    memories = [
        {"key": f"message {i}", "memory_type": "UserMemory", "value": text, "tags": [role]}
        for i, (role, text) in enumerate(said)
        if text.strip()
    ]
    return json.dumps({"memory list": memories, "summary": "What the user said."})


@pytest.fixture
def make_memos(tmp_path: Path) -> Iterator[Callable[..., MemosMemory]]:
    built: list[MemosMemory] = []

    def make(**settings: object) -> MemosMemory:
        settings.setdefault("python", PYTHON)
        memory = MemosMemory(path=tmp_path / f"memos-{len(built)}", embedder=HashingEmbedder(), **settings)  # type: ignore[arg-type]
        built.append(memory)
        return memory

    yield make
    for memory in built:
        memory.close()


def ada_session() -> list[Message]:
    return [
        Message("user", "The violin lesson invoice is filed under ZX-a-01-222.", "2023-05-07T10:00:00", id="D1:1"),
        Message("assistant", "Noted: the harbour ferry timetable is filed under ZX-a-00-111.", id="D1:2"),
    ]


# -- settings and start-up, no MemOS needed ------------------------------------------------------
def test_the_run_llm_reaches_it_as_every_llm_adapters_settings() -> None:
    resolved = resolve_memsystem("memos")
    assert accepts_settings(resolved, LLM_ADAPTER_SETTINGS)
    check_settings(resolved, {"llm_model": "m", "llm_base_url": "http://127.0.0.1:1/v1", "extract": True})
    with pytest.raises(ConfigError, match="extract must be bool"):
        check_settings(resolved, {"extract": "yes"})


@pytest.mark.parametrize(
    "settings, message",
    [
        (
            {"python": "/nonexistent/python"},
            "no MemOS environment: '/nonexistent/python' is not a Python executable; make memos-venv",
        ),
        ({"python": sys.executable, "extract": True}, "extract = true needs an LLM"),
        ({"python": sys.executable, "llm_max_tokens": 0}, "llm_max_tokens must be at least 1"),
        ({"python": sys.executable, "timeout_s": 0}, "timeout_s must be positive"),
    ],
)
def test_bad_settings_are_one_line(tmp_path: Path, settings: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)) as info:
        MemosMemory(path=tmp_path, embedder=HashingEmbedder(), **settings)
    assert "\n" not in str(info.value)


@pytest.mark.slow
def test_a_python_without_memos_fails_at_start_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:  # the plugin's own Python has no MemOS
        MemosMemory(path=tmp_path, embedder=HashingEmbedder(), python=sys.executable, startup_timeout_s=60)
    assert "memos: MemOS" in str(info.value) and "No module named 'memos'" in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.slow
def test_a_run_without_a_memos_environment_makes_each_item_an_error(
    toy_pytester: pytest.Pytester, tmp_path: Path
) -> None:
    config = tmp_path / "memsystems.toml"
    config.write_text('[memos]\npython = "/nonexistent/python"\n')
    result = toy_pytester.runpytest(
        "test_toy.py", "--memsystem=memos", f"--memeval-adapter-config={config}", "--memeval-embedder=hashing"
    )
    result.assert_outcomes(errors=12)
    assert "no MemOS environment" in result.stdout.str() and "make memos-venv" in result.stdout.str()


# -- MemOS itself, with a scripted LLM -----------------------------------------------------------
@pytest.mark.slow
@needs_memos
def test_the_kit_passes_with_a_scripted_llm(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    kit = kit_helpers.prepare(pytester, monkeypatch, tmp_path)
    with LLMServer(memos_llm) as server:
        config = kit_helpers.llm_adapter_config(tmp_path, "memos", server.base_url, "scripted-memos", python=PYTHON)
        result = kit_helpers.run(
            kit, "--memsystem=memos", f"--memeval-adapter-config={config}", "--memeval-embedder=hashing", timeout=1800
        )
        assert result.ret == 0, result.stdout.str()[-3000:]
        # skipped: the floor check, and the ranking check (MemOS's search returns no scores)
        result.assert_outcomes(passed=24, skipped=3)  # rewrites_messages: no offline readers' check
        assert server.count > 0


@pytest.mark.slow
@needs_memos
def test_without_an_llm_each_message_is_one_memory(make_memos) -> None:
    memory = make_memos()
    memory.ingest("ada", ada_session())
    memory.ingest("bob", [Message("user", "The mountain cabin key is filed under ZX-b-00-333.")])
    assert [m.text for m in memory.dump("ada") or []] == [m.content for m in ada_session()]
    assert memory.ingest_stats("ada") == {"extract": False, "added_per_session": [2]}
    found = memory.retrieve("ada", "The violin lesson invoice is filed under ZX-a-01-222.", 1)
    assert [(m.text, m.sources) for m in found] == [(ada_session()[0].content, ("D1:1",))]
    assert [m.sources for m in memory.retrieve("bob", "cabin key", 1)] == [()]  # a message without an id
    memory.reset("ada")
    assert memory.dump("ada") == [] and len(memory.dump("bob") or []) == 1


@pytest.mark.slow
@needs_memos
def test_sessions_go_through_memos_extractor(make_memos) -> None:
    with LLMServer(memos_llm) as server:
        memory = make_memos(llm_model="scripted", llm_base_url=server.base_url, llm_max_tokens=300)
        assert memory.memos_version is not None and memory.memos_version >= "2.0.33"
        memory.ingest("ada", ada_session())
        memory.ingest("bob", [Message("user", "The mountain cabin key is filed under ZX-b-00-333.")])
        memory.ingest("ada", [Message("user", "   ")])  # nothing to extract: no call
        assert [m.text for m in memory.dump("ada") or []] == [
            "The violin lesson invoice is filed under ZX-a-01-222.",
            "Noted: the harbour ferry timetable is filed under ZX-a-00-111.",
        ]
        assert memory.ingest_stats("ada") == {"extract": True, "added_per_session": [2, 0]}
        (prompt, _) = [r.text for r in server.requests]
        assert '"memory list"' in prompt and "user:[2023-05-07T10:00:00]: The violin lesson" in prompt
        assert {(r.model, r.body["max_tokens"], r.body["temperature"]) for r in server.requests} == {
            ("scripted", 300, 0.0)
        }
        found = memory.retrieve("ada", "Where is the violin lesson invoice filed?", 1)
        assert [m.text for m in found] == ["The violin lesson invoice is filed under ZX-a-01-222."]
        assert found[0].sources == ("D1:1", "D1:2")  # extracted from the session: its messages, all
        assert found[0].metadata["key"] == "message 0" and found[0].id in {m.id for m in memory.dump("ada") or []}
        assert all("ZX-a" not in m.text for m in memory.retrieve("bob", "violin lesson invoice ZX-a-01-222", 5))
        memory.reset("ada")
        assert memory.dump("ada") == [] and memory.retrieve("ada", "violin", 3) == []
        assert [m.text for m in memory.dump("bob") or []] == ["The mountain cabin key is filed under ZX-b-00-333."]


@pytest.mark.slow
@needs_memos
def test_python_may_be_given_relative_to_the_working_directory(
    make_memos, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)  # the default, .memos-venv/bin/python, is relative to where pytest runs
    memory = make_memos(python=os.path.relpath(PYTHON, tmp_path))
    memory.ingest("ada", ada_session())
    assert len(memory.dump("ada") or []) == 2


@pytest.mark.slow
@needs_memos
def test_an_answer_memos_cannot_read_is_a_one_line_error_quoting_it(make_memos) -> None:
    answers = ["Sure! Here are the memories: the user has a violin.", '{"memories": ["the user has a violin"]}']
    for answer in answers:
        with LLMServer(answer) as server:
            memory = make_memos(llm_model="scripted", llm_base_url=server.base_url, llm_max_retries=0)
            with pytest.raises(AdapterError) as info:
                memory.ingest("ada", ada_session())
            message = str(info.value)
            assert message.startswith("memos: ingest failed: ExtractionError: MemOS could not read its extractor")
            assert "\n" not in message and answer[:40] in message.replace("\\'", "'")
            assert memory.dump("ada") == [] and memory.ingest_stats("ada")["added_per_session"] == []


@pytest.mark.slow
@needs_memos
def test_an_llm_outage_is_an_error_not_an_empty_memory(make_memos) -> None:
    with LLMServer(Reply.error(503)) as server:
        memory = make_memos(llm_model="scripted", llm_base_url=server.base_url, llm_max_retries=1)
        with pytest.raises(AdapterError, match="memos: ingest failed: InternalServerError"):
            memory.ingest("ada", ada_session())
        assert server.count == 2  # the run's retries, not MemOS's client's own


@pytest.mark.slow
@needs_memos
def test_a_call_past_its_deadline_stops_memos_and_the_next_call_restarts_it(make_memos) -> None:
    def slow_for_bob(request: Request) -> Reply | str:
        return Reply.slow(memos_llm(request), 30.0) if "ZX-b" in request.text else memos_llm(request)

    with LLMServer(slow_for_bob) as server:
        memory = make_memos(llm_model="scripted", llm_base_url=server.base_url, timeout_s=5.0, llm_timeout=60.0)
        memory.ingest("ada", ada_session())
        first = memory._process.pid
        started = time.monotonic()
        with pytest.raises(AdapterError, match="ingest did not answer within 5 s; the MemOS process was stopped"):
            memory.ingest("bob", [Message("user", "The mountain cabin key is filed under ZX-b-00-333.")])
        assert time.monotonic() - started < 20 and not memory._process.running and not alive(first)
        assert len(memory.dump("ada") or []) == 2  # a new process, what was stored still there
        assert memory._process.pid != first


@pytest.mark.slow
@needs_memos
def test_a_process_that_dies_fails_its_call_and_close_stops_the_next(make_memos) -> None:
    memory = make_memos()
    memory.ingest("ada", ada_session())
    os.kill(memory._process.pid, signal.SIGKILL)
    with pytest.raises(AdapterError, match=r"memos: the MemOS process exited during dump \(status -9\)"):
        memory.dump("ada")
    assert len(memory.dump("ada") or []) == 2
    second = memory._process.pid
    assert memory._process.running
    memory.close()
    assert not memory._process.running and not alive(second)
    memory.close()


def alive(pid: int | None) -> bool:
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


# -- live: a real local model -------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.live_model
@pytest.mark.xdist_group("live_model")
@needs_memos
def test_a_real_local_model_writes_memos_json_or_the_session_fails_saying_so(make_memos, smollm2: LocalModel) -> None:
    """MemOS's own extraction prompt (about 1,800 tokens) through SmolLM2-135M.

    What the model writes is not judged: either MemOS reads a memory list from its answer
    and stores it, or the session fails in one line naming MemOS's JSON, never an empty memory.
    96 tokens (was 256) hold a short memory list; at about 6 tokens a second under the JSON
    grammar the longer cap was most of the test's two minutes.
    """
    memory = make_memos(
        llm_model=smollm2.alias, llm_base_url=smollm2.base_url, llm_timeout=600.0, llm_max_tokens=96, llm_max_retries=0
    )
    session = [
        Message("user", "Alice keeps the harbour ferry timetable in the blue folder."),
        Message("assistant", "Got it, the blue folder."),
    ]
    started = time.monotonic()
    try:
        memory.ingest("a", session)
    except AdapterError as exc:
        assert "MemOS could not read its extractor's answer as the JSON it asks for" in str(exc)
        assert "\n" not in str(exc)
    took = time.monotonic() - started
    stored = memory.dump("a") or []
    started = time.monotonic()
    found = memory.retrieve("a", "Where is the harbour ferry timetable?", 3)
    print(
        f"memos on {smollm2.alias}: ingest {took:.1f} s, retrieve {time.monotonic() - started:.2f} s, stored {stored}"
    )
    assert all(m.text.strip() and m.id for m in stored)
    assert {m.id for m in found} <= {m.id for m in stored}
