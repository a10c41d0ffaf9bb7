"""Campaigns that survive: a run killed at three points and resumed under -n 2 equals an
uninterrupted run; three shards merged equal one run; every refusal is one line.

These run pytest in subprocesses (slow). The shard balancing itself is tested fast below.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from harness import make_record

from pytest_memeval.config.shard_syntax import Shard
from pytest_memeval.results.records import Report
from pytest_memeval.running.runner import namespace_for
from pytest_memeval.running.shards import assign, durations

WIDE_TEST = """
import pytest
from pytest_memeval import check

@pytest.mark.memeval("campaign_suite:WideToySuite")
def test_wide(memeval_result):
    check(memeval_result)
"""
SYSTEMS = "--memsystem=campaign_suite:KillSwitchMemory,none"
ARGS = ("test_wide.py", SYSTEMS, "--memeval-bootstrap=300", "-p", "no:cacheprovider")
#: the per-phase timings a record measures: they differ between any two runs
TIMINGS = ("retrieve_ms", "answer_ms", "ingest_ms", "judge_ms")
TOTAL = 60  # 30 items x 2 memory systems


@pytest.fixture
def wide(suite_pytester: pytest.Pytester) -> pytest.Pytester:
    suite_pytester.makepyfile(test_wide=WIDE_TEST)
    return suite_pytester


def comparable(path: Path) -> dict[str, Any]:
    """A report without what differs between two runs of one protocol: the timings, and the
    settings that name files."""
    data = json.loads(path.read_text())
    records = [{k: v for k, v in record.items() if k not in TIMINGS} for record in data["records"]]
    usage = [{k: v for k, v in run.items() if k != "latency"} for run in data["usage"]]
    return {
        "runs": data["runs"],
        "usage": usage,
        "comparisons": data["comparisons"],
        "gates": data["gates"],
        "session_errors": data["session_errors"],
        "fingerprint": data["fingerprint"],
        "records": records,
    }


def _stop_leftovers(directory: Path) -> None:
    """Workers of a killed controller that are still alive (their cwd is the test's)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if Path(os.readlink(entry / "cwd")) == directory:
                os.kill(int(entry.name), signal.SIGKILL)
        except OSError:
            continue


@pytest.mark.slow
@pytest.mark.parametrize(
    "who, after, killed_status",
    [("controller-kill", 8, -signal.SIGKILL), ("worker-kill", 24, 1), ("controller-int", 40, 2)],
)
def test_a_run_killed_and_resumed_under_xdist_equals_an_uninterrupted_run(
    wide: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, who: str, after: int, killed_status: int
) -> None:
    reference = wide.path / "reference.json"
    whole = wide.runpytest_subprocess(*ARGS, "-n", "2", f"--memeval-report={reference}")
    assert whole.ret == pytest.ExitCode.TESTS_FAILED, whole.stdout.str()  # wrong answers are expected
    assert not (wide.path / "reference.journal.jsonl").exists()  # a finished run leaves no journal

    report = wide.path / "run.json"
    journal = wide.path / "run.journal.jsonl"
    fills = wide.path / "fills.log"
    monkeypatch.setenv("MEMEVAL_TEST_KILL", f"{who}:{after}:{journal}:{wide.path / 'fired'}")
    try:
        killed = wide.runpytest_subprocess(*ARGS, "-n", "2", f"--memeval-report={report}", timeout=300)
    finally:
        _stop_leftovers(wide.path)
    monkeypatch.delenv("MEMEVAL_TEST_KILL")
    assert (wide.path / "fired").exists(), killed.stdout.str()
    assert killed.ret == killed_status, killed.stdout.str() + killed.stderr.str()
    held = journal.read_bytes().count(b'{"record"')
    if who == "worker-kill":  # xdist ran the rest elsewhere (the item it died on too); the crash is an error
        errors = json.loads(report.read_text())["session_errors"]
        assert len(errors) == 1 and "crashed while running" in errors[0]
        assert after <= held <= TOTAL
    else:
        assert after <= held < TOTAL

    rerun = wide.runpytest_subprocess(*ARGS, "-n", "2", f"--memeval-report={report}")
    assert rerun.ret == pytest.ExitCode.USAGE_ERROR  # the journal is never overwritten
    assert f"run.journal.jsonl holds {held} records of an unfinished run: pass --memeval-resume" in rerun.stderr.str()

    entries = [json.loads(line)["record"] for line in journal.read_text().splitlines() if line.startswith('{"record"')]
    held_per_context = Counter(
        r["context"] for r in entries if r["key"]["memsystem"].endswith("KillSwitchMemory") and r["status"] != "error"
    )
    all_done = {namespace_for("widetoy", context) for context, n in held_per_context.items() if n == 3}

    monkeypatch.setenv("MEMEVAL_TEST_FILLS", str(fills))
    resumed = wide.runpytest_subprocess(*ARGS, "-n", "2", f"--memeval-report={report}", "--memeval-resume")
    assert resumed.ret == pytest.ExitCode.TESTS_FAILED, resumed.stdout.str()
    assert f"memeval: resuming {journal}: {held} records kept" in resumed.stdout.str()
    assert comparable(report) == comparable(reference)
    assert not journal.exists()  # the resumed run finished: its report holds every record
    filled = set(fills.read_text().split()) if fills.exists() else set()
    assert not filled & all_done  # a context whose items were all done is not filled again
    assert bool(filled) == (held < TOTAL)


@pytest.mark.slow
def test_three_shards_merged_equal_one_run_to_the_last_digit(wide: pytest.Pytester) -> None:
    gate = "widetoy[campaign_suite:KillSwitchMemory].accuracy>=0.5"
    single = wide.path / "single.json"
    one = wide.runpytest_subprocess(*ARGS, f"--memeval-report={single}", f"--memeval-gate={gate}")
    shards = []
    for index in (1, 2, 3):
        path = wide.path / f"shard{index}.json"
        run = wide.runpytest_subprocess(*ARGS, f"--memeval-shard={index}/3", f"--memeval-report={path}")
        assert run.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), run.stdout.str()
        shards.append(path)
    counts = [len(json.loads(p.read_text())["records"]) for p in shards]
    assert sum(counts) == TOTAL and max(counts) - min(counts) <= 6  # one context of 3 items x 2 systems

    merged = wide.path / "merged.json"
    command = [sys.executable, "-m", "pytest_memeval", "merge", *map(str, shards), f"--memeval-report={merged}"]
    result = wide.run(*command, f"--memeval-gate={gate}", f"--memeval-html={wide.path / 'merged.html'}")
    assert result.ret == one.ret == pytest.ExitCode.OK, result.stdout.str() + result.stderr.str()
    assert comparable(merged) == comparable(single)
    assert "memeval fingerprint: protocol" in result.stdout.str()
    assert (wide.path / "merged.html").read_text().count("<svg") >= 1

    def refused(*paths: Path) -> str:
        run = wide.run(sys.executable, "-m", "pytest_memeval", "merge", *map(str, paths), f"--memeval-report={merged}")
        assert run.ret == pytest.ExitCode.USAGE_ERROR, run.stdout.str()
        lines = run.stderr.str().strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in run.stderr.str()
        return lines[0]

    assert refused(shards[0], shards[2]) == "memeval: merge: shard 2/3 missing (given: 1/3, 3/3)"
    overlapping = wide.path / "overlap.json"
    data = json.loads(shards[1].read_text())
    data["records"].append(json.loads(shards[0].read_text())["records"][0])
    overlapping.write_text(json.dumps(data))
    assert "both hold item" in refused(shards[0], overlapping, shards[2])
    other = wide.path / "k5.json"
    run = wide.runpytest_subprocess(*ARGS, "--memeval-shard=3/3", "--memeval-k=5", f"--memeval-report={other}")
    assert run.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
    assert refused(shards[0], shards[1], other) == (
        f"memeval: merge: {shards[0]} and {other} were run under different protocols: "
        "k is [10] in shard1.json, [5] in k5.json"
    )


def test_shards_are_disjoint_complete_and_balanced_by_weight() -> None:
    sizes = {("s", f"c{i}"): 1 + i % 4 for i in range(23)}
    by_count = assign(dict(sizes), sizes, 3)
    assert set(by_count) == set(sizes) and set(by_count.values()) == {1, 2, 3}
    loads = Counter()
    for unit, shard in by_count.items():
        loads[shard] += sizes[unit]
    assert max(loads.values()) - min(loads.values()) <= max(sizes.values())
    assert assign(dict(sizes), sizes, 3) == by_count  # deterministic
    # units that weigh nothing (sub-millisecond records) still spread by their item counts
    spread = assign(dict.fromkeys(sizes, 0.0), sizes, 3)
    assert set(spread.values()) == {1, 2, 3}


def test_recorded_durations_weigh_each_context(tmp_path: Path) -> None:
    records = (
        make_record("a", suite="toy", context="c1", retrieve_ms=1000.0, answer_ms=500.0),
        make_record("b", suite="toy", context="c1", retrieve_ms=200.0),
        make_record("c", suite="toy", context="c2", answer_ms=50.0),
    )
    path = tmp_path / "previous.json"
    path.write_text(json.dumps(Report({}, (), records).to_json()))
    assert durations(path) == {("toy", "c1"): 1.7, ("toy", "c2"): 0.05}


@pytest.mark.parametrize("raw", ["0/3", "4/3", "2", "a/b", "1/0"])
def test_a_shard_is_i_of_n(raw: str) -> None:
    from pytest_memeval.errors import ConfigError

    with pytest.raises(ConfigError, match=r"--memeval-shard: .* is not I/N with 1 <= I <= N"):
        Shard.parse(raw)
    assert str(Shard.parse("2/3")) == "2/3"
