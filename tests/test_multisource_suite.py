"""The multisource suite through pytest: ids, markers, outcomes, xdist, released data, leakage."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pytest_memeval.suites.multisource import QUESTIONS
from pytest_memeval.suites.multisource.generator import generate
from pytest_memeval.suites.multisource.suite import MultisourceSuite
from reference_data import MULTISOURCE as REFERENCE
from reference_data import needs_multisource_reference as needs_reference

from pytest_memeval.framework.suite import SuiteOptions
from pytest_memeval.types import Memory


def _suite(tmp_path: Path, **overrides: object) -> MultisourceSuite:
    options = dict(size="smoke", split=None, seeds=None, k=10, data_dir=None, cache_dir=tmp_path, bootstrap=200)
    options.update(overrides)
    return MultisourceSuite(SuiteOptions(**options))  # type: ignore[arg-type]


@pytest.mark.slow
def test_smoke_collects_one_test_per_persona_and_question(suite_pytester: pytest.Pytester) -> None:
    result = suite_pytester.runpytest("--memsystem=context", "--memeval-suite=multisource", "--collect-only", "-q")
    result.stdout.fnmatch_lines(
        ["*test_multisource.py::test_multisource[[]gen20260321-stable_121-A1[]]", "216 tests collected*"]
    )


@pytest.mark.slow
def test_markers_select_conditions_under_strict_markers(suite_pytester: pytest.Pytester) -> None:
    result = suite_pytester.runpytest(
        "--memsystem=context",
        "--memeval-suite=multisource",
        "--collect-only",
        "-q",
        "--strict-markers",
        "-m",
        "type_F and difficulty_stable",
    )
    result.stdout.fnmatch_lines(["12/216 tests collected (204 deselected)*"])  # 3 questions x 4 personas
    result = suite_pytester.runpytest(
        "--memsystem=context",
        "--memeval-suite=multisource",
        "--collect-only",
        "-q",
        "--strict-markers",
        "-m",
        "fm_cross_midnight",
    )
    result.stdout.fnmatch_lines(["12/216 tests collected*"])  # C3 for the 12 personas


@pytest.mark.slow
def test_markers_are_documented(suite_pytester: pytest.Pytester) -> None:
    result = suite_pytester.runpytest("--markers")
    for marker in (
        "multisource:",
        "type_A:",
        "difficulty_temporal_shift:",
        "edge_label:",
        "source_unreachable:",
        "fm_tracker_missing:",
    ):
        result.stdout.fnmatch_lines([f"@pytest.mark.{marker}*"])


def test_a_run_of_the_bundled_modules_registers_its_own_suites_markers_alone(suite_pytester: pytest.Pytester) -> None:
    """Registering a suite's markers imports the suite: a run of one bundled suite leaves
    the others alone, and `--markers` still lists every suite's."""
    registered: list[str] = []

    class Markers:
        def pytest_collection_finish(self, session: pytest.Session) -> None:
            registered.extend(session.config.getini("markers"))

    run = ("--memsystem=context", "--memeval-suite=multisource", "--memeval-size=smoke")
    result = suite_pytester.runpytest(*run, "--collect-only", "-q", "--strict-markers", plugins=[Markers()])
    assert result.ret == 0, result.stdout.str()
    names = {line.partition(":")[0].partition("(")[0] for line in registered}
    assert {"multisource", "type_A", "memeval"} <= names
    assert names.isdisjoint({"memfail", "knowme", "behavior", "bayes", "locomo", "longmemeval"})
    listed = suite_pytester.runpytest(*run, "--markers")
    for suite in ("multisource", "memfail", "longmemeval"):
        listed.stdout.fnmatch_lines([f"@pytest.mark.{suite}:*"])


@pytest.mark.slow
def test_without_memsystem_only_tests_run(suite_pytester: pytest.Pytester) -> None:
    suite_pytester.makepyfile(test_mine="def test_mine(): pass")
    result = suite_pytester.runpytest("--collect-only", "-q")
    result.stdout.fnmatch_lines(["test_mine.py::test_mine", "1 test collected*"])


def _report(pytester: pytest.Pytester, *args: str) -> dict:
    report = pytester.path / f"report-{len(args)}.json"
    result = pytester.runpytest_subprocess(
        "--memsystem=context,chroma",
        "--memeval-suite=multisource",
        "--memeval-embedder=hashing",
        f"--memeval-report={report}",
        "-p",
        "no:cacheprovider",
        *args,
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()[-2000:]
    return json.loads(report.read_text())


@pytest.mark.slow
def test_two_workers_give_the_same_metrics_as_one_to_the_last_digit(suite_pytester: pytest.Pytester) -> None:
    serial, parallel = _report(suite_pytester), _report(suite_pytester, "-n", "2")
    assert serial["runs"] == parallel["runs"] and serial["comparisons"] == parallel["comparisons"]
    strip = lambda report: [{k: v for k, v in r.items() if not k.endswith("_ms")} for r in report["records"]]  # noqa: E731
    assert strip(serial) == strip(parallel)
    context = next(run for run in serial["runs"] if run["key"]["memsystem"] == "context")
    retrieval = {"recall_at_k", "ndcg_at_k", "mrr", "memories_mapped"}  # multisource declares evidence (3105fcf)
    assert set(context["metrics"]) == {"accuracy", "coverage", "selective_accuracy", "f05"} | retrieval
    breakdowns = {"type", "difficulty", "type_x_difficulty"}
    assert breakdowns <= set(context["breakdown"])
    assert all(name.startswith("retrieval by ") for name in set(context["breakdown"]) - breakdowns)
    lo, hi = context["metrics"]["accuracy"]["ci"]
    assert lo < context["metrics"]["accuracy"]["value"] < hi


@pytest.mark.slow
def test_failure_message_is_readable(suite_pytester: pytest.Pytester, tmp_path: Path) -> None:
    result = suite_pytester.runpytest("--memsystem=none", "--memeval-suite=multisource", "-k", "stable_121-D2")
    result.stdout.fnmatch_lines(
        [
            "*gen20260321-stable_121-D2: answered '*', expected '*'*",
            "question: In the past 30 days, did this person's daily home-cooked meal count*",
            "memories retrieved: 0",
            "judge: gold '*' (profile_meals=*",
        ]
    ) if result.ret else result.assert_outcomes(passed=1)


@pytest.mark.slow
@needs_reference
def test_released_layout_runs_with_memeval_data(suite_pytester: pytest.Pytester) -> None:
    result = suite_pytester.runpytest(
        "--memsystem=context", "--memeval-suite=multisource", f"--memeval-data={REFERENCE}", "--collect-only", "-q"
    )
    # the reference holds 2 test-split personas per difficulty class
    result.stdout.fnmatch_lines(["*test_multisource[[]s20260324-stable_131-A1[]]", "108 tests collected*"])
    outcome = suite_pytester.runpytest(
        "--memsystem=context", "--memeval-suite=multisource", f"--memeval-data={REFERENCE}", "-q"
    )
    assert outcome.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
    outcome.stdout.fnmatch_lines(["multisource", "*context", "  items *108"])


@pytest.mark.slow
@needs_reference
def test_broken_release_is_a_one_line_usage_error(suite_pytester: pytest.Pytester, tmp_path: Path) -> None:
    copy = tmp_path / "release"
    shutil.copytree(REFERENCE / "s20260324", copy / "s20260324")
    (copy / "s20260324" / "bench_stable_131_vera_bennett" / "event_table.json").write_text("{not json")
    result = suite_pytester.runpytest_subprocess(
        "--memsystem=context", "--memeval-suite=multisource", f"--memeval-data={copy}", "--collect-only"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.errlines if line.strip()]
    assert len(errors) == 1 and "event_table.json" in errors[0], errors


@pytest.mark.slow
def test_data_dir_without_seeds_is_a_usage_error(suite_pytester: pytest.Pytester, tmp_path: Path) -> None:
    result = suite_pytester.runpytest_subprocess(
        "--memsystem=context", "--memeval-suite=multisource", f"--memeval-data={tmp_path}", "--collect-only"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --memeval-data: *no s<seed> directories found*"])


@pytest.mark.slow
def test_unknown_seed_is_a_usage_error(suite_pytester: pytest.Pytester) -> None:
    result = suite_pytester.runpytest_subprocess(
        "--memsystem=context", "--memeval-suite=multisource", "--memeval-data=/", "--collect-only"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR


@pytest.mark.slow
def test_the_reader_answers_from_memories_alone(tmp_path: Path) -> None:
    """Leakage boundary: the same memories give the same answer whichever persona an item is
    about; with no memories every persona gets the training prior's answer."""
    suite = _suite(tmp_path)
    reader = suite.reader()
    entries = suite.index()
    first, second = entries[0].context_id, entries[-1].context_id
    memories = [Memory(text=m.content) for session in suite.context(second).sessions for m in session]
    for qid in QUESTIONS:
        item_a, item_b = suite.item(f"{first}-{qid}"), suite.item(f"{second}-{qid}")
        assert reader.answer(item_a.view, memories) == reader.answer(item_b.view, memories)
        assert reader.answer(item_a.view, []).label == reader.answer(item_b.view, []).label
        assert item_a.view == item_b.view  # the public view carries nothing persona-specific


def test_nothing_private_reaches_the_memory_system(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    entries = suite.index()
    stored = "\n".join(m.content for e in entries[::18] for s in suite.context(e.context_id).sessions for m in s)
    views = [suite.item(e.id).view for e in entries]
    public = stored + "\n".join(v.question + " ".join(v.answer_space) + v.task for v in views)
    for secret in (
        "bench_",
        "gen_",
        "gen20260321",
        "stable_121",
        "temporal_shift",
        "stated_vs_revealed",
        "20260321",
        "calibration",
        "derivation",
    ):
        assert secret not in public
    assert all(not hasattr(v, "gold") and "gold" not in v.extra for v in views)


def _released_persona(root: Path, seed: int, index: int) -> str:
    """A generated persona written in the release's layout (under a bench_ id)."""
    persona = generate(seed, index)
    pid = "bench_" + persona.persona_id.removeprefix("gen_")
    folder = root / f"s{seed}" / pid
    (folder / "structural_sources").mkdir(parents=True)
    (folder / "event_table.json").write_text(json.dumps(persona.events), encoding="utf-8")
    (folder / "ground_truth.json").write_text(json.dumps(persona.ground_truth), encoding="utf-8")
    for name, document in persona.sources.items():
        (folder / "structural_sources" / f"{name}.json").write_text(json.dumps(document), encoding="utf-8")
    return pid


def test_a_dangling_symlink_in_a_training_persona_fails_no_item(tmp_path: Path) -> None:
    """The reader is fitted on the training personas, their files stamped by size and time:
    a lock file there failed every test item."""
    data = tmp_path / "data"
    train = _released_persona(data, 20260321, 0)  # stable persona 1: the train split
    _released_persona(data, 20260321, 120)  # stable persona 121: the test split
    (data / "s20260321" / train / ".#event_table.json").symlink_to("someone@host.1234:1700000000")
    options = SuiteOptions(size="smoke", split="test", seeds=None, k=10, data_dir=data, cache_dir=tmp_path / "cache")
    suite = MultisourceSuite(options)
    catalog = suite.catalog
    with pytest.warns(UserWarning, match=r"\.#event_table\.json: skipped"):
        stamp = catalog.input_stamp(catalog.of_split("train"))
    (data / "s20260321" / train / ".#event_table.json").unlink()
    assert catalog.input_stamp(catalog.of_split("train")) == stamp  # the lock file never counted
    assert [suite.item(entry.id).context_id for entry in suite.index()]


def test_a_warm_cache_gives_items_and_contexts_without_generating_a_persona(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Generating a persona costs ~1.5 ms; a run's items and contexts come from what collection
    cached on disk, in a new process too (its facts file read once, not once per persona),
    and are the ones the persona itself gives."""
    from pytest_memeval.suites.multisource import catalog
    from pytest_memeval.suites.multisource.render import render_units

    entries = _suite(tmp_path).index()  # collection: generates and caches
    generated: list[tuple[int, int]] = []

    def counted(seed: int, index: int) -> object:
        generated.append((seed, index))
        return generate(seed, index)

    read: list[str] = []
    real_read = catalog._read_json

    def read_counted(path: Path) -> object:
        read.append(path.name.rpartition("-")[2])
        return real_read(path)

    monkeypatch.setattr(catalog, "generate", counted)
    monkeypatch.setattr(catalog, "_read_json", read_counted)
    catalog._load.cache_clear()  # as in a new process
    suite = _suite(tmp_path)
    contexts = {entry.context_id for entry in entries}
    items = [suite.item(entry.id) for entry in entries]
    stored = {c: [(m.content for m in s) for s in suite.context(c).sessions] for c in contexts}
    assert generated == []
    assert read.count("s20260321.json") == 1  # the facts file, once for all the items
    ref = suite.catalog.ref(entries[0].context_id)
    persona = generate(ref.seed, ref.index)
    for item in items[:18]:
        truth = persona.ground_truth[item.view.task]
        assert (item.gold, item.private["derivation"]) == (truth["answer"], truth.get("derivation_detail", ""))
    texts = [text for session in stored[entries[0].context_id] for text in session]
    assert texts == [text for _, text in render_units(persona.sources)]


def test_the_reader_parses_a_retrieval_once_for_all_the_items_that_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The items of a context get the same memories: parsed once, whether the very same
    Memory objects come back or equal copies; other memories are parsed anew, and the
    answers are those of a reader that parses every time."""
    from pytest_memeval.suites.multisource import reader as reader_module

    suite = _suite(tmp_path)
    entries = suite.index()[:36]  # two contexts
    memories = {
        e.context_id: [Memory(text=m.content) for s in suite.context(e.context_id).sessions for m in s] for e in entries
    }
    parsed: list[int] = []
    real_of = reader_module.Evidence.of
    monkeypatch.setattr(reader_module.Evidence, "of", lambda texts: parsed.append(len(texts)) or real_of(texts))
    reader = suite.reader()
    answers = []
    for entry in entries:
        item, stored = suite.item(entry.id), memories[entry.context_id]
        answers.append(reader.answer_item(item.id, item.view, stored))
        assert reader.answer_item(item.id, item.view, [Memory(text=m.text) for m in stored]) == answers[-1]
    assert len(parsed) == 2
    fresh = [suite.reader() for _ in entries]
    assert answers == [
        r.answer_item(e.id, suite.item(e.id).view, memories[e.context_id]) for r, e in zip(fresh, entries, strict=True)
    ]


@pytest.mark.parametrize("damage", ["", "[1, 2]", '{"units": [["profile_ltm"]]}', '{"units": "x"}', "{"])
def test_a_damaged_units_file_is_rendered_again(tmp_path: Path, damage: str) -> None:
    suite = _suite(tmp_path)
    context = suite.index()[0].context_id
    stored = suite.context(context)
    path = suite.catalog._units_path(suite.catalog.ref(context))
    path.write_text(damage, encoding="utf-8")
    assert _suite(tmp_path).context(context) == stored
    assert json.loads(path.read_text(encoding="utf-8"))["units"][0][0] == "profile_ltm"
