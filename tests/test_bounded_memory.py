"""What a run keeps in memory and in its records is bounded, whatever an adapter or a
server sends.

The audit's cases: the runner's token counter (now `tokens.process_counter`) was an
lru_cache keyed by whole memory texts (36 items with unique 10 MB memories took 625 MB RSS
instead of 84 MB), and an invalid answer's `raw` was kept whole (two 50 MB answers made a
100 MB report).
"""

from __future__ import annotations

import gc
import tracemalloc

from pytest_memeval.memory.tokens import count_tokens, process_counter
from pytest_memeval.results.records import RunKey
from pytest_memeval.running.runner import Retrieval, conclude
from pytest_memeval.types import Answer, Item, ItemView, Trace, Verdict

MB = 1 << 20


def test_counting_new_long_texts_keeps_none_of_them() -> None:
    """Twenty distinct 1 MB texts through the runner's counter: the counts are right and
    what stays allocated afterwards is a few kilobytes, not twenty megabytes."""
    expected = [count_tokens(_long_text(n)) for n in range(20)]
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        counts = [process_counter(_long_text(n)) for n in range(20)]  # each text is dropped after
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert counts == expected
    assert kept < MB, f"{kept / MB:.1f} MB kept after counting 20 MB of text"


def _long_text(n: int) -> str:
    """A new 1 MB text of about a thousand words."""
    return f"text {n} " + ("w" * 1023 + " ") * (MB // 1024)


def test_the_counter_remembers_a_text_and_forgets_the_least_recently_used() -> None:
    from pytest_memeval.memory.tokens import TokenCounter

    counter = TokenCounter(max_entries=2)
    assert counter("a b c") == 3 and counter("d e") == 2
    assert counter("a b c") == 3  # seen: now the most recent
    counter("f")
    assert len(counter) == 2
    assert counter("a b c") == 3 and counter("\ud800 lone surrogate") == 3  # any str can be counted


class _Judge:
    def score(self, item: Item, answer: Answer, trace: Trace) -> Verdict:
        raise AssertionError("an invalid answer is never judged")


class _Memory:
    ingest_ms: tuple[float, ...] = ()
    searchable_ms: tuple[float | None, ...] = ()
    keeps_sources = False

    def ingest_stats(self) -> None:
        return None

    def fill_cost(self) -> None:
        return None

    def dump(self) -> None:
        return None


def test_an_invalid_answers_text_is_kept_to_its_beginning_and_its_length() -> None:
    from pytest_memeval.results.records import RAW_CHARS, kept_text

    item = Item("i", "c", "c", ItemView("toy", "t", "q?"), gold="x")
    raw = "no schema here " * (4 * MB // 15)
    outcome = conclude(
        RunKey("toy", "m"),
        "toy",
        item,
        Answer(None, valid=False, raw=raw),
        0.0,
        Retrieval([], 0.0),
        _Memory(),
        _Judge(),  # type: ignore[arg-type]
    )
    assert outcome.record.status == "invalid"
    assert outcome.record.raw.startswith(raw[:RAW_CHARS]) and len(outcome.record.raw) < RAW_CHARS + 100
    assert outcome.record.raw.endswith(f"[{len(raw):,} characters in all]")
    assert kept_text("short", RAW_CHARS) == "short"


def test_memfails_reader_keeps_no_long_sentence_it_read() -> None:
    from pytest_memeval.suites.memfail.read_longhop import anchors_in

    anchors_in("warm the index up")
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        found = [anchors_in(_long_text(n)) for n in range(10)]  # each sentence is dropped after
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert found == [()] * 10
    assert kept < MB, f"{kept / MB:.1f} MB kept after reading 10 MB of sentences"


class _WholeAnswerJudge:
    """Scores the answer it is given, and keeps its length: the judge sees the whole answer."""

    seen = 0

    def score(self, item: Item, answer: Answer, trace: Trace) -> Verdict:
        self.seen = len(answer.label or "")
        return Verdict(correct=False, reason=f"judged {answer.label}")


def test_a_scored_answer_is_judged_whole_and_kept_to_its_beginning_and_its_length() -> None:
    """The audit's case: a 100 MB scored answer was kept whole (105 MB JSON and HTML, 1.35 GB
    of memory) while memory texts and invalid answers were bounded."""
    from pytest_memeval.results.records import ANSWER_CHARS
    from pytest_memeval.running.runner import failure_message
    from pytest_memeval.running.snapshots import normalised_verdict

    item = Item("i", "c", "c", ItemView("toy", "t", "q?"), gold="x")
    label = "a long answer " * (4 * MB // 14)
    judge = _WholeAnswerJudge()
    outcome = conclude(
        RunKey("toy", "m"),
        "toy",
        item,
        Answer(label),
        0.0,
        Retrieval([], 0.0),
        _Memory(),
        judge,  # type: ignore[arg-type]
    )
    assert judge.seen == len(label)
    record = outcome.record
    assert record.status == "scored" and record.answer is not None
    assert record.answer.startswith(label[:ANSWER_CHARS]) and record.answer.endswith(
        f"[{len(label):,} characters in all]"
    )
    assert len(record.answer) < ANSWER_CHARS + 100 and len(record.judge_reason) < ANSWER_CHARS + 100
    assert len(failure_message(outcome)) < 3 * ANSWER_CHARS  # a failed test's message, the JUnit file's too
    assert normalised_verdict(outcome)["answer"] == record.answer  # a snapshot keeps what the record keeps
    short = conclude(
        RunKey("toy", "m"),
        "toy",
        item,
        Answer("lima"),
        0.0,
        Retrieval([], 0.0),
        _Memory(),
        judge,  # type: ignore[arg-type]
    )
    assert short.record.answer == "lima" and short.record.judge_reason == "judged lima"
