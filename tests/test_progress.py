"""Progress lines while contexts are filled and texts embedded: visible in the terminal of a
chroma run, with and without xdist, without breaking pytest's own output."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pytest_memeval.rendering.progress_display import ProgressDisplay, _duration
from pytest_memeval.running.progress import (
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
