"""Scale: linear reporting, one record per item, groups that use the workers, one reader
fit per cold run, a faster multisource reader with the same answers, a lazy embedder."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from _pytest.terminal import TerminalReporter

from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.running.record_collector import RECORD_PROPERTY, record_from_wire

WORKERS = ("-n", "2")


@pytest.mark.slow
def test_wrong_answers_are_one_line_each_grouped_and_skip_pytests_per_failure_scan(
    toy_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    toy_pytester.makepyfile(test_plain="def test_plain():\n    assert 1 == 2\n")
    scanned: list[str] = []
    original = TerminalReporter._get_teardown_reports

    def counting(self: TerminalReporter, nodeid: str) -> Any:
        scanned.append(str(nodeid))
        return original(self, nodeid)

    monkeypatch.setattr(TerminalReporter, "_get_teardown_reports", counting)
    junit = toy_pytester.path / "junit.xml"
    result = toy_pytester.runpytest("test_toy.py", "test_plain.py", "--memsystem=none", f"--junitxml={junit}")
    result.assert_outcomes(failed=13)  # wrong answers stay test failures
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    out = result.stdout.str()
    wrong = [line for line in out.splitlines() if line.startswith("WRONG ")]
    assert len(wrong) == len(set(wrong)) == 12
    assert "WRONG test_toy.py::test_toy[ada-colour] - answered None, expected 'red' (abstained)" in wrong
    result.stdout.fnmatch_lines(
        [
            "*memeval: 12 wrong answers*",
            "wrong answers by suite | system | stage:",
            "  toy | none: 12 of 12 scored (abstained 12)",
        ]
    )
    # pytest's own sections: the plain failure only (its traceback, its short-summary line)
    assert scanned == ["test_plain.py::test_plain"]
    assert "FAILED test_plain.py::test_plain" in out and "FAILED test_toy.py" not in out
    assert "assert 1 == 2" in out and "_ test_toy[" not in out
    import xml.etree.ElementTree as ET

    failures = [case for case in ET.parse(junit).getroot().iter("testcase") if case.find("failure") is not None]
    assert len(failures) == 13


@pytest.mark.slow
def test_lf_reruns_the_wrong_answers(toy_pytester: pytest.Pytester) -> None:
    toy_pytester.runpytest("test_toy.py", "--memsystem=none", "-p", "cacheprovider").assert_outcomes(failed=12)
    again = toy_pytester.runpytest("test_toy.py", "--memsystem=context", "--lf", "-p", "cacheprovider")
    again.assert_outcomes(passed=12)


REPORT_LOG = """
import os

_config = None


def pytest_configure(config):
    global _config
    _config = config


def pytest_runtest_logreport(report):
    if hasattr(_config, "workerinput"):
        return  # the controller's view only
    names = ",".join(name for name, _ in report.user_properties) or "-"
    with open(os.environ["MEMEVAL_REPORT_LOG"], "a", encoding="utf-8") as log:
        log.write(f"{report.nodeid} {report.when} {names}\\n")
        for name, value in report.user_properties:
            if name == "memeval":
                log.write(f"RECORD {value}\\n")
"""


@pytest.mark.slow
@pytest.mark.parametrize("args", [(), WORKERS], ids=["in-process", "xdist"])
def test_each_record_arrives_once_on_the_teardown_report(
    toy_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    log = toy_pytester.path / "reports.log"
    monkeypatch.setenv("MEMEVAL_REPORT_LOG", str(log))
    toy_pytester.makeconftest(REPORT_LOG)
    result = toy_pytester.runpytest_subprocess("test_toy.py", "--memsystem=context", *args)
    result.assert_outcomes(passed=12)
    lines = log.read_text().splitlines()
    records = [record_from_wire(line.removeprefix("RECORD ")) for line in lines if line.startswith("RECORD ")]
    reports = [line.split(" ") for line in lines if not line.startswith("RECORD ")]
    assert len(records) == 12 and len({r.id for r in records}) == 12
    assert all(r.status == "scored" and r.correct for r in records)
    by_phase = {(nodeid, when): names for nodeid, when, names in reports}
    assert len(by_phase) == 36
    for (nodeid, when), names in by_phase.items():
        # no JUnit fields without --junitxml; nothing on setup and call reports
        assert names == (RECORD_PROPERTY if when == "teardown" else "-"), (nodeid, when, names)
    wire = next(line for line in lines if line.startswith("RECORD "))
    assert ": " not in wire and '"raw"' not in wire  # compact, default fields left out


def _items(pytester: pytest.Pytester, *args: str) -> list[pytest.Item]:
    items, _ = pytester.inline_genitems(*args)
    return items


@pytest.mark.slow
@pytest.mark.parametrize("suite, groups", [("ToySuite", 16), ("SharedStoreToySuite", 8)])
def test_groups_are_context_system_and_k_unless_the_store_is_shared(
    toy_pytester: pytest.Pytester, suite: str, groups: int
) -> None:
    from pytest_memeval import plugin
    from pytest_memeval.running import scheduling
    from pytest_memeval.running.collection import K_ARG, SYSTEM_ARG

    toy_pytester.makepyfile(
        test_toy=f"""
        import pytest
        from pytest_memeval import check

        @pytest.mark.memeval("toysuite:{suite}")
        def test_toy(memeval_result):
            check(memeval_result)
        """
    )
    items = _items(toy_pytester, "test_toy.py", "--memsystem=context,none", "--memeval-k=1,3")
    assert len(items) == 48
    state = items[0].config.stash[plugin.STATE_KEY]
    splits = plugin._splits_by_k(state)
    table = {item.nodeid: scheduling.group_of(item, "context", splits) for item in items}
    members: dict[str, list[pytest.Item]] = {}
    for item in items:
        members.setdefault(str(table[item.nodeid]), []).append(item)
    assert len(members) == groups
    for group in members.values():
        assert len({i.callspec.params[SYSTEM_ARG] for i in group}) == 1
        assert len({i.get_closest_marker("memeval_context").args[0] for i in group}) == 1
        assert len({i.callspec.params[K_ARG] for i in group}) == (1 if groups == 16 else 2)
    # the controller's fallback table (remote workers) gives every item the same group
    fallback = scheduling.groups_by_params(
        {f"toysuite:{suite}": state.index(f"toysuite:{suite}")}, ("context", "none"), (1, 3), splits
    )
    assert {nodeid: fallback[nodeid[nodeid.index("[") + 1 : -1]] for nodeid in table} == table


class _FakeNode:
    def __init__(self, number: int) -> None:
        self.gateway = SimpleNamespace(id=f"gw{number}")
        self.sent: list[int] = []
        self.handed = 0
        self.shutting_down = False

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent.extend(indices)
        self.handed += len(indices)

    def shutdown(self) -> None:
        self.shutting_down = True


def _memfail_schedule(tmp_path: Path, workers: int) -> tuple[list[_FakeNode], Any, list[str]]:
    """The plugin's scheduler over memfail (full size, two systems, two depths) with fake
    workers that collected it; every item is then reported done, worker by worker."""
    from pytest_memeval.suites.memfail.suite import MemfailSuite

    from pytest_memeval.running import scheduling

    suite = MemfailSuite(SuiteOptions("full", None, None, 10, None, tmp_path))
    systems, ks = ("context", "chroma"), (5, 10)
    table = scheduling.groups_by_params({"memfail": suite.index()}, systems, ks, lambda ref: suite.splits_by_k)
    collection = [f"suites/test_memfail.py::test_memfail[{params}]" for params in table]
    config = SimpleNamespace(getvalue=lambda name: [f"{workers}*popen"], option=SimpleNamespace(loadscopereorder=True))
    scheduler = scheduling.make_scheduler(config, None, str(tmp_path / "no-tables"), lambda: table)
    nodes = [_FakeNode(i) for i in range(workers)]
    for node in nodes:
        scheduler.add_node(node)
    for node in nodes:
        scheduler.add_node_collection(node, collection)
    scheduler.schedule()
    while any(node.sent for node in nodes):
        for node in nodes:
            while node.sent:
                scheduler.mark_test_complete(node, node.sent.pop(0))
    return nodes, scheduler, collection


def test_memfail_with_two_systems_gives_work_to_twelve_workers(tmp_path: Path) -> None:
    nodes, scheduler, collection = _memfail_schedule(tmp_path, 16)
    assert len({scheduler._split_scope(nodeid) for nodeid in collection}) == 12  # 6 datasets x 2 systems
    assert sum(node.handed > 0 for node in nodes) == 12
    assert sum(node.handed for node in nodes) == len(collection) == 792 * 2 * 2
    assert scheduler.tests_finished and not scheduler.has_pending


def test_the_scheduler_hands_out_every_item_once_and_closes_its_books(tmp_path: Path) -> None:
    nodes, scheduler, collection = _memfail_schedule(tmp_path, 8)
    assert all(node.handed > 0 for node in nodes)
    assert sum(node.handed for node in nodes) == len(collection)
    assert all(not scopes for scopes in scheduler.assigned_work.values())  # finished scopes leave the books
    assert scheduler.tests_finished


FIT_LOG = """
import os

from pytest_memeval.suites.multisource import reader

_fit = reader.fit_nbf


def _logged(*args, **kwargs):
    with open(os.environ["MEMEVAL_FIT_LOG"], "a", encoding="utf-8") as log:
        log.write(f"{os.getpid()}\\n")
    return _fit(*args, **kwargs)


reader.fit_nbf = _logged
"""


@pytest.mark.slow
def test_a_cold_xdist_run_fits_the_reader_once(
    suite_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import os

    log = tmp_path / "fits.log"
    monkeypatch.setenv("MEMEVAL_FIT_LOG", str(log))
    monkeypatch.setenv("MEMEVAL_CACHE_DIR", str(tmp_path / "cold-cache"))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(suite_pytester.path), os.environ["PYTHONPATH"]]))
    suite_pytester.makepyfile(fitlog=FIT_LOG)
    result = suite_pytester.runpytest_subprocess(
        "--memsystem=context", "--memeval-suite=multisource", "-p", "fitlog", *WORKERS, "-k", "A1 or B2"
    )
    assert result.ret in (0, 1), result.stdout.str()
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) + outcomes.get("failed", 0) == 24  # both workers answered
    assert len(log.read_text().split()) == 1  # smoke: one seed, one fit, on the controller


@pytest.mark.slow
def test_the_reader_answers_as_before_on_the_smoke_set(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The fast path (one parse per retrieval result, the item's rule only) against the
    reader as it was (parse per item, all 18 rules), on every smoke item, with the whole
    persona and with a different partial retrieval per item (cache misses and hits)."""
    from pytest_memeval.suites.multisource.atoms import source_atoms
    from pytest_memeval.suites.multisource.parse import parse_records
    from pytest_memeval.suites.multisource.questions import QUESTIONS
    from pytest_memeval.suites.multisource.reader import sparse_sources
    from pytest_memeval.suites.multisource.suite import MultisourceSuite

    from pytest_memeval.memory.context import ContextMemory
    from pytest_memeval.types import Answer

    def before(reader: Any, item: Any, memories: list[Any]) -> Answer:
        parsed = parse_records([m.text for m in memories])
        atoms = dict(source_atoms(parsed)[item.view.task])
        for name in sparse_sources(parsed, QUESTIONS[item.view.task].window_days):
            atoms[name] = None
        prediction = reader.model_for(item.id).predict(item.view.task, atoms)
        return Answer(
            label=prediction.label,
            abstained=not prediction.answered,
            detail={
                "reader": reader.variant,
                "margin": round(prediction.margin, 6),
                "sources_with_evidence": prediction.n_active,
                "atoms": dict(sorted(atoms.items())),
            },
        )

    cache = tmp_path_factory.getbasetemp() / "memeval-cache"
    suite = MultisourceSuite(SuiteOptions("smoke", None, None, 10, None, cache))
    reader, memory, compared = suite.reader(), ContextMemory(), 0
    for entry in suite.index():
        item = suite.item(entry.id)
        if memory.dump(item.context_id) == []:
            for session in suite.context(item.context_id).sessions:
                memory.ingest(item.context_id, session)
        whole = memory.retrieve(item.context_id, item.view.question, 10)
        partial = whole[compared % 7 :: 3]
        for memories in (whole, partial):
            assert reader.answer(item.view, memories, label=item.id) == before(reader, item, memories), item.id
        compared += 1
    assert compared == 216


class _FakeMiniLM:
    def __init__(self) -> None:
        self.batch_sizes: list[int] = []

    def encode(self, texts: list[str], batch_size: int, **_: Any) -> np.ndarray:
        self.batch_sizes.append(batch_size)
        rows = np.ones((len(texts), 384), dtype=np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_minilm_loads_on_the_first_cache_miss_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_memeval.memory import embedders
    from pytest_memeval.memory.resources import LazyEmbedder

    loaded: list[_FakeMiniLM] = []
    monkeypatch.setattr(embedders, "_load_minilm", lambda: loaded.append(_FakeMiniLM()) or loaded[-1])
    first = LazyEmbedder("minilm", tmp_path, batch_size=7)
    embedder = first.get()  # what an adapter does when it is built
    assert loaded == []
    embedder.embed(["a memory", "another memory"])
    assert len(loaded) == 1 and loaded[0].batch_sizes == [7]
    first.close()
    rerun = LazyEmbedder("minilm", tmp_path)
    rerun.get().embed(["another memory", "a memory"])  # all cached
    assert len(loaded) == 1
    rerun.close()


@pytest.mark.slow
def test_the_embedding_batch_option_reaches_the_embedder(toy_pytester: pytest.Pytester) -> None:
    from pytest_memeval import plugin

    items = _items(toy_pytester, "test_toy.py", "--memsystem=context", "--memeval-embedding-batch=16")
    assert items[0].config.stash[plugin.STATE_KEY].settings.embedding_batch == 16


@pytest.mark.slow
def test_metrics_are_identical_with_and_without_workers_over_two_depths(toy_pytester: pytest.Pytester) -> None:
    def run(*args: str) -> dict[str, Any]:
        report = toy_pytester.path / f"report{len(args)}.json"
        result = toy_pytester.runpytest_subprocess(
            "test_toy.py",
            "--memsystem=chroma,context",
            "--memeval-k=1,3",
            "--memeval-embedder=hashing",
            f"--memeval-report={report}",
            *args,
        )
        assert result.ret in (0, 1), result.stdout.str()
        return json.loads(report.read_text())

    serial, parallel = run(), run(*WORKERS)

    def strip(records):
        return [{k: v for k, v in r.items() if not k.endswith("_ms")} for r in records]

    assert serial["runs"] == parallel["runs"] and len(serial["runs"]) == 4
    assert strip(serial["records"]) == strip(parallel["records"])
