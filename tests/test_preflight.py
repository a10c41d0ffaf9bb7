"""A responder or judge that cannot be called is one usage line before any item runs: no key,
an endpoint that is not there, one that refuses the key (asked once, GET /models)."""

from __future__ import annotations

import json
import socket
import sqlite3
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from harness import option_defaults
from llm_server import LLMServer

from pytest_memeval.config.llm_settings import LLMSettings
from pytest_memeval.errors import ConfigError
from pytest_memeval.llm.preflight import check_endpoint

KEY = "sk-preflight-0123456789abcdef"


class _Status(BaseHTTPRequestHandler):
    """Answers every GET with the server's status and an OpenAI-style error body."""

    server: _StatusServer

    def do_GET(self) -> None:
        self.server.hits += 1
        body = json.dumps({"error": {"message": f"Incorrect API key provided: {KEY}", "code": "invalid_api_key"}})
        self.send_response(self.server.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, format: str, *args: object) -> None:
        pass


class _StatusServer(ThreadingHTTPServer):
    def __init__(self, status: int) -> None:
        super().__init__(("127.0.0.1", 0), _Status)
        self.status, self.hits = status, 0


@pytest.fixture
def status_server(request: pytest.FixtureRequest) -> Iterator[_StatusServer]:
    server = _StatusServer(request.param)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _url(server: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def test_an_endpoint_that_answers_passes_with_one_probe() -> None:
    with LLMServer(lambda request: "ok") as server:
        check_endpoint(LLMSettings(model="m", base_url=server.base_url), "--memeval-judge")
        assert [p.path for p in server.probes] == ["/v1/models"] and server.count == 0


@pytest.mark.parametrize("status_server", [404, 500], indirect=True, ids=["no-models-route", "busy"])
def test_an_endpoint_that_answers_otherwise_is_there(status_server: _StatusServer) -> None:
    check_endpoint(LLMSettings(model="m", base_url=_url(status_server)), "--memeval-judge")
    assert status_server.hits == 1


@pytest.mark.parametrize("status_server", [401, 403], indirect=True)
def test_a_refused_key_is_one_line_without_the_key(status_server: _StatusServer) -> None:
    with pytest.raises(ConfigError) as raised:
        check_endpoint(LLMSettings(model="m", base_url=_url(status_server)), "--memeval-responder=openai:m")
    message = str(raised.value)
    assert message.startswith(f"--memeval-responder=openai:m: {_url(status_server)} refused the API key (HTTP ")
    assert "set OPENAI_API_KEY" in message and "\n" not in message
    assert KEY[3:] not in message and status_server.hits == 1


def test_no_key_for_the_default_endpoint_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(ConfigError, match=r"^--memeval-judge: no API key: set OPENAI_API_KEY"):
        check_endpoint(LLMSettings(model="m"), "--memeval-judge")


def test_an_endpoint_that_is_not_there_is_one_line() -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    with pytest.raises(ConfigError, match=rf"^--memeval-judge: cannot reach http://127.0.0.1:{port}/v1 \("):
        check_endpoint(LLMSettings(model="m", base_url=f"http://127.0.0.1:{port}/v1"), "--memeval-judge")


def test_an_endpoint_that_never_answers_is_given_up_on_in_time() -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/v1"
        with pytest.raises(ConfigError, match=r"cannot reach .* \(no answer within 0.3 s\)"):
            check_endpoint(LLMSettings(model="m", base_url=url, timeout_s=0.3), "--memeval-judge")


def test_a_replayed_run_is_not_probed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """prepare_run asks the endpoint only when the run will call it."""
    from harness import CommandLine

    from pytest_memeval.running.run_setup import prepare_run

    monkeypatch.setenv("MEMEVAL_CACHE_DIR", str(tmp_path / "cache"))
    cache = tmp_path / "calls.sqlite"
    dead = "--memeval-base-url=http://127.0.0.1:9/v1"
    args = ["--memsystem=context", "--memeval-suite=locomo", "--memeval-judge=openai:m", dead]
    defaults = option_defaults(request.config)
    with pytest.raises(ConfigError, match="cannot reach"):
        prepare_run(CommandLine(defaults, args), bundled_only=True, probe_llm=True)
    prepare_run(CommandLine(defaults, args), bundled_only=True)  # not asked: no probe
    sqlite3.connect(cache).close()
    replay = [*args, "--memeval-llm-cache=replay", f"--memeval-llm-cache-file={cache}"]
    prepare_run(CommandLine(defaults, replay), bundled_only=True, probe_llm=True)


@pytest.mark.slow
def test_a_keyless_llm_run_exits_4_in_one_line_before_any_item_runs(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.setenv("MEMEVAL_CACHE_DIR", str(pytester.path / "cache"))
    result = pytester.runpytest_subprocess(
        "--memsystem=context", "--memeval-suite=locomo", "--memeval-judge=openai:gpt-4o-mini", timeout=300
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.stderr.lines[0] == (
        "ERROR: --memeval-judge: no API key: set OPENAI_API_KEY, or point OPENAI_BASE_URL at a local server"
    )
    assert [line for line in result.stderr.lines if line.strip()] == result.stderr.lines[:1]
    assert "test_locomo" not in result.stdout.str() and "passed" not in result.stdout.str()
