"""The SQLite call cache: content addressing, replay, concurrent writers, SIGKILL safety."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import pytest
from llm_server import LLMServer, Reply, sequence

from pytest_memeval.errors import ConfigError, ResponseError
from pytest_memeval.llm import (
    CallCache,
    ChatRequest,
    Completion,
    LLMResponder,
    LLMSettings,
    ModelCaller,
    MultisourcePrompt,
    ReplayMissError,
    TokenLogprob,
)
from pytest_memeval.types import ItemView, Memory

SECRET = "sk-cache-test-55aa2f19c0de-DO-NOT-LEAK"
MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello"}]
VIEW = ItemView("multisource", "A1", "How many nights?", ("fewer_than_10", "10_to_19", "20_or_more"))
REPLY = '{"answer": "10_to_19", "would_skip": false}'


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)


def key_of(settings: LLMSettings, messages=MESSAGES, template: str = "t@1") -> str:
    return ChatRequest.build(settings, messages, template).key()


def test_the_key_changes_with_everything_that_changes_the_output():
    base = LLMSettings(model="m")
    keys = {
        key_of(base),
        key_of(base, template="t@2"),
        key_of(base, template="u@1"),
        key_of(replace(base, model="m2")),
        key_of(replace(base, temperature=0.7)),
        key_of(replace(base, max_tokens=10)),
        key_of(replace(base, logprobs=True, top_logprobs=5)),
        key_of(replace(base, logprobs=True, top_logprobs=3)),
        key_of(replace(base, extra={"reasoning_effort": "high"})),
        key_of(base, messages=[*MESSAGES[:1], {"role": "user", "content": "hello!"}]),
        key_of(base, messages=[{"role": "user", "content": "be brief"}, MESSAGES[1]]),
    }
    assert len(keys) == 11


def test_the_key_ignores_the_api_key_endpoint_and_transport(monkeypatch: pytest.MonkeyPatch):
    base = LLMSettings(model="m", base_url="http://a:1/v1")
    first = key_of(base)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-another-key-entirely-000000")
    same = replace(
        base, base_url="http://b:2/v1", timeout_s=5, max_attempts=2, retry_budget_s=9, concurrency=3, backoff_s=0.1
    )
    assert key_of(same) == first
    assert SECRET not in str(ChatRequest.build(base, MESSAGES, "t@1").canonical())


def test_completions_round_trip(tmp_path: Path):
    cache = CallCache(tmp_path / "c.sqlite")
    settings = LLMSettings(model="m")
    request = ChatRequest.build(settings, MESSAGES, "t@1")
    completion = Completion(
        "ok", "stop", (TokenLogprob("o", -0.1, (("o", -0.1), ("k", -2.0))),), "m", {"total_tokens": 3}
    )
    cache.put(request, completion)
    cache.put(request, replace(completion, content="second writer loses"))
    got = cache.get(request.key())
    assert got == replace(completion, cached=True)
    assert len(cache) == 1 and list(cache.keys()) == [request.key()]
    cache.close()
    cache.close()


def record(server: LLMServer, path: Path, views: list[ItemView]) -> None:
    settings = LLMSettings(model="m", base_url=server.base_url, cache_mode="readwrite", cache_path=path)
    responder = LLMResponder(MultisourcePrompt(), settings)
    responder.prefetch([(f"item-{i}", v, [Memory(f"note {i}")]) for i, v in enumerate(views)])
    for i, view in enumerate(views):
        assert responder.answer(view, [Memory(f"note {i}")]).valid
    responder.close()


def views(n: int) -> list[ItemView]:
    return [replace(VIEW, question=f"Question {i}?") for i in range(n)]


def test_replay_makes_no_http_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "llm.sqlite"
    with LLMServer(REPLY) as server:
        record(server, path, views(5))
        assert server.count == 5
        server.reset()
        monkeypatch.setenv("OPENAI_API_KEY", "sk-a-different-key-for-replay-11")
        settings = LLMSettings(model="m", base_url=server.base_url, cache_mode="replay", cache_path=path)
        responder = LLMResponder(MultisourcePrompt(), settings)
        responder.prefetch([(f"item-{i}", v, [Memory(f"note {i}")]) for i, v in enumerate(views(5))])
        answers = [responder.answer(v, [Memory(f"note {i}")]) for i, v in enumerate(views(5))]
        responder.close()
        assert server.count == 0
    assert all(a.valid and a.label == "10_to_19" and a.detail["cached"] for a in answers)


def test_replay_needs_no_server_and_no_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "llm.sqlite"
    with LLMServer(REPLY) as server:
        record(server, path, views(2))
    monkeypatch.delenv("OPENAI_API_KEY")
    settings = LLMSettings(model="m", base_url="http://127.0.0.1:9/v1", cache_mode="replay", cache_path=path)
    responder = LLMResponder(MultisourcePrompt(), settings)
    assert responder.answer(views(2)[1], [Memory("note 1")]).label == "10_to_19"
    assert responder.stats()["network_calls"] == 0
    responder.close()


def test_a_replay_miss_is_an_error_naming_the_item(tmp_path: Path):
    path = tmp_path / "llm.sqlite"
    with LLMServer(REPLY) as server:
        record(server, path, views(1))
        settings = LLMSettings(model="m", base_url=server.base_url, cache_mode="replay", cache_path=path)
        responder = LLMResponder(MultisourcePrompt(), settings)
        with pytest.raises(ReplayMissError, match="ms-test-A1-0042") as info:
            responder.answer(views(2)[1], [Memory("note 1")], label="ms-test-A1-0042")
        responder.prefetch([("ms-test-B2-0007", VIEW, [Memory("unseen")])])
        with pytest.raises(ResponseError, match="ms-test-B2-0007"):
            responder.answer(VIEW, [Memory("unseen")])
        responder.close()
        assert server.count == 1  # the recording only
    assert "\n" not in str(info.value) and "readwrite" in str(info.value)


def test_replay_without_a_cache_file_is_a_config_error(tmp_path: Path):
    with pytest.raises(ConfigError, match="does not exist"):
        ModelCaller(LLMSettings(model="m", cache_mode="replay", cache_path=tmp_path / "nope.sqlite"))


def test_a_corrupt_cache_file_is_a_config_error(tmp_path: Path):
    path = tmp_path / "bad.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(ConfigError, match="not a usable SQLite cache"):
        CallCache(path)


def test_the_api_key_never_reaches_the_cache_file(tmp_path: Path):
    path = tmp_path / "llm.sqlite"
    echo = lambda r: f'{{"answer": "x", "would_skip": false, "auth": "{r.headers["authorization"]}"}}'  # noqa: E731
    with LLMServer(echo) as server:
        settings = LLMSettings(model="m", base_url=server.base_url, cache_mode="readwrite", cache_path=path)
        responder = LLMResponder(MultisourcePrompt(), settings)
        answer = responder.answer(VIEW, [Memory("n")])
        responder.close()
    assert not answer.valid and SECRET not in answer.raw
    data = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert len(data) > 0 and SECRET.encode() not in data


def test_a_closed_cache_is_one_committable_file(tmp_path: Path):
    path = tmp_path / "llm.sqlite"
    with LLMServer(REPLY) as server:
        record(server, path, views(3))
    assert not (tmp_path / "llm.sqlite-wal").exists() or (tmp_path / "llm.sqlite-wal").stat().st_size == 0
    copy = tmp_path / "copy" / "llm.sqlite"  # what a teammate gets from git: the main file only
    copy.parent.mkdir()
    copy.write_bytes(path.read_bytes())
    assert len(CallCache(copy, readonly=True)) == 3


# -- several processes --------------------------------------------------------------------------


def _writer(path: str, worker: int, n: int) -> None:
    cache = CallCache(Path(path))
    settings = LLMSettings(model="m")
    for i in range(n):
        # every third key is shared by all workers: concurrent twins must not clash
        name = f"shared-{i}" if i % 3 == 0 else f"w{worker}-{i}"
        request = ChatRequest.build(settings, [{"role": "user", "content": name}], "t@1")
        cache.put(request, Completion(f"answer {name}", "stop"))
    cache.close()


@pytest.mark.slow
def test_concurrent_writer_processes_lose_nothing(tmp_path: Path):
    path = tmp_path / "shared.sqlite"
    workers, n = 4, 150
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=_writer, args=(str(path), w, n)) for w in range(workers)]
    for p in processes:
        p.start()
    for p in processes:
        p.join(120)
        assert p.exitcode == 0
    settings = LLMSettings(model="m")
    expected = {f"shared-{i}" for i in range(0, n, 3)} | {
        f"w{w}-{i}" for w in range(workers) for i in range(n) if i % 3
    }
    cache = CallCache(path, readonly=True)
    for name in expected:
        got = cache.get(ChatRequest.build(settings, [{"role": "user", "content": name}], "t@1").key())
        assert got is not None and got.content == f"answer {name}"
    assert len(cache) == len(expected)
    cache.close()


KILLED_WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from pytest_memeval.llm import CallCache, ChatRequest, Completion, LLMSettings
    cache = CallCache(Path(sys.argv[1]))
    settings = LLMSettings(model="m")
    for i in range(1_000_000):
        request = ChatRequest.build(settings, [{"role": "user", "content": f"q{i}"}], "t@1")
        cache.put(request, Completion("x" * 4000 + str(i), "stop"))
        print(request.key(), flush=True)   # reported only once committed
    """
)


@pytest.mark.slow
@pytest.mark.parametrize("kill_after", [1, 40, 300])
def test_sigkill_loses_no_completed_entry_even_in_the_main_file_alone(tmp_path: Path, kill_after: int):
    path = tmp_path / "killed.sqlite"
    child = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(path)], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    reported: list[str] = []
    deadline = time.monotonic() + 60
    while len(reported) < kill_after and time.monotonic() < deadline:
        line = child.stdout.readline()
        if not line:
            break
        reported.append(line.strip())
    os.kill(child.pid, signal.SIGKILL)
    rest = child.stdout.read()  # EOF once the child is gone; what it printed before dying
    child.stdout.close()
    child.wait(30)
    reported += [line for line in rest.split("\n") if len(line) == 64]  # whole lines only
    assert child.returncode == -signal.SIGKILL
    assert len(reported) >= kill_after
    committed = tmp_path / "committed" / "killed.sqlite"  # what git gets: the main file, no -wal
    committed.parent.mkdir()
    committed.write_bytes(path.read_bytes())
    for copy in (path, committed):
        with sqlite3.connect(copy) as db:
            assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            stored = {row[0] for row in db.execute("SELECT key FROM calls")}
        assert set(reported) <= stored, copy
        assert len(stored) - len(reported) <= 1  # at most the entry committed but not yet printed


REPLAY_WITHOUT_OPENAI = textwrap.dedent(
    """
    import sys
    sys.modules["openai"] = None          # importing openai now fails
    from pathlib import Path
    from pytest_memeval.llm import LLMResponder, LLMSettings, MultisourcePrompt
    from pytest_memeval.types import ItemView, Memory
    view = ItemView("multisource", "A1", "Question 0?", ("fewer_than_10", "10_to_19", "20_or_more"))
    settings = LLMSettings(model="m", cache_mode="replay", cache_path=Path(sys.argv[1]))
    responder = LLMResponder(MultisourcePrompt(), settings)
    print(responder.answer(view, [Memory("note 0")]).label)
    """
)


@pytest.mark.slow
def test_replay_does_not_need_the_openai_package(tmp_path: Path):
    path = tmp_path / "llm.sqlite"
    with LLMServer(REPLY) as server:
        record(server, path, views(1))
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    done = subprocess.run(
        [sys.executable, "-c", REPLAY_WITHOUT_OPENAI, str(path)], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "10_to_19"


def test_a_cache_opens_while_another_worker_briefly_locks_the_new_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two xdist workers creating one cache: switching it to WAL can fail at once with
    "database is locked" (no busy timeout there); opening waits and tries again."""

    import pytest_memeval.llm.cache as cache_module

    real_connect = sqlite3.connect
    refusals = [sqlite3.OperationalError("database is locked")] * 2

    class LockedAtFirst:
        def __init__(self, db: sqlite3.Connection) -> None:
            self._db = db

        def execute(self, sql: str, *args: object) -> object:
            if sql == "PRAGMA journal_mode=WAL" and refusals:
                raise refusals.pop()
            return self._db.execute(sql, *args)

        def __getattr__(self, name: str) -> object:
            return getattr(self._db, name)

    monkeypatch.setattr(cache_module.sqlite3, "connect", lambda *a, **k: LockedAtFirst(real_connect(*a, **k)))
    cache = cache_module.CallCache(tmp_path / "cache.sqlite")
    assert refusals == []
    cache.close()


@pytest.mark.slow
@pytest.mark.parametrize("failure", [Reply(content=None), Reply(content="", finish_reason="content_filter")])
def test_a_failed_answer_is_not_cached_and_asked_again_once_the_server_recovers(tmp_path: Path, failure: Reply):
    path = tmp_path / "llm.sqlite"
    with LLMServer(sequence(failure, "recovered")) as server:
        settings = LLMSettings(model="m", base_url=server.base_url, cache_mode="readwrite", cache_path=path)
        first = ModelCaller(settings)
        failed = first.call(ChatRequest.build(settings, MESSAGES, "t@1"))
        assert (failed.content, failed.finish_reason) == (failure.content, failure.finish_reason)
        first.close()
        second = ModelCaller(settings)
        completion = second.call(ChatRequest.build(settings, MESSAGES, "t@1"))
        second.close()
        assert server.count == 2
    assert (completion.content, completion.cached) == ("recovered", False)


@pytest.mark.slow
def test_a_failed_answer_stored_by_an_older_version_is_asked_again_and_replaced(tmp_path: Path):
    path = tmp_path / "llm.sqlite"
    with LLMServer("recovered") as server:
        settings = LLMSettings(model="m", base_url=server.base_url, cache_mode="readwrite", cache_path=path)
        request = ChatRequest.build(settings, MESSAGES, "t@1")
        cache = CallCache(path)
        cache.put(request, Completion(None, "content_filter"))
        cache.close()
        caller = ModelCaller(settings)
        assert caller.call(request).content == "recovered"
        caller.close()
    replayed = ModelCaller(replace(settings, cache_mode="replay"))
    assert replayed.call(request).content == "recovered"
    replayed.close()


def _cache_with_entries(path: Path, n: int = 3) -> None:
    cache = CallCache(path)
    settings = LLMSettings(model="m")
    for i in range(n):
        cache.put(ChatRequest.build(settings, [{"role": "user", "content": f"q{i} " * 400}], "t@1"), Completion("a"))
    cache.close()


def _other_key_format(path: Path) -> None:
    _cache_with_entries(path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = '0' WHERE name = 'key_format'")
    db.close()


def _truncated(path: Path) -> None:
    _cache_with_entries(path, 40)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _garbage_after_the_header(path: Path) -> None:
    path.write_bytes(b"SQLite format 3\x00" + os.urandom(8000))


def _someone_elses_database(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE embeddings (id INTEGER PRIMARY KEY, vector BLOB)")
    db.close()


@pytest.mark.parametrize(
    "make, mode, message",
    [
        (
            _other_key_format,
            "readwrite",
            "holding 3 recorded answers was recorded with key format 0; this version reads",
        ),
        (_other_key_format, "replay", "was recorded with key format 0"),
        (_truncated, "replay", "is damaged"),
        (_garbage_after_the_header, "replay", "is damaged"),
        (_someone_elses_database, "readwrite", "is an SQLite database but not an LLM cache (tables: embeddings)"),
    ],
    ids=["key-format", "key-format-replay", "truncated-replay", "garbage-replay", "not-a-cache"],
)
def test_a_broken_cache_file_is_refused_in_one_line_before_the_run(tmp_path: Path, make, mode, message) -> None:
    from pytest_memeval.llm.cache import check_cache_file

    path = tmp_path / "llm.sqlite"
    make(path)
    with pytest.raises(ConfigError) as info:
        check_cache_file("--memeval-llm-cache-file", path, mode)
    assert message in str(info.value) and "\n" not in str(info.value)
    assert path.exists()  # nothing is moved or lost


@pytest.mark.parametrize("make", [_truncated, _garbage_after_the_header], ids=["truncated", "garbage"])
def test_an_unreadable_cache_file_is_moved_aside_and_rebuilt_when_recording(tmp_path: Path, make) -> None:
    """Nothing in it can be read, so nothing is lost by starting afresh; the file is kept aside."""
    from pytest_memeval.llm.cache import check_cache_file

    path = tmp_path / "llm.sqlite"
    make(path)
    warning = check_cache_file("--memeval-llm-cache-file", path, "readwrite")
    assert warning is not None and "moved to llm.sqlite.corrupt-" in warning
    assert not path.exists() and len(list(tmp_path.glob("llm.sqlite.corrupt-*"))) == 1
    CallCache(path).close()  # a fresh cache where it was
    assert check_cache_file("--memeval-llm-cache-file", path, "readwrite") is None
