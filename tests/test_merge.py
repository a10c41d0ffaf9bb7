"""`python -m pytest_memeval merge`, in this process: its records counted once, its gates
checked as the run checks its own, its options the run's, every refusal one line (exit 4).

The audit's cases: a record repeated inside one shard was counted twice (`n_items 31`,
accuracy 0.8387 instead of 0.8333), a record of a memory system the shard's fingerprint
does not list was merged, `--gate memfail.success>=-0` passed where the run refuses it, a
gate on an unknown metric, suite or system exited 1 instead of 4, and a usage error was
argparse's several lines and exit status 2. tests/test_campaigns.py merges real shards in
a subprocess.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from harness import make_record, make_settings
from msgspec.structs import replace

from pytest_memeval.__main__ import main
from pytest_memeval.analysis.comparability import run_fingerprint
from pytest_memeval.results.records import Record, Report
from pytest_memeval.running.state import RunState

SUITE = "toysuite:ToySuite"
#: the toy suite's contexts, dealt to two shards
SHARDS = {1: ("ada", "ben"), 2: ("cleo", "dev")}
THINGS = ("colour", "city", "pet")


def _records(contexts: tuple[str, ...]) -> list[Record]:
    """Every item of these contexts; the pets are answered wrongly."""
    return [
        make_record(
            f"{name}-{thing}", suite="toy", memsystem="context", suite_ref=SUITE, context=name, correct=thing != "pet"
        )
        for name in contexts
        for thing in THINGS
    ]


def _write_shard(path: Path, index: int, records: list[Record]) -> Path:
    settings = make_settings("context", cache_dir=path.parent / "cache", bootstrap=50)
    state = RunState.from_settings(settings)
    fingerprint = run_fingerprint(settings, state.memsystems, [state.suite(SUITE)])
    recorded = {"shard": f"{index}/2", "memsystems": ["context"], "suites": ["toy"], "k": [10], "bootstrap": 50}
    path.write_text(json.dumps(Report(recorded, (), tuple(records), fingerprint=fingerprint).to_json()))
    return path


@pytest.fixture
def shards(tmp_path: Path) -> list[Path]:
    return [_write_shard(tmp_path / f"shard{i}.json", i, _records(SHARDS[i])) for i in SHARDS]


def _merge(tmp_path: Path, *args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(["merge", *args])
    return status, capsys.readouterr().err


def _one_line(status: int, err: str) -> str:
    assert status == 4, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_two_shards_merge_into_the_runs_report(
    tmp_path: Path, shards: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    merged = tmp_path / "run.json"
    status, err = _merge(tmp_path, *map(str, shards), f"--memeval-report={merged}", capsys=capsys)
    assert status == 0, err
    [run] = json.loads(merged.read_text())["runs"]
    assert run["n_items"] == 12 and run["metrics"]["accuracy"]["value"] == pytest.approx(8 / 12)


def test_a_record_repeated_inside_one_shard_is_refused_not_counted_twice(
    tmp_path: Path, shards: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    records = _records(SHARDS[2])
    _write_shard(shards[1], 2, [*records, records[0]])
    status, err = _merge(tmp_path, *map(str, shards), f"--memeval-report={tmp_path / 'run.json'}", capsys=capsys)
    assert _one_line(status, err) == (
        f"memeval: merge: {shards[1]}: item cleo-colour (context | reader | k=10, repeat 0) is there twice: "
        "the report was edited or damaged"
    )
    assert not (tmp_path / "run.json").exists()


@pytest.mark.parametrize(
    "change, refusal",
    [
        ({"memsystem": "mem0"}, "its fingerprint lists no memory system 'mem0' (context)"),
        ({"suite": "other"}, "its fingerprint lists no suite 'other' (toy)"),
        ({"k": 5}, "its fingerprint lists no k=5 (10)"),
    ],
)
def test_a_record_of_a_run_its_fingerprint_does_not_list_is_refused(
    tmp_path: Path, shards: list[Path], capsys: pytest.CaptureFixture[str], change: dict[str, Any], refusal: str
) -> None:
    records = _records(SHARDS[2])
    records[0] = replace(records[0], key=replace(records[0].key, **change))
    _write_shard(shards[1], 2, records)
    status, err = _merge(tmp_path, *map(str, shards), f"--memeval-report={tmp_path / 'run.json'}", capsys=capsys)
    assert refusal in _one_line(status, err)


@pytest.mark.parametrize(
    "gate, refusal",
    [
        ("toy.accuracy>=-0", "--memeval-gate: 'toy.accuracy>=-0' can never fail: accuracy lies in [0, 1]"),
        ("toy.acc>=0.5", "--memeval-gate: 'toy.acc>=0.5': toy has no metric 'acc' (metrics: accuracy)"),
        ("nosuch.accuracy>=0.5", "--memeval-gate: 'nosuch.accuracy>=0.5': unknown suite 'nosuch'"),
        ("toy[mem0].accuracy>=0.5", "memory system 'mem0' is not in --memsystem (context)"),
        ("toy.accuracy:no-regression", "--memeval-gate: 'toy.accuracy:no-regression' needs --memeval-baseline"),
    ],
)
def test_gates_are_checked_as_the_run_checks_them(
    tmp_path: Path, shards: list[Path], capsys: pytest.CaptureFixture[str], gate: str, refusal: str
) -> None:
    report = tmp_path / "run.json"
    status, err = _merge(
        tmp_path, *map(str, shards), f"--memeval-report={report}", f"--memeval-gate={gate}", capsys=capsys
    )
    assert refusal in _one_line(status, err)
    assert not report.exists()


def test_a_gate_decides_the_merges_exit_status(
    tmp_path: Path, shards: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    args = [*map(str, shards), f"--memeval-report={tmp_path / 'run.json'}"]
    assert _merge(tmp_path, *args, "--memeval-gate=toy.accuracy>=0.6", capsys=capsys)[0] == 0
    assert _merge(tmp_path, *args, "--memeval-gate=toy.accuracy>=0.7", capsys=capsys)[0] == 1


@pytest.mark.parametrize(
    "args, refusal",
    [
        ([], "memeval: the following arguments are required: COMMAND (python -m pytest_memeval --help)"),
        (["merge"], "the following arguments are required: SHARD.json, --memeval-report"),
        (["merge", "a.json", "--memeval-report"], "argument --memeval-report: expected one argument"),
        (["merge", "a.json", "-o", "run.json"], "the following arguments are required: --memeval-report"),
        (["merge", "a.json", "--memeval-report=r.json", "--gate=x"], "unrecognized arguments: --gate=x"),
    ],
)
def test_a_usage_error_is_one_line_and_exit_status_4(
    args: list[str], refusal: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert refusal in _one_line(main(args), capsys.readouterr().err)


def test_the_merged_report_may_not_overwrite_a_shard_or_the_page(
    tmp_path: Path, shards: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    before = shards[0].read_bytes()
    status, err = _merge(tmp_path, *map(str, shards), f"--memeval-report={shards[0]}", capsys=capsys)
    assert f"--memeval-report: {shards[0]} is also the shard {shards[0]}" in _one_line(status, err)
    assert shards[0].read_bytes() == before
    page = tmp_path / "run.json"
    status, err = _merge(
        tmp_path, *map(str, shards), f"--memeval-report={page}", f"--memeval-html={page}", capsys=capsys
    )
    assert "--memeval-html: " in _one_line(status, err)
