"""The offline readers mark memories they cannot read, instead of scoring them silently."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from harness import make_record
from pytest_memeval.suites.bayes.agents import perfect_bayesian

from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.framework.unreadable import count_unreadable, marked, unreadable_note
from pytest_memeval.running.registry import available_suites, load_object, load_suite
from pytest_memeval.types import Answer, ItemView, Memory

#: suites whose items answer from a filled namespace (bayes is interactive: tested below)
SUITES = ("knowme", "multisource", "memfail", "behavior", "locomo", "longmemeval", "personamem", "beam")


def timestamped(text: str) -> str:
    """The issue's example: a memory that prefixes a timestamp to every stored line."""
    return "\n".join(f"[2026-01-05T10:00:00] {line}" for line in text.splitlines())


def extracted(text: str) -> str:
    """What an LLM extractor keeps of a message: a reworded gist, none of the suite's wording."""
    return f"User shared a note of {len(text.split())} words."


@pytest.fixture(scope="module")
def suites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    options = SuiteOptions(
        size="smoke",
        split=None,
        seeds=None,
        k=10,
        data_dir=None,
        cache_dir=tmp_path_factory.mktemp("unreadable"),
        bootstrap=50,
    )
    return {name: load_suite(available_suites()[name])(options) for name in SUITES}


def answers(suite: Any, rewrite: Callable[[str], str], n_contexts: int = 1, per_context: int = 6) -> list[Any]:
    """The reader's answers on a few items, each given its whole context as rewritten memories."""
    reader, out = suite.reader(), []
    by_context: dict[str, list[str]] = {}
    for entry in suite.index():
        by_context.setdefault(entry.context_id, []).append(entry.id)
    filled = 0
    for context_id in by_context:
        messages = [m.content for session in suite.context(context_id).sessions for m in session if m.content.strip()]
        if not messages:  # a condition served without memory (behavior's C5, C2a, ...)
            continue
        filled += 1
        if filled > n_contexts:
            break
        memories = [Memory(rewrite(text)) for text in messages[:60]]
        for item_id in by_context[context_id][:per_context]:
            out.append(reader.answer(suite.item(item_id).view, memories))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", SUITES)
def test_the_suites_own_text_is_read(suites: dict[str, Any], name: str) -> None:
    assert not any(a.memory_unreadable for a in answers(suites[name], lambda text: text))


@pytest.mark.slow
@pytest.mark.parametrize("name", SUITES)
def test_extracted_gists_are_marked_unreadable(suites: dict[str, Any], name: str) -> None:
    flags = [a.memory_unreadable for a in answers(suites[name], extracted)]
    assert flags and all(flags), name


def test_a_timestamp_before_every_line_is_read_for_knowme(suites: dict[str, Any]) -> None:
    """knowme's units start with the time: a stamp before every line used to hide every one
    (tests/test_memory_text.py compares whole runs)."""
    read = answers(suites["knowme"], timestamped)
    assert read and not any(a.memory_unreadable for a in read)
    assert all(a.detail["units_read"] > 0 for a in read)


@pytest.mark.parametrize("name", SUITES)
def test_no_memories_is_not_unreadable(suites: dict[str, Any], name: str) -> None:
    suite = suites[name]
    entry = suite.index()[0]
    answer = suite.reader().answer(suite.item(entry.id).view, [])
    assert not answer.memory_unreadable


def test_bayes_reader_marks_memories_without_observations() -> None:
    view = ItemView(
        "bayes",
        "coin_next_flip",
        "Predict the next flip.",
        ("heads", "tails"),
        extra={"env": "coin", "inline": "", "pending": "", "totals": ""},
    )
    reader = perfect_bayesian()
    assert not reader.answer(view, [Memory("Flip #1 was heads"), Memory("I think heads.")]).memory_unreadable
    assert reader.answer(view, [Memory("User flipped a coin and noted the result.")]).memory_unreadable
    assert not reader.answer(view, []).memory_unreadable


def test_marked_needs_text_and_nothing_recognised() -> None:
    answer = Answer("a", detail={"a": 1})
    assert marked(answer, [Memory("x")], 0) == Answer("a", detail={"a": 1}, memory_unreadable=True)
    assert marked(answer, [Memory("x")], 2) == answer
    assert marked(Answer("a"), [Memory("  ")], 0) == Answer("a")


def test_counting_and_the_note() -> None:
    records = [
        make_record("a", memory_unreadable=True),
        make_record("b", memory_unreadable=True),
        make_record("c", memory_unreadable=False),
        make_record("d", status="error", reason="memsystem failed", memory_unreadable=True),  # not answered
        make_record("e", status="invalid", memory_unreadable=True),
    ]
    assert count_unreadable(records) == (2, 3)
    assert (
        unreadable_note("amem", 2, 3)
        == "the offline reader cannot read amem's memories (2 of 3 items); use an LLM responder, "
        "or see what the conformance kit advises (pytest --pyargs pytest_memeval.testing)"
    )
    assert unreadable_note("chroma", 0, 216) is None


def test_a_run_of_unreadable_memories_says_so_and_blocks_its_gates() -> None:
    from pytest_memeval.analysis.gates import evaluate
    from pytest_memeval.analysis.session_report import _summarize
    from pytest_memeval.config.gate_syntax import parse_gate
    from pytest_memeval.results.records import Metric, SuiteSummary

    class Suite:
        metric_bounds = {"accuracy": (0.0, 1.0)}

        def summarize(self, records: Any) -> SuiteSummary:
            return SuiteSummary({"accuracy": Metric(0.0)}, note="offline reader")

    records = [make_record(f"i{n}", suite="toy", memsystem="amem", memory_unreadable=n < 2) for n in range(3)]
    run = _summarize(Suite(), records[0].key, records, [], subset=None, n_resamples=200)  # type: ignore[arg-type]
    unreadable = (
        "the offline reader cannot read amem's memories (2 of 3 items); use an LLM responder, "
        "or see what the conformance kit advises (pytest --pyargs pytest_memeval.testing)"
    )
    assert run.note == f"offline reader; {unreadable}" and run.gate_blocker == unreadable
    (verdict,) = evaluate(parse_gate("toy.accuracy>=0"), [run], [])
    assert not verdict.passed and unreadable in verdict.detail


def test_every_bundled_suite_reader_is_covered() -> None:
    """A new suite's reader must mark unreadable memories too: add it here."""
    assert set(available_suites()) >= set(SUITES) | {"bayes"}
    for name in available_suites():
        module = available_suites()[name].split(":")[0].rsplit(".", 1)[0]
        readers = [
            p
            for p in Path(__file__).parents[1].joinpath(*module.split(".")[1:]).glob("*.py")
            if re.search(r"\bfrom pytest_memeval\.framework\.unreadable import marked\b", p.read_text())
        ]
        assert readers, f"the {name} suite's reader does not mark unreadable memories"


class GistMemory:
    """Keeps only an extractor's gist of each message, and returns all of it."""

    def __init__(self) -> None:
        self.store: dict[str, list[str]] = {}

    def reset(self, namespace: str) -> None:
        self.store.pop(namespace, None)

    def ingest(self, namespace: str, session: Any) -> None:
        self.store.setdefault(namespace, []).extend(extracted(m.content) for m in session)

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        return [Memory(text) for text in self.store.get(namespace, [])[:k]]

    def dump(self, namespace: str) -> list[Memory]:
        return [Memory(text) for text in self.store.get(namespace, [])]

    def close(self) -> None:
        pass


def test_a_bayes_episode_on_unreadable_memories_is_marked(tmp_path: Path) -> None:
    from pytest_memeval.suites.bayes.offline import run_episodes

    options = SuiteOptions(size="smoke", split=None, seeds=None, k=10, data_dir=None, cache_dir=tmp_path, bootstrap=50)
    suite = load_suite(available_suites()["bayes"])(options)
    episode = next(e.id for e in suite.index() if "coin" in e.id and "passive" in e.id)
    (unread,) = run_episodes(suite, GistMemory(), "gist", perfect_bayesian(), "reader", [episode], k=10)
    (read,) = run_episodes(
        suite,
        load_object("pytest_memeval.memory.context:ContextMemory")(),
        "context",
        perfect_bayesian(),
        "reader",
        [episode],
        k=10,
    )
    assert unread.memory_unreadable and unread.answer_detail["unreadable_answers"] > 0
    assert not read.memory_unreadable
    assert count_unreadable([unread, read]) == (1, 2)


def test_the_failure_message_says_the_memories_were_unreadable(suites: dict[str, Any]) -> None:
    from pytest_memeval.running.runner import Outcome, failure_message
    from pytest_memeval.types import Verdict

    suite = suites["knowme"]
    entry = next(e for e in suite.index() if suite.context(e.context_id).sessions)
    item = suite.item(entry.id)
    memories = tuple(Memory(extracted(m.content)) for s in suite.context(entry.context_id).sessions for m in s)[:10]
    answer = suite.reader().answer(item.view, memories)
    record = make_record(item.id, n_memories=10)
    message = failure_message(Outcome(item, memories, answer, Verdict(correct=False), record))
    assert "memories retrieved: 10 (the offline reader recognised nothing in them; use an LLM responder)" in message
