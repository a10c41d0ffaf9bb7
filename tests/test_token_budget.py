"""--memeval-token-budget: the responder sees at most N tokens of retrieved memories, best
first, the last one cut at a token boundary; the budget is part of the protocol."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from llm_server import LLMServer
from pytest_memeval.suites.locomo.llm import LocomoPrompt
from pytest_memeval.suites.locomo.suite import LocomoSuite

from pytest_memeval.config.llm_settings import LLMSettings
from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.llm.responder import LLMResponder
from pytest_memeval.memory.context import ContextMemory
from pytest_memeval.memory.tokens import TOKENIZER, count_tokens, cut_to_tokens
from pytest_memeval.results.fingerprint import Fingerprint
from pytest_memeval.results.records import Record, RunKey
from pytest_memeval.running.adapter_guard import AdapterGuard
from pytest_memeval.running.evaluation import Components, evaluate_items
from pytest_memeval.running.prefetch import Prefetcher
from pytest_memeval.running.runner import ContextFiller
from pytest_memeval.running.token_budget import within_budget
from pytest_memeval.types import Answer, Item, Memory, Trace, Verdict

_MEMORIES = re.compile(r"Memories:\s*(\[.*?\])\s*Question:", re.DOTALL)


def test_the_memory_that_crosses_the_budget_is_cut_at_a_token_boundary_and_the_rest_dropped() -> None:
    memories = [Memory("Alice moved to Paris."), Memory("She adopted a cat, Tom.", verbatim="adopted Tom"), Memory("x")]
    kept, used = within_budget(memories, 8)
    assert [m.text for m in kept] == ["Alice moved to Paris.", "She adopted a"]
    assert kept[1].verbatim == "adopted Tom"  # two tokens: within the three left
    assert used == 8 == sum(count_tokens(m.text) for m in kept)
    assert within_budget(memories, 100) == (memories, 5 + 7 + 1)
    assert cut_to_tokens("one, two  three", 3) == "one, two" and cut_to_tokens("a b", 0) == ""


class AnyAnswer:
    def score(self, item: Item, answer: Answer, trace: Trace) -> Verdict:
        return Verdict(correct=True)


def _run(budget: int | None, server: LLMServer, tmp_path: Path) -> list[Record]:
    suite = LocomoSuite(SuiteOptions("smoke", None, None, 10, None, tmp_path))
    responder = LLMResponder(LocomoPrompt(), LLMSettings(model="scripted", base_url=server.base_url, cache_mode="off"))
    filler = ContextFiller(AdapterGuard("context"), ContextMemory(), token_budget=budget)
    # a judge of its own: locomo's imports nltk (tens of seconds on a loaded machine)
    parts = Components(suite, suite.name, filler, responder, AnyAnswer(), Prefetcher({}))
    key = RunKey("locomo", "context", "openai:scripted", "deterministic", 10)
    return list(evaluate_items(parts, [entry.id for entry in suite.index()[:4]], key))


@pytest.mark.slow  # the openai client's import: about 15 s on the loaded 2-core machine
def test_a_budget_of_200_tokens_never_lets_more_reach_the_responder(tmp_path: Path) -> None:
    with LLMServer(lambda request: "Paris") as server:
        records = _run(200, server, tmp_path)
        seen = [sum(map(count_tokens, json.loads(_MEMORIES.search(r.text)[1]))) for r in server.requests]  # type: ignore[index]
        server.reset()
        unbudgeted = _run(None, server, tmp_path)
    assert len(seen) == len(records) == 4
    assert seen == [200] * 4  # the `context` store holds far more: the budget is filled, never passed
    assert [r.retrieved_tokens for r in records] == seen
    assert all(r.retrieved_tokens > 200 for r in unbudgeted)


def test_the_budget_and_its_tokenizer_are_part_of_the_protocol() -> None:
    plain = Fingerprint()
    budgeted = Fingerprint(token_budget={"tokens": 200, "tokenizer": TOKENIZER})
    assert "token_budget" not in plain.protocol_json()  # a run without one keeps its digest
    assert plain.protocol_difference(budgeted) == "token_budget is absent here, present there"
    assert Fingerprint.from_json(budgeted.to_json()) == budgeted
