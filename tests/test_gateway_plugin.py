"""The gateway in a run: a memory system's own LLM calls are recorded, replayed without any
server, counted on each record, and a changed prompt is a replay miss naming the system."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from harness import TEST_API_KEY, key_pieces
from llm_server import LLMServer, Reply, Request

from pytest_memeval.config.llm_settings import LLMSettings
from pytest_memeval.llm.gateway import LLMGateway
from pytest_memeval.memory.mem0 import Mem0Memory
from pytest_memeval.types import Message

pytestmark = pytest.mark.slow

FACT = re.compile(r"The (\w+) of (\w+) is (\w+)\.")
MODEL = "scripted-extractor"


def extract_facts(request: Request) -> str:
    """mem0's extraction LLM: one memory per toy fact among the new messages."""
    prompt = str(request.messages[-1]["content"])
    new = prompt.split("## New Messages", 1)[1].split("## Observation Date", 1)[0]
    return json.dumps({"memory": [{"text": f"The {t} of {n} is {v}."} for t, n, v in FACT.findall(new)]})


def extract_with_a_twist(request: Request) -> str:
    """An extraction LLM that words each memory differently every time it is asked."""
    facts = json.loads(extract_facts(request))["memory"]
    return json.dumps({"memory": [{"text": f"{fact['text']} (note {uuid.uuid4().hex[:6]})"} for fact in facts]})


def run(pytester: pytest.Pytester, config: Path, *args: str) -> tuple[pytest.RunResult, list[dict[str, Any]]]:
    report = pytester.path / "report.json"
    report.unlink(missing_ok=True)
    result = pytester.runpytest_subprocess(
        "test_toy.py",
        "--memsystem=mem0",
        f"--memeval-adapter-config={config}",
        f"--memeval-llm-cache-file={pytester.path / 'llm.sqlite'}",
        f"--memeval-report={report}",
        "-p",
        "no:cacheprovider",
        *args,
        timeout=600,
    )
    return result, json.loads(report.read_text())["records"] if report.exists() else []


def mem0_config(tmp_path: Path, base_url: str, prompt: str = "compact") -> Path:
    config = tmp_path / "memsystems.toml"
    config.write_text(
        f'[mem0]\nllm_base_url = "{base_url}"\nllm_model = "{MODEL}"\nllm_max_retries = 0\n'
        f'extraction_prompt = "{prompt}"\n'
    )
    return config


def test_a_recorded_run_replays_without_a_server_and_every_record_counts_its_ingest(
    toy_pytester: pytest.Pytester, tmp_path: Path
) -> None:
    with LLMServer(extract_facts) as server:
        config = mem0_config(tmp_path, server.base_url)
        recorded, records = run(toy_pytester, config)
        recorded.assert_outcomes(passed=12)
        assert server.count == 4, "one extraction per context"
    assert "every LLM call goes through a loopback gateway" in recorded.stdout.str()
    # the item that filled its context pays the fill: one extraction per context, in all
    fills = _ingest_tokens(records)
    assert len(fills) == 4 and all(r["ingest_ms"] for r in records if r["id"] in fills)
    for usage in fills.values():
        assert usage["calls"] == 1 and usage["cached_calls"] == 0
        assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0
    # and every record tells what its context's fill cost, the same for each record of a context
    by_context: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        by_context.setdefault(r["context"], []).append(r["context_fill"])
    assert len(by_context) == 4 and len(records) == 12
    for context, costs in by_context.items():
        filler = next(r for r in records if r["context"] == context and r["id"] in fills)
        assert costs == [costs[0]] * len(costs), context
        assert costs[0]["tokens"] == {MODEL: fills[filler["id"]]}
        assert costs[0]["llm_seconds"] > 0 and costs[0]["fill_ms"] == pytest.approx(sum(filler["ingest_ms"]))
    # the server is gone: every extraction must come from the recording
    replayed, again = run(toy_pytester, config, "--memeval-llm-cache=replay")
    replayed.assert_outcomes(passed=12)

    def texts(run: list[dict[str, Any]]) -> list[list[str]]:
        return [[m["text"] for m in r["memories"]] for r in run]  # ids are mem0's own uuids

    assert texts(again) == texts(records)
    replayed_fills = _ingest_tokens(again)
    assert replayed_fills.keys() == fills.keys()
    for item, usage in replayed_fills.items():
        assert usage["cached_calls"] == usage["calls"] == 1
        assert usage["prompt_tokens"] == fills[item]["prompt_tokens"]  # a replay says what the fill cost
    assert all(r["context_fill"]["tokens"][MODEL]["cached_calls"] == 1 for r in again)


def _ingest_tokens(records: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Item id -> the tokens its context's fill spent through the gateway, for the items that filled."""
    return {r["id"]: r["llm_tokens"]["ingest"][MODEL] for r in records if MODEL in r["llm_tokens"].get("ingest", {})}


CHANGED_PROMPT = """
import pytest_memeval.memory.mem0 as mem0

mem0.COMPACT_EXTRACTION_PROMPT += " Keep every memory short."
"""


def test_a_prompt_change_in_an_adapter_is_a_replay_miss_naming_it(
    toy_pytester: pytest.Pytester, tmp_path: Path
) -> None:
    with LLMServer(extract_facts) as server:
        config = mem0_config(tmp_path, server.base_url)
        run(toy_pytester, config, "-k", "ada")[0].assert_outcomes(passed=3, deselected=9)
    toy_pytester.makeconftest(CHANGED_PROMPT)
    result, records = run(toy_pytester, config, "-k", "ada", "--memeval-llm-cache=replay")
    result.assert_outcomes(errors=3, deselected=9)
    reasons = {r["reason"] for r in records}
    (reason,) = reasons
    assert reason.startswith("replay cache miss: memsystem 'mem0' made an LLM call the recording does not hold")
    assert "model 'scripted-extractor'" in reason and "You extract memories" in reason
    assert "(filling " in reason and "\n" not in reason


NOTE_MEMORY = """
import openai
from pytest_memeval import Memory


class NoteMemory:
    \"\"\"Keeps what its LLM writes of each message, read as a stream.\"\"\"

    def __init__(self, llm_model: str = "", llm_base_url: str = "", llm_timeout: float = 30.0, llm_max_retries: int = 0):
        self.client = openai.OpenAI(base_url=llm_base_url, api_key="any", timeout=llm_timeout, max_retries=llm_max_retries)
        self.model, self.notes = llm_model, {}

    def reset(self, namespace):
        self.notes.pop(namespace, None)

    def ingest(self, namespace, session):
        for message in session:
            messages = [{"role": "user", "content": message.content}]
            stream = self.client.chat.completions.create(model=self.model, messages=messages, stream=True)
            text = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
            self.notes.setdefault(namespace, []).append(text)

    def retrieve(self, namespace, query, k):
        return [Memory(text) for text in self.notes.get(namespace, [])][:k]

    def dump(self, namespace):
        return [Memory(text) for text in self.notes.get(namespace, [])]

    def close(self):
        self.client.close()
"""


def test_a_key_the_endpoint_spells_in_escapes_reaches_no_file_the_run_writes(
    toy_pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A memory system's LLM answers with the key spelled in \\u escapes. The gateway scrubbed
    the raw text only: the key reached the system decoded (here through the events of a
    stream), and from a memory's text the JSON and HTML reports. No 8 characters of it may
    reach the recording, the reports or the JUnit file."""
    monkeypatch.setenv("OPENAI_API_KEY", TEST_API_KEY)

    def leaky(request: Request) -> Reply:
        content = f"{request.text} Key: {TEST_API_KEY}."
        spelled = "".join(f"\\u{ord(c):04x}" for c in content)
        body = (
            '{"id": "c", "object": "chat.completion", "created": 0, "model": "' + MODEL + '", "choices": [{"index": 0, '
            '"message": {"role": "assistant", "content": "' + spelled + '"}, "finish_reason": "stop"}], '
            '"usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}}'
        )
        return Reply(body=body.encode())

    toy_pytester.makepyfile(notes=NOTE_MEMORY)
    html, junit, report = (toy_pytester.path / name for name in ("report.html", "junit.xml", "report.json"))
    with LLMServer(leaky) as server:
        config = tmp_path / "adapters.toml"
        config.write_text(f'["notes:NoteMemory"]\nllm_base_url = "{server.base_url}"\nllm_model = "{MODEL}"\n')
        result = toy_pytester.runpytest_subprocess(
            "test_toy.py",
            "--memsystem=notes:NoteMemory",
            f"--memeval-adapter-config={config}",
            f"--memeval-llm-cache-file={toy_pytester.path / 'llm.sqlite'}",
            f"--memeval-report={report}",
            f"--memeval-html={html}",
            f"--junitxml={junit}",
            "-p",
            "no:cacheprovider",
            "-k",
            "ada",
            timeout=300,
        )
    result.assert_outcomes(passed=3, deselected=9)
    records = json.loads(report.read_text())["records"]
    assert all(m["text"].endswith("Key: <redacted>.") for r in records for m in r["memories"]), records[0]
    pieces = key_pieces(TEST_API_KEY)
    for path in (report, html, junit, toy_pytester.path / "llm.sqlite"):
        text = path.read_bytes().decode("utf-8", "replace")
        unescaped = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)
        assert not any(piece in text or piece in unescaped for piece in pieces), path


def _memories_of_a_run(gateway_settings: LLMSettings, path: Path, base_url: str | None) -> list[str]:
    with LLMGateway(gateway_settings) as gateway:
        route = gateway.route("memsystem 'mem0'", base_url)
        memory = Mem0Memory(
            path=path, llm_base_url=route, llm_model=MODEL, llm_max_retries=0, extraction_prompt="compact"
        )
        try:
            for text in ("The colour of ada is red.", "The city of ada is oslo. The pet of ada is owl."):
                memory.ingest("ada", [Message("user", text)])
            return sorted(m.text for m in memory.dump("ada") or [])
        finally:
            memory.close()


def test_two_runs_of_mem0_with_infer_on_one_recording_store_the_same_memories(tmp_path: Path) -> None:
    cache = tmp_path / "llm.sqlite"
    recording = LLMSettings(model=MODEL, cache_mode="readwrite", cache_path=cache)
    with LLMServer(extract_with_a_twist) as server:
        recorded = _memories_of_a_run(recording, tmp_path / "recorded", server.base_url)
        unrecorded = _memories_of_a_run(LLMSettings(model=MODEL), tmp_path / "unrecorded", server.base_url)
    assert len(recorded) == 3
    assert unrecorded != recorded, "without the recording, extraction words the memories anew"
    replay = LLMSettings(model=MODEL, cache_mode="replay", cache_path=cache)
    first = _memories_of_a_run(replay, tmp_path / "first", None)
    second = _memories_of_a_run(replay, tmp_path / "second", None)
    assert first == second == recorded
