"""A house people can extend: optional capabilities are declared and read in one place, a
suite of four methods runs, an adapter written against the Protocols type-checks and passes
the kit, and the public API is what docs/api.md says."""

from __future__ import annotations

import builtins
import json
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

import pytest_memeval
from pytest_memeval import (
    Answer,
    Answering,
    ExactLabelJudge,
    Item,
    ItemSource,
    ItemView,
    Memory,
    MemorySystemBase,
    Record,
    Resources,
    Scoring,
    Statistics,
    Suite,
    SuiteOptions,
    Trace,
)
from pytest_memeval.config.adapter_settings import AdapterLLM
from pytest_memeval.errors import ConfigError
from pytest_memeval.protocols import honours_k, keeps_sources, stores_nothing
from pytest_memeval.running.registry import Resolved, accepts_settings, build_memsystem, check_settings
from pytest_memeval.running.runner import _answer
from pytest_memeval.running.state import LLM_ADAPTER_SETTINGS

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "pytest_memeval"
SUITE_PAGE = (REPO / "docs" / "writing-a-suite.md").read_text(encoding="utf-8")
API_PAGE = (REPO / "docs" / "api.md").read_text(encoding="utf-8")


def _block(page: str, first_line: str) -> str:
    (code,) = re.findall(rf"```python\n({re.escape(first_line)}\n.*?)```", page, re.DOTALL)
    return code


def _pytest(args: Sequence[str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(cwd), MEMEVAL_CACHE_DIR=str(cwd / "cache"))
    env.pop("OPENAI_BASE_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "pytest", *args, "-p", "no:cacheprovider", "-q"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


# --- the documented suite -----------------------------------------------------------------


@pytest.mark.slow
def test_the_documented_suite_runs_on_two_workers_and_reports_an_interval(tmp_path: Path) -> None:
    suite, test_module = _block(SUITE_PAGE, "# capitals.py"), _block(SUITE_PAGE, "# test_capitals.py")
    assert len(suite.splitlines()) <= 45, "the example suite stays small"
    (tmp_path / "capitals.py").write_text(suite, encoding="utf-8")
    (tmp_path / "test_capitals.py").write_text(test_module, encoding="utf-8")
    (command,) = [line.strip() for line in SUITE_PAGE.splitlines() if line.strip().startswith("PYTHONPATH=. pytest")]
    args = command.split()[2:]
    assert "-n" in args and args[args.index("-n") + 1] == "2"
    run = _pytest(args, tmp_path)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    report = json.loads((tmp_path / "report.json").read_text())
    (capitals,) = [r for r in report["runs"] if r["key"]["suite"] == "capitals"]
    accuracy = capitals["metrics"]["accuracy"]
    low, high = accuracy["ci"]
    assert accuracy["value"] == 1.0 and accuracy["n"] == 4
    assert low is not None and high is not None and 0.0 < low < 1.0 <= high
    assert {r["status"] for r in report["records"]} == {"scored"}


class _Tiny(Suite):
    name = "tiny"
    markers: Mapping[str, str] = {}

    def index(self) -> list[Any]:
        return []

    def context(self, context_id: str) -> Any:
        raise NotImplementedError

    def item(self, item_id: str) -> Any:
        raise NotImplementedError


def _options(tmp_path: Path) -> SuiteOptions:
    return SuiteOptions(size="smoke", split=None, seeds=None, k=5, data_dir=None, cache_dir=tmp_path)


def _record(item_id: str, cluster: str, correct: bool) -> Record:
    from pytest_memeval import RunKey

    return Record(item_id, RunKey("tiny", "m"), "tiny", "c", cluster, "t", "scored", correct=correct)


def test_a_suite_of_four_methods_judges_exactly_and_summarises_accuracy_with_a_cluster_interval(
    tmp_path: Path,
) -> None:
    suite = _Tiny(_options(tmp_path))
    item = Item("a", "c", "c", ItemView("tiny", "t", "q?"), gold="Lima")
    judge = suite.judge()
    assert isinstance(judge, ExactLabelJudge)
    assert judge.score(item, Answer("Lima"), Trace()).correct is True
    wrong = judge.score(item, Answer("lima"), Trace())
    assert wrong.correct is False and wrong.reason == "gold 'Lima'"
    # six items in two clusters whose outcomes agree within: wider than six independent items
    clustered = [_record(f"i{n}", "c1" if n < 3 else "c2", n < 3) for n in range(6)]
    independent = [_record(f"i{n}", f"c{n}", n < 3) for n in range(6)]
    wide, narrow = (suite.summarize(r).metrics["accuracy"] for r in (clustered, independent))
    assert wide.value == narrow.value == 0.5 and wide.n == 6
    assert None not in wide.ci and None not in narrow.ci
    assert wide.ci[0] < narrow.ci[0] and wide.ci[1] > narrow.ci[1]  # type: ignore[operator]
    with pytest.raises(ConfigError, match="no offline reader"):
        suite.reader()


# --- capabilities: declared, read in one place ---------------------------------------------

CAPABILITIES = (
    *("from_memeval", "check_settings", "honours_k", "ingest_stats", "stores_nothing", "keeps_sources"),
    "llm_outside_gateway",
)
RESPONDER_CAPABILITIES = ("prefetch", "close", "schema", "answer_item", "position_invariant", "prompt")


def test_no_capability_is_probed_outside_protocols_py() -> None:
    names = "|".join(CAPABILITIES + RESPONDER_CAPABILITIES)
    probe = re.compile(rf"""getattr\(.*["']({names})["']""")
    found = [
        f"{path.relative_to(REPO)}:{n}"
        for path in PACKAGE.rglob("*.py")
        if path.name != "protocols.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if probe.search(line) or "inspect.signature(responder" in line or '"label" in inspect' in line
    ]
    assert found == []


def test_flags_are_read_as_declared_with_their_defaults() -> None:
    class Plain:
        pass

    class Ceiling(MemorySystemBase):
        honours_k = False
        keeps_sources = True

    class Letta(MemorySystemBase):
        def __init__(self, mode: str) -> None:
            self.honours_k = mode == "archival"

    class Sloppy:
        stores_nothing = "yes"  # not a declaration: a flag is a bool

    assert (honours_k(Plain()), keeps_sources(Plain()), stores_nothing(Plain())) == (True, False, False)
    assert (honours_k(Ceiling()), keeps_sources(Ceiling())) == (False, True)
    assert honours_k(Letta("archival")) and not honours_k(Letta("core"))
    assert not stores_nothing(Sloppy())


class _Built(MemorySystemBase):
    """An adapter with every optional classmethod."""

    def __init__(self, path: str = "", size: int = 1) -> None:
        self.path, self.size = path, size

    @classmethod
    def from_memeval(cls, config: Mapping[str, Any], resources: Resources) -> _Built:
        return cls(path=str(resources.workdir), **config)

    @classmethod
    def check_settings(cls, settings: Mapping[str, Any]) -> None:
        if settings.get("size", 1) > 9:
            raise ValueError("size must be at most 9")


def test_declared_classmethods_build_and_check_an_adapter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.modules[__name__], "_Built", _Built)
    resolved = Resolved("built", f"{__name__}:_Built")
    resources = Resources(tmp_path, lambda: pytest.fail("no embedder wanted"), "none")  # type: ignore[arg-type,return-value]
    system = build_memsystem(resolved, {"size": 3}, resources)
    assert isinstance(system, _Built) and (system.path, system.size) == (str(tmp_path), 3)
    check_settings(resolved, {"size": 3})
    with pytest.raises(ConfigError, match="size must be at most 9"):
        check_settings(resolved, {"size": 10})


_TOY_LLM = AdapterLLM(max_tokens=64)


class _WithLLM(MemorySystemBase):
    """An adapter taking its LLM's settings as one value, with a default of its own."""

    def __init__(self, llm: AdapterLLM = _TOY_LLM, mode: str = "a") -> None:
        self.llm, self.mode = llm, mode


def test_an_adapter_llm_parameter_stands_for_the_llm_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The table stays flat (llm_model, ...); the constructor gets one AdapterLLM, the
    adapter's default with the given settings in place; names and types are checked as
    for any keyword, and the run's endpoint is injected by the same names."""
    monkeypatch.setattr(sys.modules[__name__], "_WithLLM", _WithLLM)
    resolved = Resolved("with-llm", f"{__name__}:_WithLLM")
    check_settings(resolved, {"llm_model": "m", "llm_timeout": 5, "llm_temperature": 0.5, "mode": "b"})
    with pytest.raises(
        ConfigError, match=r"^--memeval-adapter-config \[with-llm\]: llm_max_tokens must be int, got '9'$"
    ):
        check_settings(resolved, {"llm_max_tokens": "9"})
    settings = "llm_model, llm_base_url, llm_timeout, llm_max_retries, llm_max_tokens, llm_temperature, llm_tool_string_chars, mode"
    with pytest.raises(
        ConfigError, match=rf"^--memeval-adapter-config \[with-llm\]: unknown setting 'llm' \(settings: {settings}\)$"
    ):
        check_settings(resolved, {"llm": "m"})
    assert accepts_settings(resolved, LLM_ADAPTER_SETTINGS)
    resources = Resources(tmp_path, lambda: pytest.fail("no embedder wanted"), "none")  # type: ignore[arg-type,return-value]
    system = build_memsystem(resolved, {"llm_model": "m", "llm_timeout": 5.0, "mode": "b"}, resources)
    assert isinstance(system, _WithLLM) and system.mode == "b"
    assert system.llm == AdapterLLM(model="m", timeout=5.0, max_tokens=64)
    default = build_memsystem(resolved, {}, resources)
    assert isinstance(default, _WithLLM) and default.llm is _TOY_LLM


class _Plain:
    def answer(self, view: ItemView, memories: Sequence[Memory]) -> Answer:
        return Answer("plain")


class _Naming(_Plain):
    def answer_item(self, item_id: str, view: ItemView, memories: Sequence[Memory]) -> Answer:
        return Answer(f"told {item_id}")


class _Labelled(_Plain):
    """A `label=` keyword alone is not a declaration: the runner no longer reads signatures."""

    def answer(self, view: ItemView, memories: Sequence[Memory], label: str | None = None) -> Answer:
        return Answer(f"label {label}")


def test_a_responder_is_told_the_item_only_when_it_declares_names_items() -> None:
    item = Item("item-7", "c", "c", ItemView("s", "t", "q?"), gold="x")
    assert _answer(_Naming(), item, []).label == "told item-7"
    assert _answer(_Plain(), item, []).label == "plain"
    assert _answer(_Labelled(), item, []).label == "label None"


def test_a_capability_is_read_from_the_class_once_not_per_item(monkeypatch: pytest.MonkeyPatch) -> None:
    """isinstance against a runtime-checkable Protocol walks its members on every call; the
    runner asks for every item, so the answer is kept per class: 100 items of one responder
    class ask the Protocol once, and an attribute set on an instance declares nothing."""
    from pytest_memeval import protocols

    asked: list[tuple[type, object]] = []
    real = builtins.issubclass

    def counted(cls: type, capability: object) -> bool:
        asked.append((cls, capability))
        return real(cls, capability)

    monkeypatch.setattr(protocols, "_DECLARED", {})
    monkeypatch.setattr(protocols, "issubclass", counted, raising=False)
    item = Item("item-7", "c", "c", ItemView("s", "t", "q?"), gold="x")
    for _ in range(100):
        assert _answer(_Naming(), item, []).label == "told item-7"
        assert _answer(_Plain(), item, []).label == "plain"
    assert sorted(cls.__name__ for cls, _ in asked) == ["_Naming", "_Plain"]
    patched = _Plain()
    patched.answer_item = lambda *args: Answer(label="never")  # type: ignore[attr-defined]
    assert _answer(patched, item, []).label == "plain"


def test_the_bundled_responders_that_need_the_item_declare_it() -> None:
    from pytest_memeval.suites.multisource.reader import MultisourceReader

    from pytest_memeval.llm import LLMResponder
    from pytest_memeval.protocols import NamesItems, Prefetches

    assert all(hasattr(cls, "answer_item") for cls in (MultisourceReader, LLMResponder))
    assert issubclass(LLMResponder, Prefetches) and issubclass(LLMResponder, NamesItems)


def test_a_prefetcher_asks_only_a_responder_that_declares_prefetch() -> None:
    from pytest_memeval.running.prefetch import Prefetcher, Stage

    class Fetching(_Plain):
        def __init__(self) -> None:
            self.asked: list[str] = []

        def prefetch(self, requests: Iterable[tuple[str, ItemView, Sequence[Memory]]]) -> int:
            self.asked += [label for label, _, _ in requests]
            return len(self.asked)

    class Bound:
        system_name = "m"

        def retrieve_counted(self, query: str, k: int) -> Any:
            from pytest_memeval.running.runner import Retrieval

            return Retrieval([], 0.0)

    prefetcher = Prefetcher({("s", "ctx"): [("a", 0), ("b", 0)]})
    build = lambda item_id: Item(item_id, "ctx", "ctx", ItemView("s", "t", "q?"), gold="x")  # noqa: E731
    stage = Stage("s", "ctx", "m", 5)
    assert prefetcher.start(stage, build, Bound(), _Plain()) == 0  # type: ignore[arg-type]
    fetching = Fetching()
    assert prefetcher.start(stage, build, Bound(), fetching) == 2  # type: ignore[arg-type]
    assert fetching.asked == ["a", "b"]


# --- typed fields, and old reports -----------------------------------------------------------


def test_a_report_written_before_the_typed_fields_reads_into_them() -> None:
    old = {
        "id": "i",
        "key": {"suite": "memfail", "memsystem": "m", "responder": "reader", "judge": "deterministic", "k": 5},
        **{"suite_ref": "memfail", "context": "c", "cluster": "c", "task": "t", "status": "scored"},
        "correct": False,
        "detail": {"stage": "retrieval", "attribution": "critical_spans"},
        "answer_detail": {"memory_unreadable": True, "units_read": 0},
    }
    record = Record.from_json(old)
    assert (record.stage, record.memory_unreadable) == ("retrieval", True)
    assert dict(record.detail) == {"attribution": "critical_spans"}
    assert dict(record.answer_detail) == {"units_read": 0}
    again = Record.from_json(json.loads(json.dumps(record.to_json())))
    assert again == record


def test_the_failure_stage_of_the_reports_is_the_verdicts() -> None:
    from pytest_memeval.rendering.explorer import stage
    from pytest_memeval.rendering.failures import stage_of

    wrong = _record("i", "c", False)
    assert stage_of(wrong) == stage(wrong) == "wrong answer"
    assert stage_of(Record.from_json({**wrong.to_json(), "stage": "storage"})) == "storage"


def test_a_condition_without_retrieval_is_a_typed_field_the_runner_reads() -> None:
    from pytest_memeval.running.runner import retrieve

    class Refuses:
        def retrieve_counted(self, query: str, k: int) -> Any:
            raise AssertionError("an item with retrieve=False must not be retrieved for")

    item = Item("i", "c", "c", ItemView("behavior", "t", "q?", retrieve=False), gold="x")
    assert retrieve(item, Refuses(), 5).memories == []  # type: ignore[arg-type]


# --- an adapter written against the Protocols ---------------------------------------------

ADAPTER = '''
"""A keyword adapter written against pytest_memeval's documented Protocols."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_memeval import (
    BuildsFromMemeval,
    ChecksSettings,
    Memory,
    MemorySystem,
    MemorySystemBase,
    Message,
    ReportsIngest,
    Resources,
)


class KeywordMemory(MemorySystemBase):
    keeps_sources = True

    def __init__(self, min_overlap: int = 1) -> None:
        self.min_overlap = min_overlap
        self.store: dict[str, list[Message]] = {}
        self.ingested: dict[str, int] = {}

    @classmethod
    def from_memeval(cls, config: Mapping[str, Any], resources: Resources) -> KeywordMemory:
        assert resources.workdir.is_dir()
        return cls(**config)

    @classmethod
    def check_settings(cls, settings: Mapping[str, Any]) -> None:
        if int(settings.get("min_overlap", 1)) < 1:
            raise ValueError("min_overlap must be >= 1")

    def reset(self, namespace: str) -> None:
        self.store.pop(namespace, None)
        self.ingested.pop(namespace, None)

    def ingest(self, namespace: str, session: Sequence[Message]) -> None:
        for message in session:
            if not isinstance(message, Message):
                raise TypeError(f"not a Message: {message!r}")
        kept = [m for m in session if m.content.strip()]
        self.store.setdefault(namespace, []).extend(kept)
        self.ingested[namespace] = self.ingested.get(namespace, 0) + len(kept)

    def retrieve(self, namespace: str, query: str, k: int) -> list[Memory]:
        words = set(query.lower().split())
        scored = []
        for n, message in enumerate(self.store.get(namespace, [])):
            overlap = len(words & set(message.content.lower().split()))
            if overlap >= self.min_overlap:
                scored.append((overlap, -n, message))
        scored.sort(key=lambda entry: (entry[0], entry[1]), reverse=True)
        return [self._memory(m, float(score)) for score, _, m in scored[:k]]

    def dump(self, namespace: str) -> list[Memory] | None:
        return [self._memory(m, None) for m in self.store.get(namespace, [])]

    def ingest_stats(self, namespace: str) -> Mapping[str, Any] | None:
        return {"messages": self.ingested.get(namespace, 0)}

    def close(self) -> None:
        self.store.clear()

    @staticmethod
    def _memory(message: Message, score: float | None) -> Memory:
        sources = (message.id,) if message.id is not None else ()
        return Memory(message.content, score, id=str(hash(message.content)), sources=sources)


# what mypy proves: the class and its instances satisfy every Protocol they claim
system: MemorySystem = KeywordMemory()
reports: ReportsIngest = KeywordMemory()
builds: BuildsFromMemeval = KeywordMemory
checks: ChecksSettings = KeywordMemory
'''


def _strict_mypy(modules: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """mypy --strict on the modules, in one run (reading the plugin's import closure is most of
    its minute of CPU); the plugin's own modules are read, not checked."""
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--no-incremental", *modules],
        cwd=cwd,
        env=dict(os.environ, MYPYPATH=str(REPO)),
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.slow
def test_an_adapter_written_against_the_protocols_type_checks_strictly_and_passes_the_kit(tmp_path: Path) -> None:
    (tmp_path / "keyword_memory.py").write_text(textwrap.dedent(ADAPTER).lstrip(), encoding="utf-8")
    # the check can fail: a retrieve without k does not satisfy MemorySystem
    broken = ADAPTER.replace(
        "def retrieve(self, namespace: str, query: str, k: int)",
        "def retrieve(self, namespace: str, query: str, k: str)",
    )
    assert broken != ADAPTER
    (tmp_path / "keyword_broken.py").write_text(textwrap.dedent(broken).lstrip(), encoding="utf-8")
    checked = _strict_mypy(["keyword_memory.py", "keyword_broken.py"], tmp_path)
    errors = [line for line in checked.stdout.splitlines() if ": error:" in line]
    assert checked.returncode == 1 and errors, checked.stdout + checked.stderr
    assert all(line.startswith("keyword_broken.py:") for line in errors), checked.stdout  # the adapter passes
    assert any('"MemorySystem"' in line for line in errors), checked.stdout
    kit = _pytest(["--pyargs", "pytest_memeval.testing", "--memsystem=keyword_memory:KeywordMemory"], tmp_path)
    last = kit.stdout.splitlines()[-1] if kit.stdout else ""
    assert kit.returncode == 0 and " passed" in last and "failed" not in last, kit.stdout[-3000:] + kit.stderr[-2000:]


# --- the public API -------------------------------------------------------------------------


def _documented_names() -> list[str]:
    names = []
    for line in API_PAGE.splitlines():
        if line.startswith("| `"):
            names.append(line.split("`")[1])
    return names


def test_every_name_the_api_page_documents_imports_from_the_package() -> None:
    names = _documented_names()
    assert len(names) >= 30
    missing = [name for name in names if not hasattr(pytest_memeval, name)]
    assert missing == []
    assert sorted(set(names)) == sorted(pytest_memeval.__all__), "the page and __all__ name the same API"


def test_the_statistics_callable_is_an_estimator_and_the_old_name_still_imports() -> None:
    from pytest_memeval import Metric
    from pytest_memeval.results.records import Metric as RecordMetric
    from pytest_memeval.stats import Estimator
    from pytest_memeval.stats import Metric as OldName

    assert Metric is RecordMetric and OldName is Estimator


def test_a_suite_is_its_four_roles_and_each_member_belongs_to_one() -> None:
    roles = (ItemSource, Answering, Scoring, Statistics)
    assert all(issubclass(Suite, role) for role in roles)
    shared = {"name", "options"}  # what several roles read
    owners: dict[str, list[str]] = {}
    for role in roles:
        own = {name for name in [*vars(role), *role.__annotations__] if not name.startswith("_")}
        for name in own - shared:
            owners.setdefault(name, []).append(role.__name__)
    assert {name: where for name, where in owners.items() if len(where) > 1} == {}
    suite_members = {name for name in [*vars(Suite), *Suite.__annotations__] if not name.startswith("_")}
    assert suite_members == {"protocol_version"}, "a member of Suite itself belongs in one of its roles"
