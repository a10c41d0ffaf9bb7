"""The offline readers read the messages an adapter stored, whatever prefix it wrote before
them or wherever it declares them (`Memory.verbatim`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_memeval.framework.memory_text import message_text, split_prefixes
from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.results.records import RunKey
from pytest_memeval.running.evaluation import Components, evaluate_items
from pytest_memeval.running.registry import available_suites, load_suite
from pytest_memeval.testing.offline_readers import ADVICE, REWRITES, Reading, offline_reading
from pytest_memeval.types import Memory, Message

#: the headline metric of each suite checked, and its factor to points (0-100)
HEADLINES = {"knowme": ("t1_t2_balance", 1.0), "longmemeval": ("overall_accuracy", 100.0)}


def verbatim(message: Message) -> str:
    return message.content


def prefixed(message: Message) -> str:
    """The issue's adapter: every message behind its timestamp and role."""
    return f"[{message.timestamp}] {message.role}: {message.content}"


class KeywordMemory:
    """The README's adapter, writing each message with `write`; `declare` also returns the
    message's own text in `Memory.verbatim` (and ranks by it, so that only the reading of
    the memories differs from a verbatim store)."""

    def __init__(self, write: Callable[[Message], str], declare: bool = False) -> None:
        self.write, self.declare = write, declare
        self.notes: dict[str, list[tuple[str, str]]] = {}

    def reset(self, namespace: str) -> None:
        self.notes.pop(namespace, None)

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        kept = [(self.write(m), m.content) for m in session if m.content.strip()]
        self.notes.setdefault(namespace, []).extend(kept)

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        words = set(query.lower().split())
        scored = [
            (len(words & set((own if self.declare else text).lower().split())), text, own)
            for text, own in self.notes.get(namespace, [])
        ]
        best = sorted(scored, key=lambda s: -s[0])[:k]
        return [Memory(text, float(n), verbatim=own if self.declare else None) for n, text, own in best]

    def dump(self, namespace: str) -> list[Memory] | None:
        return None

    def close(self) -> None:
        self.notes.clear()


@pytest.fixture(scope="module")
def suites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    options = SuiteOptions(
        size="smoke", split=None, seeds=None, k=10, data_dir=None, cache_dir=tmp_path_factory.mktemp("c"), bootstrap=50
    )
    return {name: load_suite(available_suites()[name])(options) for name in HEADLINES}


def points(suite: Any, system: KeywordMemory) -> tuple[float, int]:
    """(the suite's headline metric in points, items marked unreadable) on the whole smoke run."""
    parts = Components.offline(suite, system, "keyword", suite.reader())
    records = list(evaluate_items(parts, [e.id for e in suite.index()], RunKey(suite.name, "keyword", "reader", k=10)))
    metric, factor = HEADLINES[suite.name]
    value = suite.summarize(records).metrics[metric].value
    return value * factor, sum(r.memory_unreadable for r in records)


@pytest.mark.parametrize("name", sorted(HEADLINES))
def test_an_adapter_that_prefixes_timestamp_and_role_scores_as_a_verbatim_one(
    suites: dict[str, Any], name: str
) -> None:
    as_said, said_unread = points(suites[name], KeywordMemory(verbatim))
    behind_a_prefix, prefixed_unread = points(suites[name], KeywordMemory(prefixed))
    assert as_said >= 50 and said_unread == 0, (as_said, said_unread)  # the reader reads the suite's own text
    assert abs(behind_a_prefix - as_said) <= 2, (name, as_said, behind_a_prefix)
    assert prefixed_unread == 0


@pytest.mark.parametrize("name", sorted(HEADLINES))
def test_memories_in_a_form_of_their_own_are_read_from_what_the_adapter_declares(
    suites: dict[str, Any], name: str
) -> None:
    def as_json(message: Message) -> str:
        return json.dumps({"role": message.role, "text": message.content, "at": message.timestamp})

    as_said, _ = points(suites[name], KeywordMemory(verbatim))
    declared, unread = points(suites[name], KeywordMemory(as_json, declare=True))
    assert declared == as_said and unread == 0
    undeclared, unread = points(suites[name], KeywordMemory(as_json))
    assert undeclared < as_said - 2 and unread > 0  # without the declaration it is not read


def test_prefixes_are_split_off_with_their_stamps() -> None:
    assert split_prefixes("[2023-05-30T23:40:00] user: [2023/05/30 (Tue) 23:40] user: Hi") == (
        ("2023-05-30T23:40:00", "2023/05/30 (Tue) 23:40"),
        "Hi",
    )
    assert split_prefixes("[None] assistant: ok") == (("None",), "ok")
    assert split_prefixes("User: ok") == ((), "ok")
    assert split_prefixes("2023-05-30T23:40:00 user: ok") == (("2023-05-30T23:40:00",), "ok")
    assert split_prefixes("[note] ok") == (("note",), "ok")
    # the suites' own lines stay whole
    for line in ("2011-03-14 09:30:00 | the pier", "Action: I buy bread.", "8 May, 2023 | Caroline: hi", "plain"):
        assert split_prefixes(line) == ((), line)


def test_every_line_of_a_memory_loses_its_prefix() -> None:
    memory = Memory("[t] user: 2011-03-14 09:30:00 | the pier\nAction: I buy bread.\n[t] user: undated | x")
    assert message_text(memory) == "2011-03-14 09:30:00 | the pier\nAction: I buy bread.\nundated | x"
    assert message_text(Memory("{json}", verbatim="[t] user: own text")) == "own text"


def test_a_released_knowme_unit_behind_a_prefix_is_read(tmp_path: Path) -> None:
    from pytest_memeval.suites.knowme.stream import Unit, parse_units, render

    unit = Unit(0, "2011-03-14 09:30:00", "the pier", action="I buy bread for Ada.")
    (read,) = parse_units([message_text(Memory(f"[2011-03-14T09:30:00] user: {render(unit)}"))])
    assert (read.location, read.get("action")) == ("the pier", "I buy bread for Ada.")


def _reading(system: KeywordMemory) -> Any:
    return offline_reading(system, "ns", "kitcode", lambda query: system.retrieve("ns", query, 12))


def test_the_kit_reads_verbatim_and_prefixed_memories() -> None:
    assert _reading(KeywordMemory(verbatim)) == Reading(None)
    assert _reading(KeywordMemory(prefixed)) == Reading(None)
    assert _reading(KeywordMemory(lambda m: json.dumps({"content": m.content}), declare=True)) == Reading(None)


@pytest.mark.parametrize(
    "write",
    [lambda m: f"{m.role} said: {m.content}", lambda m: json.dumps({"role": m.role, "content": m.content})],
    ids=["role-said", "json"],
)
def test_the_kit_names_what_the_readers_cannot_read_and_what_to_change(write: Callable[[Message], str]) -> None:
    reading = _reading(KeywordMemory(write))
    assert not reading.rewrites and reading.problem is not None
    assert reading.problem.startswith("the offline readers of knowme, longmemeval")
    assert "cannot read this adapter's memories: it stored '2011-03-14 09:30:00 | the kitcode pier" in reading.problem
    assert reading.problem.endswith(ADVICE) and "Memory.verbatim" in ADVICE


def test_the_kit_tells_a_rewriting_system_to_use_an_llm_responder() -> None:
    reading = _reading(KeywordMemory(lambda m: f"The user shared {len(m.content.split())} words."))
    assert reading == Reading(REWRITES, rewrites=True) and "--memeval-responder=openai:MODEL" in REWRITES
