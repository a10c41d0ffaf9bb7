"""A scripted OpenAI-compatible HTTP server on 127.0.0.1, for tests that drive the real client.

    from llm_server import LLMServer, Reply

    def script(request):                      # Request -> Reply | str
        if "A1" in request.text:
            return '{"answer": "20_or_more", "would_skip": false}'
        return Reply.error(429, retry_after=0.1)

    with LLMServer(script, latency_s=0.2) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="...")
        ...
        assert server.count == 3
        assert "memory document" in server.requests[0].text

Endpoints:
    POST /v1/chat/completions   the subset the openai client uses: `messages`, `model`,
                                `temperature`, `max_tokens`, `logprobs`/`top_logprobs` (answered
                                with per-token log-probabilities when `supports_logprobs`),
                                `tools` (reply with `Reply(tool_calls=...)`). No streaming.
    POST /v1/completions        the same script on `prompt` (a base model's plain text); log-probs
                                in the legacy form (`logprobs`: N alternatives per token).
    POST /v1/embeddings         only when an `embed(text) -> list[float]` callable is given.
    GET  /v1/models             `models` and the models named so far (some clients probe it),
                                each with `max_model_len` when the server has a `window`.
    POST /extras/tokenize       only with a `tokenize(text) -> int` callable (llama-cpp-python's
                                route; the reply lists that many token ids).

Servers as the real ones differ: `refuse_json_schema=True` answers a `response_format` of type
json_schema as llama-cpp-python does (HTTP 500 naming response_format);
`refuse_null_content=True` answers an assistant message with `tool_calls` and `content: null`
as llama-cpp-python does (HTTP 500 "Input should be a valid string"); `window=N` makes a
chat call whose prompt has more than N words (+ max_tokens) fail as llama-cpp-python does
(HTTP 400 "maximum context length"); `capacity=N` answers 429 (Retry-After 0.1 s) to a
chat call arriving while N are held, as a rate-limited provider does (`max_in_flight` and
`over_capacity` say what the server saw). GET requests and tokenize calls are probes: they are
recorded in `server.probes`, not in `server.requests`.

Scripting: the script is any callable `Request -> Reply | str`; a str is the assistant's
content. It runs on the server's handler threads, so it must be thread-safe; the helpers
below are. `Request` carries the parsed JSON body (`.body`, `.messages`, `.model`, `.text`
= all message contents joined) and the headers (lower-case names).

Faults, as replies:
    Reply.error(status, retry_after=...)    429/500/... with an OpenAI-style error body
    Reply.slow(content, delay_s)            answer after `delay_s` (past the client timeout)
    Reply.truncated_body(content)           200 whose JSON body is cut in half
    Reply.malformed_body()                  200 whose body is not JSON
    Reply.trickle(content, interval_s)      200 whose body arrives one byte every interval_s
                                            (each read is quick, the whole reply is not)
    Reply(content, finish_reason="length")  a truncated *model output* (valid HTTP)
    HeaderTrickle()                         a raw server whose status line and headers arrive
                                            one byte a second, for ever (until stopped)
    `latency_s` on the server adds the same delay to every call.

Combinators (thread-safe): `sequence(*replies)` answers calls in order (the last repeats);
`fail_first(n, failure, then)` fails each distinct request body n times, then answers with
`then` (a Reply, a str or a script).

Every request is recorded in `server.requests` (in arrival order) and every raw request
(head and body bytes) in `server.raw_log`, so tests can assert on prompts and on what was
(not) sent. Waits are on an Event, so `stop()` (or leaving the `with`) returns promptly even
while replies are being delayed; there are no unbounded loops.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Union

ScriptResult = Union["Reply", str]
Script = Callable[["Request"], ScriptResult]
#: one generated token: (token, logprob, [(alternative, logprob), ...])
TokenSpec = tuple[str, float, Sequence[tuple[str, float]]]


@dataclass(frozen=True)
class Request:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    raw: bytes
    raw_body: bytes
    received: float

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", [])) if isinstance(self.body, dict) else []

    @property
    def model(self) -> str | None:
        return self.body.get("model") if isinstance(self.body, dict) else None

    @property
    def text(self) -> str:
        """All message contents joined by newlines, or a completions call's prompt (what a
        scripted model 'reads')."""
        if isinstance(self.body, dict) and isinstance(self.body.get("prompt"), str):
            return self.body["prompt"]
        return "\n".join(str(m.get("content") or "") for m in self.messages)

    @property
    def digest(self) -> str:
        """Identifies a request body (stable across retries of the same call)."""
        return hashlib.sha256(self.raw_body).hexdigest()


@dataclass(frozen=True)
class Reply:
    """What to answer. `body` (raw bytes) overrides everything but `status` and `headers`."""

    content: str | None = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    body: bytes | None = None
    finish_reason: str = "stop"
    #: per-token log-probabilities; None derives them from the content
    tokens: Sequence[TokenSpec] | None = None
    tool_calls: Sequence[dict[str, Any]] | None = None
    usage: dict[str, int] | None = None
    #: seconds between the bytes of the body (0: all at once)
    trickle_s: float = 0.0

    @classmethod
    def error(cls, status: int, message: str = "", retry_after: float | str | None = None) -> Reply:
        headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
        text = message or f"scripted error {status}"
        body = json.dumps({"error": {"message": text, "type": "server_error", "code": status}}).encode()
        return cls(status=status, headers=headers, body=body)

    @classmethod
    def slow(cls, content: str, delay_s: float) -> Reply:
        return cls(content=content, delay_s=delay_s)

    @classmethod
    def truncated_body(cls, content: str = "ok") -> Reply:
        whole = json.dumps(_completion_body(cls(content=content), {}, "scripted")).encode()
        return cls(body=whole[: len(whole) // 2])

    @classmethod
    def malformed_body(cls) -> Reply:
        return cls(body=b"<html>upstream exploded</html>")

    @classmethod
    def trickle(cls, content: str, interval_s: float = 1.0) -> Reply:
        return cls(content=content, trickle_s=interval_s)


class LLMServer:
    """The server; use as a context manager (or call start() and stop())."""

    def __init__(
        self,
        script: Script | str = "",
        *,
        latency_s: float = 0.0,
        supports_logprobs: bool = True,
        embed: Callable[[str], Sequence[float]] | None = None,
        refuse_json_schema: bool = False,
        refuse_null_content: bool = False,
        window: int | None = None,
        tokenize: Callable[[str], int] | None = None,
        models: Sequence[str] = (),
        capacity: int | None = None,
    ) -> None:
        self.script: Script = script if callable(script) else (lambda request, _c=script: _c)
        self.latency_s = latency_s
        self.supports_logprobs = supports_logprobs
        self.embed = embed
        self.refuse_json_schema = refuse_json_schema
        self.refuse_null_content = refuse_null_content
        self.window = window
        self.tokenize = tokenize
        self.models = tuple(models)
        self.capacity = capacity
        self._in_flight = 0
        self._max_in_flight = 0
        self._over_capacity = 0
        self._held: list[tuple[float, float]] = []
        self._connections_opened = 0
        self._requests: list[Request] = []
        self._probes: list[Request] = []
        self._raw: list[bytes] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> LLMServer:
        self._httpd = _Server(("127.0.0.1", 0), _Handler, self)
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._stopping.set()
        self._httpd.shutdown()
        with self._lock:
            open_connections = list(self._connections)
        for conn in open_connections:  # wakes handlers blocked on idle keep-alive reads
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._httpd.server_close()  # joins the handler threads
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None

    def __enter__(self) -> LLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- what tests read -----------------------------------------------------------------------
    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def requests(self) -> list[Request]:
        with self._lock:
            return list(self._requests)

    @property
    def probes(self) -> list[Request]:
        with self._lock:
            return list(self._probes)

    @property
    def count(self) -> int:
        with self._lock:
            return len(self._requests)

    @property
    def max_in_flight(self) -> int:
        """The most chat/completions calls the server held at once (429s not counted)."""
        with self._lock:
            return self._max_in_flight

    @property
    def connections_opened(self) -> int:
        """How many connections clients opened to the server."""
        with self._lock:
            return self._connections_opened

    @property
    def held(self) -> list[tuple[float, float]]:
        """(start, end) of every chat/completions call the server held, `time.monotonic()`
        seconds (the same clock in every process of the machine); calls still held end at inf."""
        with self._lock:
            return sorted(self._held)

    @property
    def over_capacity(self) -> int:
        """How many calls were answered 429 for arriving above `capacity`."""
        with self._lock:
            return self._over_capacity

    @property
    def raw_log(self) -> bytes:
        with self._lock:
            return b"\n".join(self._raw)

    def reset(self) -> None:
        with self._lock:
            self._requests.clear()
            self._probes.clear()
            self._raw.clear()

    # -- used by the handler ---------------------------------------------------------------------
    def _record(self, request: Request) -> None:
        probe = request.method == "GET" or request.path.rstrip("/") in ("/extras/tokenize", "/tokenize")
        with self._lock:
            (self._probes if probe else self._requests).append(request)
            self._raw.append(request.raw)

    def _track(self, conn: socket.socket, add: bool) -> None:
        with self._lock:
            (self._connections.add if add else self._connections.discard)(conn)
            self._connections_opened += add

    def _enter(self) -> int | None:
        """Count a call in: its index in `held`; None (not counted) when it is above the
        server's capacity."""
        with self._lock:
            if self.capacity is not None and self._in_flight >= self.capacity:
                self._over_capacity += 1
                return None
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
            self._held.append((time.monotonic(), math.inf))
            return len(self._held) - 1

    def _leave(self, index: int) -> None:
        with self._lock:
            self._in_flight -= 1
            self._held[index] = (self._held[index][0], time.monotonic())

    def _wait(self, seconds: float) -> None:
        if seconds > 0:
            self._stopping.wait(seconds)


class _Server(ThreadingHTTPServer):
    daemon_threads = False
    block_on_close = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], handler: type, owner: LLMServer) -> None:
        self.owner = owner
        super().__init__(address, handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up (e.g. after its timeout) is part of the tests


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        # headers and body go out in two writes: without this, Nagle's algorithm meets the
        # client's delayed ACK and every reply waits ~40 ms
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.owner._track(self.connection, True)

    def finish(self) -> None:
        self.server.owner._track(self.connection, False)
        try:
            super().finish()
        except OSError:
            pass

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        owner = self.server.owner
        self._read(owner, b"")
        if self.path.rstrip("/") == "/v1/models":
            names = sorted({r.model for r in owner.requests if r.model} | set(owner.models))
            window = {} if owner.window is None else {"max_model_len": owner.window}
            data = [{"id": n, "object": "model", **window} for n in names]
            self._send(200, json.dumps({"object": "list", "data": data}).encode())
        else:
            self._send(404, _error_body("not found", 404))

    def do_POST(self) -> None:
        owner = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        request = self._read(owner, self.rfile.read(length))
        path = self.path.rstrip("/")
        if path == "/v1/embeddings" and owner.embed is not None:
            owner._wait(owner.latency_s)
            self._send(200, json.dumps(_embedding_body(request.body, owner.embed)).encode())
            return
        if path == "/extras/tokenize" and owner.tokenize is not None and isinstance(request.body, dict):
            self._send(
                200, json.dumps({"tokens": list(range(owner.tokenize(str(request.body.get("input")))))}).encode()
            )
            return
        if path not in ("/v1/chat/completions", "/v1/completions"):
            self._send(404, _error_body(f"no route {self.path}", 404))
            return
        if not isinstance(request.body, dict) or request.body.get("stream"):
            self._send(400, _error_body("expected a JSON body without streaming", 400))
            return
        refusal = _refusal(owner, request)
        if refusal is not None:
            self._send(*refusal)
            return
        held = owner._enter()
        if held is None:
            self._send(429, _error_body("over capacity", 429), {"Retry-After": "0.1"})
            return
        try:
            result = owner.script(request)
            reply = Reply(content=result) if isinstance(result, str) else result
            owner._wait(owner.latency_s + reply.delay_s)
        finally:
            owner._leave(held)
        if owner._stopping.is_set():
            return
        if reply.body is not None:
            self._send(reply.status, reply.body, reply.headers)
        elif reply.status != 200:
            self._send(reply.status, _error_body(f"scripted error {reply.status}", reply.status), reply.headers)
        elif path == "/v1/completions":
            logprobs = request.body.get("logprobs")
            top = int(logprobs) if logprobs is not None and owner.supports_logprobs else None
            body = _text_completion_body(reply, request.model or "scripted", top)
            self._send(200, json.dumps(body).encode(), reply.headers)
        else:
            want = bool(request.body.get("logprobs")) and owner.supports_logprobs
            top = int(request.body.get("top_logprobs") or 0) if want else None
            body = _completion_body(reply, request.body, request.model or "scripted", top)
            self._send(200, json.dumps(body).encode(), reply.headers, reply.trickle_s)

    def _read(self, owner: LLMServer, raw_body: bytes) -> Request:
        head = f"{self.command} {self.path}\n{self.headers}".encode()
        try:
            body = json.loads(raw_body) if raw_body else None
        except ValueError:
            body = None
        request = Request(
            method=self.command,
            path=self.path,
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
            raw=head + raw_body,
            raw_body=raw_body,
            received=time.monotonic(),
        )
        owner._record(request)
        return request

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None, trickle_s: float = 0.0) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            if trickle_s <= 0:
                self.wfile.write(body)
                return
            self.wfile.flush()
            owner = self.server.owner
            for i in range(len(body)):  # bounded by the body; stop() ends the waits at once
                if owner._stopping.is_set():
                    break
                self.wfile.write(body[i : i + 1])
                self.wfile.flush()
                owner._wait(trickle_s)
            self.close_connection = True
        except OSError:
            self.close_connection = True


def _refusal(owner: LLMServer, request: Request) -> tuple[int, bytes] | None:
    """What llama-cpp-python answers to a json_schema response_format, or to a prompt over its window."""
    form = request.body.get("response_format")
    if owner.refuse_json_schema and isinstance(form, dict) and form.get("type") == "json_schema":
        message = (
            "1 validation error: {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
            "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}"
        )
        return 500, json.dumps({"error": {"message": message, "type": "internal_server_error"}}).encode()
    for index, message in enumerate(request.messages):
        if owner.refuse_null_content and message.get("tool_calls") and message.get("content") is None:
            error = (
                f"1 validation error: {{'type': 'string_type', 'loc': ('body', 'messages', {index}, "
                "'ChatCompletionRequestAssistantMessage', 'content'), 'msg': 'Input should be a valid string', "
                "'input': None}"
            )
            return 500, json.dumps({"error": {"message": error, "type": "internal_server_error"}}).encode()
    if owner.window is not None:
        needed = len(request.text.split()) + int(request.body.get("max_tokens") or 0)
        if needed > owner.window:
            message = (
                f"This model's maximum context length is {owner.window} tokens, however you requested {needed} tokens"
            )
            return 400, json.dumps(
                {"error": {"message": message, "type": "invalid_request_error", "code": "context_length_exceeded"}}
            ).encode()
    return None


def _error_body(message: str, status: int) -> bytes:
    return json.dumps({"error": {"message": message, "type": "invalid_request_error", "code": status}}).encode()


_TOKEN = re.compile(r"\s*\w+|\s*[^\w\s]|\s+")


def _token_specs(reply: Reply) -> list[TokenSpec]:
    if reply.tokens is not None:
        return list(reply.tokens)
    return [(tok, -0.01, [(tok, -0.01)]) for tok in _TOKEN.findall(reply.content or "")]


def _completion_body(reply: Reply, request: dict[str, Any], model: str, top: int | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": f"call_{i}", "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
            for i, c in enumerate(reply.tool_calls)
        ]
    logprobs = None
    if top is not None:
        logprobs = {
            "content": [
                {
                    "token": tok,
                    "logprob": lp,
                    "bytes": list(tok.encode()),
                    "top_logprobs": [{"token": a, "logprob": alp, "bytes": list(a.encode())} for a, alp in alts[:top]],
                }
                for tok, lp, alts in _token_specs(reply)
            ],
            "refusal": None,
        }
    prompt_tokens = sum(len(str(m.get("content") or "").split()) for m in request.get("messages", []))
    completion_tokens = len((reply.content or "").split())
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason, "logprobs": logprobs}],
        "usage": reply.usage
        or {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def _text_completion_body(reply: Reply, model: str, top: int | None) -> dict[str, Any]:
    logprobs = None
    if top is not None:
        specs = _token_specs(reply)
        logprobs = {
            "tokens": [tok for tok, _, _ in specs],
            "token_logprobs": [lp for _, lp, _ in specs],
            "top_logprobs": [dict(list(alts)[:top]) for _, _, alts in specs],
            "text_offset": [0] * len(specs),
        }
    return {
        "id": "cmpl-scripted",
        "object": "text_completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "text": reply.content, "finish_reason": reply.finish_reason, "logprobs": logprobs}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


def _embedding_body(body: Any, embed: Callable[[str], Sequence[float]]) -> dict[str, Any]:
    inputs = body.get("input", []) if isinstance(body, dict) else []
    texts = [inputs] if isinstance(inputs, str) else list(inputs)
    return {
        "object": "list",
        "model": body.get("model") if isinstance(body, dict) else None,
        "data": [{"object": "embedding", "index": i, "embedding": list(embed(t))} for i, t in enumerate(texts)],
        "usage": {"prompt_tokens": 0, "total_tokens": 0},
    }


# -- combinators --------------------------------------------------------------------------------


def sequence(*replies: ScriptResult) -> Script:
    """Answer the n-th call with the n-th reply; the last one repeats."""
    if not replies:
        raise ValueError("sequence() needs at least one reply")
    lock = threading.Lock()
    calls = [0]

    def script(request: Request) -> ScriptResult:
        with lock:
            index = min(calls[0], len(replies) - 1)
            calls[0] += 1
        return replies[index]

    return script


def fail_first(n: int, failure: ScriptResult, then: ScriptResult | Script) -> Script:
    """Fail each distinct request body `n` times with `failure`, then answer with `then`."""
    lock = threading.Lock()
    seen: dict[str, int] = {}

    def script(request: Request) -> ScriptResult:
        with lock:
            count = seen.get(request.digest, 0)
            seen[request.digest] = count + 1
        if count < n:
            return failure
        return then(request) if callable(then) else then

    return script


class HeaderTrickle:
    """A raw loopback server that answers every connection with its status line and headers
    one byte a second, for ever (until stopped): no read ever waits long."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}/v1"

    def __enter__(self) -> HeaderTrickle:
        self._listener.settimeout(0.1)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)
        self._listener.close()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self._listener.accept()
            except OSError:
                continue
            threading.Thread(target=self._trickle, args=(connection,), daemon=True).start()

    def _trickle(self, connection: socket.socket) -> None:
        with connection:
            for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"y" * 100_000:
                if self._stop.wait(1.0):
                    return
                try:
                    connection.sendall(bytes([byte]))
                except OSError:
                    return
