"""The chroma adapter (and mem0 on chroma) against a real `chroma run` server on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import chromadb
import kit_helpers
import pytest
from chroma_server import ChromaServer, free_port

from pytest_memeval.memory.chroma import ChromaMemory
from pytest_memeval.memory.embedders import HashingEmbedder
from pytest_memeval.types import Message


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    with ChromaServer(tmp_path_factory.mktemp("chroma-server") / "db") as running:
        yield running


@pytest.fixture
def prefix() -> str:
    """A collection prefix of this test alone, so tests sharing the server do not meet."""
    return f"t{uuid.uuid4().hex[:8]}-"


def server_config(path: Path, server: ChromaServer, prefix: str, section: str = "chroma") -> Path:
    path.write_text(f'[{section}]\nhost = "{server.host}"\nport = {server.port}\ncollection_prefix = "{prefix}"\n')
    return path


def collections_on(server: ChromaServer, prefix: str) -> list[str]:
    client = chromadb.HttpClient(host=server.host, port=server.port)
    return sorted(c.name for c in client.list_collections() if c.name.startswith(prefix))


@pytest.mark.slow
def test_workers_on_one_server_keep_their_own_collections(server: ChromaServer, prefix: str) -> None:
    """Two workers fill the same namespace (as a suite with a shared store does) without meeting."""
    first = ChromaMemory(HashingEmbedder(), host=server.host, port=server.port, collection_prefix=prefix)
    second = ChromaMemory(HashingEmbedder(), host=server.host, port=server.port, collection_prefix=prefix)
    first.ingest("shared", [Message("user", "The colour of ada is red.")])
    second.ingest("shared", [Message("user", "The colour of ada is blue.")])
    assert [m.text for m in first.retrieve("shared", "colour of ada", 5)] == ["The colour of ada is red."]
    assert [m.text for m in second.dump("shared") or []] == ["The colour of ada is blue."]
    assert len(collections_on(server, prefix)) == 2
    second.reset("shared")
    assert [m.text for m in first.retrieve("shared", "colour of ada", 5)] == ["The colour of ada is red."]
    first.close()
    first.close()
    second.close()
    assert collections_on(server, prefix) == [], "close leaves collections on the server"


@pytest.mark.slow
def test_the_kit_passes_against_the_server_from_two_workers(
    server: ChromaServer, prefix: str, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    kit = kit_helpers.prepare(pytester, monkeypatch, tmp_path)
    config = server_config(tmp_path / "memsystems.toml", server, prefix)
    result = kit_helpers.run(
        kit, "--memsystem=chroma", f"--memeval-adapter-config={config}", "--memeval-embedder=hashing", "-n", "2"
    )
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=26, skipped=1)
    assert "2 workers" in result.stdout.str()
    assert collections_on(server, prefix) == [], "the kit left collections behind on the server"


@pytest.fixture
def socket_worker_host(pytester: pytest.Pytester) -> Iterator[str]:
    """execnet's socket server on 127.0.0.1: what `--tx socket=HOST:PORT` reaches on a remote machine."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "execnet.script.socketserver", f"127.0.0.1:{port}"],
        cwd=pytester.path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("the execnet socket server did not start") from None
                time.sleep(0.1)
        yield f"127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@pytest.mark.slow
def test_a_socket_worker_and_a_local_worker_share_the_server(
    server: ChromaServer,
    prefix: str,
    socket_worker_host: str,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """docs/distributed.md's `--tx socket=...` recipe, with the 'remote' machine on loopback."""
    kit = kit_helpers.prepare(pytester, monkeypatch, tmp_path)
    config = server_config(tmp_path / "memsystems.toml", server, prefix)
    result = kit_helpers.run(
        kit,
        "--memsystem=chroma",
        f"--memeval-adapter-config={config}",
        "--memeval-embedder=hashing",
        "--dist",
        "loadgroup",
        "--tx",
        f"socket={socket_worker_host}//chdir={kit.path}",
        "--tx",
        "popen",
    )
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=26, skipped=1)
    assert collections_on(server, prefix) == []


@pytest.mark.slow
def test_the_toy_suite_runs_against_the_server_from_two_workers(
    server: ChromaServer, prefix: str, toy_pytester: pytest.Pytester, tmp_path: Path
) -> None:
    config = server_config(tmp_path / "memsystems.toml", server, prefix)
    kit_helpers.create_embedding_cache(tmp_path / "memeval-cache")
    result = toy_pytester.runpytest_subprocess(
        "test_toy.py",
        "--memsystem=chroma",
        f"--memeval-adapter-config={config}",
        "--memeval-embedder=hashing",
        "-n",
        "2",
        timeout=300,
    )
    result.assert_outcomes(passed=12)
    assert collections_on(server, prefix) == [], "workers left collections on the server"


@pytest.mark.slow
def test_multisource_smoke_on_the_server_matches_embedded(
    server: ChromaServer, prefix: str, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MEMEVAL_CACHE_DIR", str(tmp_path / "memeval-cache"))
    kit_helpers.create_embedding_cache(tmp_path / "memeval-cache")
    config = server_config(tmp_path / "memsystems.toml", server, prefix)
    common = (
        "--memsystem=chroma",
        "--memeval-suite=multisource",
        "--memeval-size=smoke",
        "--memeval-embedder=hashing",
        "-n",
        "2",
        "-p",
        "no:cacheprovider",
    )
    reports = {}
    for mode, extra in (("embedded", ()), ("server", (f"--memeval-adapter-config={config}",))):
        report = tmp_path / f"{mode}.json"
        result = pytester.runpytest_subprocess(*common, *extra, f"--memeval-report={report}", timeout=600)
        assert result.ret in (0, 1), result.stdout.str()[-3000:]
        assert "error" not in result.parseoutcomes(), result.stdout.str()[-3000:]
        reports[mode] = json.loads(report.read_text())

    def strip(records: list[dict]) -> list[dict]:
        """Records without timings; the memories as a set (a server's float32 distances and
        its index order equal scores differently; the scores are compared apart)."""
        out = []
        for record in records:
            kept = {k: v for k, v in record.items() if not k.endswith("_ms")}
            kept["memories"] = sorted(m["id"] for m in record["memories"])
            out.append(kept)
        return sorted(out, key=lambda r: r["id"])

    def scores(records: list[dict]) -> list[float]:
        return [sorted(m["score"] for m in r["memories"]) for r in sorted(records, key=lambda r: r["id"])]

    assert reports["server"]["runs"] == reports["embedded"]["runs"]
    assert strip(reports["server"]["records"]) == strip(reports["embedded"]["records"])
    for server_scores, embedded_scores in zip(
        scores(reports["server"]["records"]), scores(reports["embedded"]["records"])
    ):
        assert server_scores == pytest.approx(embedded_scores, abs=1e-6)
    assert collections_on(server, prefix) == [], "workers left collections on the server"


@pytest.mark.slow
def test_an_unreachable_server_makes_every_item_an_error(toy_pytester: pytest.Pytester, tmp_path: Path) -> None:
    config = tmp_path / "memsystems.toml"
    config.write_text(f'[chroma]\nhost = "127.0.0.1"\nport = {free_port()}\n')
    # its own process: chromadb's client keeps process-wide state, and after other in-process
    # runs in this worker it words the refusal differently
    result = toy_pytester.runpytest_subprocess(
        "test_toy.py", "--memsystem=chroma", f"--memeval-adapter-config={config}", "--memeval-embedder=hashing"
    )
    result.assert_outcomes(errors=12)
    assert "Could not connect to a Chroma server" in result.stdout.str()


@pytest.mark.slow
def test_a_frozen_server_times_out_instead_of_hanging(tmp_path: Path) -> None:
    with ChromaServer(tmp_path / "db") as frozen:
        memory = ChromaMemory(HashingEmbedder(), host=frozen.host, port=frozen.port, timeout_s=1.0)
        memory.ingest("ns", [Message("user", "something to find")])
        frozen.pause()
        started = time.monotonic()
        with pytest.raises(Exception, match="(?i)timed out|timeout"):
            memory.retrieve("ns", "something", 1)
        assert time.monotonic() - started < 10
        frozen.resume()


@pytest.mark.slow
def test_mem0_keeps_its_memories_on_the_server(server: ChromaServer, prefix: str, tmp_path: Path) -> None:
    from pytest_memeval.memory.mem0 import Mem0Memory

    memory = Mem0Memory(
        path=tmp_path / "mem0", chroma_host=server.host, chroma_port=server.port, collection_prefix=prefix
    )
    try:
        memory.ingest("ada", [Message("user", "The colour of ada is red.")])
        assert [m.text for m in memory.retrieve("ada", "colour of ada", 3)] == ["The colour of ada is red."]
        (collection,) = collections_on(server, prefix)
        assert collection.startswith(f"{prefix}mem0-")
        memory.reset("ada")
        assert memory.dump("ada") == []
    finally:
        memory.close()
    assert collections_on(server, prefix) == [], "close leaves the worker's collection on the server"
