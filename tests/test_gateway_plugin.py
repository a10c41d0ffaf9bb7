"""The gateway in a run: a memory system's own LLM calls are recorded, replayed without any
server, counted on each record, and a changed prompt is a replay miss naming the system."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, Request

from pytest_memeval.llm.gateway import LLMGateway
from pytest_memeval.llm.settings import LLMSettings
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
