"""Progress lines while contexts are filled and texts embedded: visible in the terminal of a
chroma run, with and without xdist, without breaking pytest's own output."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from pytest_memeval.memory.embedders import HashingEmbedder
from pytest_memeval.rendering.progress_line import ProgressDisplay, _duration
from pytest_memeval.running.progress_tracking import (
    Progress,
    ProgressTracker,
    TrackedEmbedder,
    read_progress,
)

LINE = re.compile(r"^memeval progress \S+: \d+/\d+ items")


def progress_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if LINE.match(line)]


@pytest.mark.slow
def test_a_chroma_run_under_xdist_shows_progress_per_worker(suite_pytester: pytest.Pytester) -> None:
    result = suite_pytester.runpytest_subprocess(
        "--memsystem=chroma",
        "--memeval-embedder=hashing",
        "--memeval-suite=memfail",
        "-n",
        "2",
        "--memeval-progress=0.3",
        "-p",
        "no:cacheprovider",
        timeout=600,
    )
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stdout.str()[-3000:]
    output = result.stdout.str()
    lines = progress_lines(output)
    assert lines, output[:3000]
    assert re.search(
        r"^  gw[01]: \d+ items, (filling memfail s42-\S+ \(session \d+ of \d+\)|\d+ contexts filled)",
        output,
        re.MULTILINE,
    ), output[:3000]
    assert re.search(r"texts/s", output)
    assert "[100%]" in output and "memeval summary" in output  # pytest's output goes on around them
    for line in output.splitlines():
        assert "memeval progress" not in line or line.startswith("memeval progress"), line  # own lines only


@pytest.mark.slow
def test_a_run_without_xdist_prints_between_sessions_not_into_captured_output(toy_pytester: pytest.Pytester) -> None:
    # in a process of its own: chromadb keeps process-wide state that a second in-process run
    # in the same xdist worker can trip over ("attempt to write a readonly database")
    result = toy_pytester.runpytest_subprocess(
        "test_toy.py", "--memsystem=chroma", "--memeval-embedder=hashing", "--memeval-progress=0.001"
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-3000:]
    output = result.stdout.str()
    assert progress_lines(output), output
    result.stdout.fnmatch_lines(["  main: * items, filling toy *(session * of 1)*"])
    assert "Captured stdout" not in output and "12 passed" in output


@pytest.mark.slow
def test_progress_is_off_with_zero(toy_pytester: pytest.Pytester) -> None:
    result = toy_pytester.runpytest("test_toy.py", "--memsystem=context", "--memeval-progress=0")
    assert result.ret == pytest.ExitCode.OK and not progress_lines(result.stdout.str())


def test_a_worker_writes_its_progress_and_the_controller_reads_it(tmp_path: Any) -> None:
    tracker = ProgressTracker("gw3", tmp_path / "gw3.json")
    tracker.fill_started("memfail s42-update", 16)
    tracker.session_ingested()
    (read,) = read_progress(str(tmp_path))
    assert (read.worker, read.filling, read.sessions_total) == ("gw3", "memfail s42-update", 16)
    tracker.fill_finished()
    assert read_progress(str(tmp_path))[0].contexts_filled == 1


def test_the_tracked_embedder_counts_texts_and_cache_misses() -> None:
    class Cached:
        name, dim, misses = "e", 2, 0

        def embed(self, texts: list[str]) -> list[list[float]]:
            self.misses += 1  # one of them was new
            return [[0.0, 1.0] for _ in texts]

    tracker = ProgressTracker()
    embedder = TrackedEmbedder(Cached(), tracker)
    assert embedder.embed(["a", "b", "c"]) == [[0.0, 1.0]] * 3 and embedder.name == "e"
    snapshot = tracker.snapshot()
    assert (snapshot.texts, snapshot.texts_new) == (3, 1)
    TrackedEmbedder(HashingEmbedder(), tracker).embed(["d", "e"])  # counts no misses: every text is new
    snapshot = tracker.snapshot()
    assert (snapshot.texts, snapshot.texts_new) == (5, 3)


def test_the_eta_counts_contexts_so_quick_items_do_not_promise_an_early_end() -> None:
    # one context of 100 quick items is done; 9 contexts of one item each remain, the first
    # half filled: a tenth and a half of the work, not 100 of 109 items
    groups = {f"big-{i}": "s::big::chroma" for i in range(100)} | {f"one-{i}": f"s::one-{i}::chroma" for i in range(9)}
    display = ProgressDisplay(None, 10.0, list, groups=lambda: groups)  # type: ignore[arg-type]
    display.collected([f"test_s.py::test_s[{params}]" for params in groups])
    for i in range(100):
        display.group_done[display.group_of(f"test_s.py::test_s[big-{i}]")] += 1
    display.done = 100
    display._started, display._last_time = 0.0, 90.0
    busy = Progress("gw0", items_done=60, filling="s one-0", sessions_done=2, sessions_total=4, texts=400)
    idle = Progress("gw1", items_done=40, contexts_filled=1)
    lines = display.lines({"gw0": busy, "gw1": idle}, [busy], now=100.0)
    assert lines == [
        "memeval progress 1m40s: 100/109 items, 1/10 contexts, ETA 9m26s; embedding 40 texts/s (0 new so far)",
        "  gw0: 60 items, filling s one-0 (session 2 of 4), 40 texts/s",
    ]
    assert _duration(7300) == "2h01m"


def test_tests_outside_every_suite_count_one_each() -> None:
    display = ProgressDisplay(None, 10.0, list)  # type: ignore[arg-type]
    display.collected([f"test_x.py::test_{i}" for i in range(200)])
    for i in range(50):
        display.group_done[display.group_of(f"test_x.py::test_{i}")] += 1
    display.done = 50
    display._started, display._last_time = 0.0, 90.0
    (line,) = display.lines({}, [], now=100.0)
    assert line == "memeval progress 1m40s: 50/200 items, 50/200 contexts, ETA 5m00s"


def test_a_fill_reports_the_processs_resident_memory(tmp_path: Any) -> None:
    tracker = ProgressTracker("gw0", tmp_path / "gw0.json")
    tracker.fill_started("longmemeval q1", 500)
    tracker.session_ingested()
    (read,) = read_progress(str(tmp_path))
    assert read.resident_mb > 1  # a Python process holds megabytes
    display = ProgressDisplay(None, 10.0, list)  # type: ignore[arg-type]
    busy = Progress(
        "gw0", items_done=3, filling="longmemeval q1", sessions_done=212, sessions_total=500, resident_mb=412.4
    )
    assert display.lines({"gw0": busy}, [busy], now=1.0)[1] == (
        "  gw0: 3 items, filling longmemeval q1 (session 212 of 500), 412 MB resident"
    )


#: a default run's contexts as the smoke suites have them (suite, contexts, items each,
#: characters each), in the order pytest collects the bundled modules
SMOKE_RUN = [
    ("bayes", 35, 1, 2_000),
    ("behavior", 18, 16, 5_000),
    ("knowme", 3, 21, 30_000),
    ("locomo", 4, 10, 4_000),
    ("longmemeval", 16, 1, 2_000),
    ("memfail", 6, 8, 2_400),
    ("multisource", 12, 18, 26_000),
]


def _predicted_ends(weighed: bool) -> list[float]:
    """The end of the run each progress line would promise (elapsed + ETA), after the first
    tenth of the contexts, on a deterministic clock: a fill costs 1 s per 1,000 characters,
    stored in sessions of 1,000, and an item 0.05 s."""
    groups = {
        f"{suite}-{c}-{i}": f"{suite}::c{c}::chroma"
        for suite, contexts, items, _ in SMOKE_RUN
        for c in range(contexts)
        for i in range(items)
    }
    sizes = {f"{suite}::c{c}::chroma": chars for suite, contexts, _, chars in SMOKE_RUN for c in range(contexts)}
    display = ProgressDisplay(
        None, 10.0, list, groups=lambda: groups, sizes=(lambda _: sizes) if weighed else (lambda _: {})
    )  # type: ignore[arg-type]
    display.collected([f"test_x.py::test_x[{params}]" for params in groups])
    clock, finished, ends = 0.0, 0, []
    contexts = sum(n for _, n, _, _ in SMOKE_RUN)

    def look(progress: Progress) -> None:
        share = display.share_done({"main": progress})
        if finished >= contexts / 10 and 0 < share < 1:
            ends.append(clock / share)

    for suite, n, items, chars in SMOKE_RUN:
        for c in range(n):
            progress = Progress("main", filling=f"{suite} c{c}", sessions_total=-(-chars // 1000))
            for stored in range(0, chars, 1000):
                clock += min(1000, chars - stored) / 1000
                progress.sessions_done += 1
                progress.fill_chars += min(1000, chars - stored)
                look(progress)
            for _ in range(items):
                clock += 0.05
                display.group_done[f"{suite}::c{c}::chroma"] += 1
                display.done += 1
                look(Progress("main"))
            finished += 1
    assert display.share_done({}) == 1.0 and ends
    return ends


def test_the_eta_measured_in_what_contexts_store_does_not_swing_by_more_than_2x() -> None:
    ends = _predicted_ends(weighed=True)
    assert max(ends) / min(ends) <= 2, (min(ends), max(ends))
    # counted in contexts, as before: knowme's three large fills after many small ones
    unweighed = _predicted_ends(weighed=False)
    assert max(unweighed) / min(unweighed) > 2


class _Terminal:
    def __init__(self, tty: bool) -> None:
        self.tty, self.lines = tty, []

    def isatty(self) -> bool:
        return self.tty

    def ensure_newline(self) -> None:
        pass

    def write_line(self, line: str) -> None:
        self.lines.append(line)

    @property
    def config(self) -> Any:
        return _Config()


class _Config:
    class pluginmanager:
        @staticmethod
        def get_plugin(name: str) -> None:
            return None

    class _Writer:
        width_of_current_line = 0
        fullwidth = 80

        def line(self) -> None:
            pass

    def get_terminal_writer(self) -> Any:
        return self._Writer()


def _display(tracker: ProgressTracker, tty: bool) -> tuple[ProgressDisplay, _Terminal]:
    display = ProgressDisplay(_Config(), 10.0, lambda: [tracker.snapshot()], threaded=False)  # type: ignore[arg-type]
    terminal = _Terminal(tty)
    display.terminal, display._started, display._last_time = terminal, time.monotonic(), time.monotonic()
    tracker.listener = display.maybe_print
    return display, terminal


def test_a_load_is_shown_at_once_with_its_time() -> None:
    tracker = ProgressTracker()
    tracker.fill_started("knowme s2026-life00", 110)
    _, terminal = _display(tracker, tty=False)
    with tracker.loading("the embedder sentence-transformers/all-MiniLM-L6-v2"):
        assert terminal.lines[-1].startswith(
            "  main: 0 items, loading the embedder sentence-transformers/all-MiniLM-L6-v2 (0s), "
            "filling knowme s2026-life00 (session 0 of 110), "
        )
    assert tracker.snapshot().loading == ""
    loading = Progress("gw1", loading="the embedder e", loading_since=time.time() - 62.2)
    line = ProgressDisplay(None, 10.0, list).lines({"gw1": loading}, [loading], now=1.0)[1]  # type: ignore[arg-type]
    assert re.fullmatch(r"  gw1: 0 items, loading the embedder e \(1m0[23]s\), 0 contexts filled", line), line


@pytest.mark.parametrize("tty", [False, True], ids=["log", "terminal"])
def test_lines_are_cut_to_the_width_on_a_terminal_only(tty: bool) -> None:
    tracker = ProgressTracker()
    tracker.fill_started("longmemeval " + "x" * 120, 500)
    _, terminal = _display(tracker, tty=tty)
    with tracker.loading("the embedder e"):
        pass
    worker_line = terminal.lines[-1]
    assert worker_line.endswith(" MB resident") != tty and (len(worker_line) <= 79) == tty


def test_the_minilm_embedder_says_when_its_weights_load(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_memeval.memory import embedders

    class Model:
        def encode(self, texts: list[str], **_: Any) -> Any:
            return [[0.0] * 384 for _ in texts]

    loads: list[str] = []

    @contextmanager
    def loading(what: str) -> Iterator[None]:
        loads.append(what)
        yield

    monkeypatch.setattr(embedders, "_load_minilm", Model)
    embedder = embedders.make_embedder("minilm", loading=loading)
    embedder.embed(["a"])
    embedder.embed(["b"])
    assert loads == ["the embedder sentence-transformers/all-MiniLM-L6-v2"]


def test_context_groups_weigh_the_characters_they_store(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    from harness import CommandLine

    from pytest_memeval.running.context_sizes import group_sizes
    from pytest_memeval.running.run_setup import prepare_run

    monkeypatch.setenv("MEMEVAL_CACHE_DIR", str(tmp_path / "cache"))
    options = vars(request.config.option)
    defaults = {name: value for name, value in options.items() if name.startswith(("memeval_", "memsystem"))}
    state = prepare_run(
        CommandLine(defaults, ["--memsystem=context", "--memeval-suite=locomo,longmemeval"]), True
    ).state
    sizes = group_sizes(state)
    for suite_ref in ("locomo", "longmemeval"):
        suite = state.suite(suite_ref)
        for context_id in {entry.context_id for entry in state.index(suite_ref)}:
            stored = sum(len(m.content) for session in suite.context(context_id).sessions for m in session)
            assert sizes[f"{suite_ref}::{context_id}::context"] == stored > 0
