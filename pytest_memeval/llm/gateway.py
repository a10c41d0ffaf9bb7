"""The run's loopback LLM gateway: one OpenAI-compatible endpoint on 127.0.0.1 through
which every LLM call of a pytest process goes, the memory systems' own included.

    gateway = LLMGateway(settings).start()              # settings: the run's LLMSettings
    url = gateway.route("memsystem 'mem0'", upstream)   # http://127.0.0.1:PORT/r/1/v1
    meter = gateway.meter("memsystem 'mem0'")
    with meter.scope(namespace):
        ...                                             # mem0's client calls `url`
    meter.usage(namespace)                              # LLMUsage(calls, tokens, seconds)
    gateway.stop()

Each caller gets a route of its own (`/r/<n>/v1`), so the gateway knows whose call it
serves whatever client made it (openai, litellm, LangChain, graphiti's, a Letta server in
another process). On a recorded route (a memory system's) POSTs to chat/completions,
completions and embeddings are exchanges, per the settings' cache mode:

- readwrite: answered from the cache file when recorded (exchanges.py says what the key
  holds: model, messages, tools, schema, parameters, the repeat), else forwarded to the
  route's upstream endpoint and, when it answers 200, recorded;
- replay: answered from the cache file, never forwarded; a miss answers HTTP 404 with one
  line naming the caller and the call, and is kept in the open scope, so the runner fails
  the item with that line even if the system swallows the failure;
- off: forwarded, not recorded.

The plugin's own response model and judges get routes that forward without recording
(their calls are recorded by ModelCaller, keyed by item and template); `forwarding` gives
their settings on such a route, whose messages still name the endpoint the user configured. Anything else
(GET /v1/models, a server's /props or /tokenize) is forwarded as it is (in replay, /models
lists the models of the routes, other paths answer 404).

The API key: clients send anything; the gateway sends `$OPENAI_API_KEY` (or the local
placeholder) upstream itself, and scrubs it (`Secret.scrub_body`) from every request and
response it records or returns, in what their JSON decodes to (a key spelled in `\\u`
escapes, or split over a stream's events, included: redaction.py). Nothing of the headers
is recorded.

Every forwarded call has a deadline: the settings' attempt timeout for the size of the
body (`LLMSettings.attempt_timeout`), for the whole call, headers and body together (an
endpoint that sends one byte a second is cut off at it: deadline.py); a timeout answers
504, a connection failure 502 (the client's own retry policy decides what then). At most `settings.concurrency` calls
are upstream at once, fewer after the endpoint answered 429 (adaptive.py: halved on a 429,
raised by one after a round of successes); under xdist each call also holds one of the
run's slots that the workers share (`settings.run_slots`, run_slots.py), so that the run
keeps --memeval-concurrency upstream in all. A call waits for its slots within its
deadline; one it does not get in time is answered 429 (never sent). One attempt per call:
retries are the client's. Identical recorded calls in flight at once (a client retrying
after its own timeout) wait for the first instead of asking the endpoint twice.

A streamed request (`stream: true`) is forwarded whole and told to the client as
server-sent events (streams.py), so a recording holds answers, never streams.

llama-cpp-python's server (the local model's) refuses three things the OpenAI API takes
(llama_cpp.py): a `response_format` of type json_schema, an assistant message with
`tool_calls` and `content: null` (Letta sends one at every step) and `tool_choice:
"required"`. When an endpoint refuses the first or the second (its HTTP error says so), the
gateway sends that request again, and every later one to that endpoint at once, in the form
it takes: the schema as `{"type": "json_object", "schema": ...}`; `content: ""` on those
messages and "required" as the one tool by name, or "auto" among several. Only what is
forwarded changes: the key is the body the client sent, so a replay, which forwards
nothing, meets the same keys.

One gateway per pytest process (each xdist worker has its own; the cache file is shared
safely through SQLite). It runs on daemon threads and binds 127.0.0.1 only.
"""

from __future__ import annotations

import json
import logging
import math
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import httpx

from ..config.llm_settings import LLMSettings
from ..errors import ConfigError
from ..files import json_input
from . import llama_cpp as llama_cpp_rules
from .adaptive import THROTTLED, AdaptiveLimit
from .budget import BYTES_PER_TOKEN
from .cache import CallCache
from .deadline import DeadlineExceeded, call_within
from .exchanges import canonical, exchange_key, is_recorded_answer, recorded_status, restore_ids, with_status
from .metering import LLMUsage, Meter
from .run_slots import RunSlots
from .secret import Secret, api_key_from_env
from .streams import CONTENT_TYPE, stream_events
from .tls import tls_context

log = logging.getLogger("pytest_memeval.llm.gateway")

OPENAI_BASE_URL = "https://api.openai.com/v1"
#: the routes whose POSTs are exchanges, as the path after /v1
EXCHANGE_ROUTES = ("chat/completions", "completions", "embeddings")
#: the largest request body taken (a client's prompt), in bytes
MAX_BODY = 64 * 1024 * 1024


@dataclass(frozen=True)
class Route:
    """One caller's way through the gateway."""

    number: int
    caller: str
    #: the endpoint the caller's calls are forwarded to (its base URL, usually ending in /v1)
    upstream: str
    #: whether its exchanges are recorded and replayed (a memory system's) or only forwarded
    record: bool


@dataclass(frozen=True)
class _Answer:
    status: int
    body: bytes
    content_type: str = "application/json"


class LLMGateway:
    """The HTTP server and what it serves; thread-safe."""

    def __init__(self, settings: LLMSettings, *, cache: CallCache | None = None) -> None:
        self.settings = settings
        if cache is None and settings.cache_mode != "off":
            cache = CallCache.for_settings(settings)
        self.cache = cache
        self._routes: dict[int, Route] = {}
        self._meters: dict[str, Meter] = {}
        self._secrets: dict[str, Secret | str] = {}
        #: per endpoint, the forms of _FORMS it was found to need (llama-cpp-python's server)
        self._forms: dict[str, set[str]] = {}
        self._inflight: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        # a connection kept open for every call that can be upstream at once: httpx keeps 20 by
        # default, and beyond them each call opened a new connection (a TLS handshake on https)
        keep_alive = max(20, settings.concurrency)
        self._http = httpx.Client(
            verify=tls_context(),
            timeout=settings.timeout_s,
            limits=httpx.Limits(max_connections=max(100, keep_alive), max_keepalive_connections=keep_alive),
        )
        #: the calls this process has upstream at once: --memeval-concurrency (or its share
        #: of it), lowered on 429 and raised again (adaptive.py)
        self.in_flight = AdaptiveLimit(settings.concurrency)
        #: the run's slots shared with the other xdist workers, one held per call upstream
        self.run_slots = RunSlots(settings.run_slots) if settings.run_slots is not None else None
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def __repr__(self) -> str:
        return f"LLMGateway({self.base_url if self._server else 'stopped'}, cache_mode={self.settings.cache_mode!r})"

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> LLMGateway:
        self._server = _Server(("127.0.0.1", 0), _Handler, self)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, name="memeval-gateway", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self._http.close()
        if self.run_slots is not None:
            self.run_slots.close()
        if self.cache is not None:
            self.cache.close()

    def __enter__(self) -> LLMGateway:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        """The server's root, http://127.0.0.1:PORT."""
        if self._server is None:
            raise RuntimeError("the gateway is not started")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    # -- routes ------------------------------------------------------------------------------
    def route(self, caller: str, upstream: str | None = None, *, record: bool = True) -> str:
        """The base URL (…/v1) through which `caller` reaches `upstream` (default: the
        settings' endpoint, else $OPENAI_BASE_URL, else OpenAI's). The same caller and
        upstream get the same route."""
        target = self._target(upstream)
        with self._lock:
            for known in self._routes.values():
                if (known.caller, known.upstream, known.record) == (caller, target, record):
                    return self._url(known)
            found = Route(len(self._routes) + 1, caller, target, record)
            self._routes[found.number] = found
            self._meters.setdefault(caller, Meter(caller))
        return self._url(found)

    def forwarding(self, llm: LLMSettings, caller: str) -> LLMSettings:
        """`llm` with its calls forwarded (not recorded) through `caller`'s route; messages
        still name the endpoint `llm` names."""
        route = self.route(caller, llm.base_url, record=False)
        return replace(llm, base_url=route, shown_url=self._target(llm.base_url))

    def _target(self, upstream: str | None) -> str:
        return (upstream or self.settings.resolved_base_url() or OPENAI_BASE_URL).rstrip("/")

    def meter(self, caller: str) -> Meter:
        """The usage of `caller`'s calls (created with its first route)."""
        with self._lock:
            return self._meters.setdefault(caller, Meter(caller))

    def _url(self, route: Route) -> str:
        return f"{self.base_url}/r/{route.number}/v1"

    def _find(self, path: str) -> tuple[Route, str] | None:
        """The route of a request path /r/<n>/<rest>, and rest (e.g. v1/chat/completions)."""
        parts = urlsplit(path).path.split("/", 3)
        if len(parts) < 4 or parts[1] != "r" or not parts[2].isdigit():
            return None
        with self._lock:
            route = self._routes.get(int(parts[2]))
        return None if route is None else (route, parts[3])

    # -- serving -----------------------------------------------------------------------------
    def serve(self, method: str, path: str, raw: bytes) -> _Answer:
        found = self._find(path)
        if found is None:
            return _error(404, f"no gateway route {urlsplit(path).path} (routes are /r/<n>/v1/...)")
        route, rest = found
        endpoint = rest.removeprefix("v1/")
        if method == "POST" and route.record and endpoint in EXCHANGE_ROUTES and rest.startswith("v1/"):
            body = _json_object(raw)
            if body is not None:
                return self._exchange(route, endpoint, body)
        return self._pass_through(route, method, rest, raw)

    def _exchange(self, route: Route, endpoint: str, body: dict[str, Any]) -> _Answer:
        started = time.monotonic()
        meter = self.meter(route.caller)
        secret = self._secret(route)
        scrub = secret.scrub_body if isinstance(secret, Secret) else _unchanged
        request_text = scrub(json.dumps(canonical(endpoint, body, meter.repeat()), sort_keys=True, ensure_ascii=False))
        key = exchange_key(endpoint, json.loads(request_text)["body"], meter.repeat())
        model = str(body.get("model", ""))
        answer, cached = self._recorded(key, request_text), True
        if answer is None and self.settings.cache_mode == "replay":
            message = _miss_message(route, endpoint, body, key, self.settings)
            meter.missed(message)
            return _error(404, message, code="replay_miss")
        if answer is None:
            cached = False
            answer = self._forward_exchange(route, endpoint, body, key, request_text, model, secret)
        if answer.status == 200:
            response = json.loads(answer.body)
            meter.add(_usage_of(response, time.monotonic() - started, cached), model)
            if body.get("stream"):
                options = body.get("stream_options") or {}
                events = stream_events(response, endpoint, bool(options.get("include_usage")))
                return _Answer(200, events, CONTENT_TYPE)
        return answer

    def _recorded(self, key: str, request_text: str) -> _Answer | None:
        if self.cache is None:
            return None
        hit = self.cache.get_exchange(key)
        if hit is None:
            return None
        recorded_request, response = hit
        return _Answer(
            recorded_status(recorded_request), restore_ids(response, recorded_request, request_text).encode()
        )

    def _forward_exchange(
        self,
        route: Route,
        endpoint: str,
        body: dict[str, Any],
        key: str,
        request_text: str,
        model: str,
        secret: Secret | str,
    ) -> _Answer:
        """Forward once (or wait for the identical call in flight), record its answer
        (`is_recorded_answer`: a 200, or a refusal of a request longer than the context)."""
        leader, event = self._join(key) if self.cache is not None else (True, threading.Event())
        if not leader:
            event.wait(self._deadline(body))
            recorded = self._recorded(key, request_text)
            if recorded is not None:
                return recorded
        try:
            answer = self._send_exchange(route, endpoint, body, secret)
            cache = self.cache
            if (
                cache is not None
                and self.settings.cache_mode == "readwrite"
                and is_recorded_answer(answer.status, answer.body)
            ):
                stored = request_text if answer.status == 200 else with_status(request_text, answer.status)
                cache.put_exchange(key, model, f"{route.caller} {endpoint}", stored, answer.body.decode())
            return answer
        finally:
            if leader:
                with self._lock:
                    self._inflight.pop(key, None)
                event.set()

    def _join(self, key: str) -> tuple[bool, threading.Event]:
        with self._lock:
            event = self._inflight.get(key)
            if event is not None:
                return False, event
            event = self._inflight[key] = threading.Event()
            return True, event

    def _send_exchange(self, route: Route, endpoint: str, body: dict[str, Any], secret: Secret | str) -> _Answer:
        if not isinstance(secret, Secret):
            return _error(401, secret)
        sent = {name: value for name, value in body.items() if name not in ("stream", "stream_options")}
        url, deadline = f"{route.upstream}/{endpoint}", self._deadline(body)
        with self._lock:
            learnt = set(self._forms.get(route.upstream, ()))
        for _ in range(len(_FORMS) + 1):  # each rule is learnt once
            answer = self._send(url, "POST", json.dumps(_in_forms(sent, learnt)).encode(), secret, deadline)
            text = answer.body.decode(errors="replace") if answer.status >= 400 else ""
            new = {
                name
                for name, (refuses, _) in _FORMS.items()
                if name not in learnt and refuses(sent, answer.status, text)
            }
            if not new:
                break
            learnt |= new
            with self._lock:
                self._forms.setdefault(route.upstream, set()).update(new)
            log.info("%s refuses OpenAI's %s: sending what it takes", route.upstream, " and ".join(sorted(new)))
        if answer.status == 200 and _json_object(answer.body) is None:
            return _error(502, f"the endpoint at {_where(route.upstream)} answered 200 without a JSON object")
        return answer

    def _pass_through(self, route: Route, method: str, rest: str, raw: bytes) -> _Answer:
        if self.settings.cache_mode == "replay":
            if method == "GET" and rest.rstrip("/") == "v1/models":
                return _Answer(200, json.dumps({"object": "list", "data": []}).encode())
            return _error(404, f"replay: {method} /{rest} is not answered (nothing is forwarded in replay)")
        secret = self._secret(route)
        if not isinstance(secret, Secret):
            return _error(401, secret)
        url = f"{route.upstream}/{rest[3:]}" if rest.startswith("v1/") else f"{_root(route.upstream)}/{rest}"
        call = _json_object(raw) if method == "POST" and rest.removeprefix("v1/") in EXCHANGE_ROUTES else None
        started = time.monotonic()
        answer = self._send(url, method, raw, secret, self.settings.timeout_s if call is None else self._deadline(call))
        response = _json_object(answer.body) if call is not None and answer.status == 200 else None
        if response is not None:  # the plugin's own models: counted here, recorded by ModelCaller
            self.meter(route.caller).add(_usage_of(response, time.monotonic() - started, cached=False))
        return answer

    def _send(self, url: str, method: str, raw: bytes, secret: Secret, timeout: float) -> _Answer:
        """One call upstream within `timeout`, the wait for an in-flight slot included."""
        started = time.monotonic()
        slot = self.in_flight.acquire(timeout)
        shared = None
        if slot is not None and self.run_slots is not None:
            shared = self.run_slots.acquire(timeout - (time.monotonic() - started))
            if shared is None:
                self.in_flight.release(slot, 0)
                slot = None
        if slot is None:  # the client retries it like the endpoint's own 429
            return _error(THROTTLED, f"no in-flight slot came free within {timeout:.0f} s (the endpoint answered 429)")
        status = 0
        headers = {"Authorization": f"Bearer {secret.reveal()}", "Content-Type": "application/json"}
        try:
            left = max(timeout - (time.monotonic() - started), 0.01)
            response = call_within(  # httpx's timeout bounds each read, not the whole answer
                left,
                lambda: self._http.request(method, url, content=raw or None, headers=headers, timeout=left),
                name="memeval-gateway-call",
            )
            status = response.status_code
        except (httpx.TimeoutException, DeadlineExceeded):
            return _error(504, f"the endpoint at {_where(url)} did not answer within {timeout:.0f} s")
        except httpx.HTTPError as exc:
            return _error(502, f"the endpoint at {_where(url)} cannot be reached ({type(exc).__name__})")
        finally:
            if shared is not None and self.run_slots is not None:
                self.run_slots.release(shared)
            self.in_flight.release(slot, status)
        content_type = response.headers.get("content-type", "application/json")
        return _Answer(status, secret.scrub_body(response.text).encode(), content_type)

    def _deadline(self, body: Mapping[str, Any]) -> float:
        """The attempt timeout for a body of this size: every byte at most one token."""
        size = len(json.dumps(body, ensure_ascii=False).encode())
        answer = body.get("max_tokens") or body.get("max_completion_tokens") or 0
        tokens = math.ceil(size / BYTES_PER_TOKEN) + (answer if isinstance(answer, int) else 0)
        return self.settings.attempt_timeout(tokens)

    def _secret(self, route: Route) -> Secret | str:
        """The key sent to the route's upstream, or why there is none (one line)."""
        with self._lock:
            if route.upstream not in self._secrets:
                try:
                    self._secrets[route.upstream] = api_key_from_env(
                        None if route.upstream == OPENAI_BASE_URL else route.upstream
                    )
                except ConfigError as exc:
                    self._secrets[route.upstream] = str(exc)
            return self._secrets[route.upstream]


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a call hung upstream must not hold the process at exit
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], handler: type, gateway: LLMGateway) -> None:
        self.gateway = gateway
        super().__init__(address, handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up (after its own timeout) is not the gateway's failure


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._answer(self.server.gateway.serve("GET", self.path, b""))

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self.close_connection = True
            self._answer(_error(413, f"request body of {length} bytes is over the gateway's {MAX_BODY}"))
            return
        self._answer(self.server.gateway.serve("POST", self.path, self.rfile.read(length)))

    def _answer(self, answer: _Answer) -> None:
        try:
            self.send_response(answer.status)
            self.send_header("Content-Type", answer.content_type)
            self.send_header("Content-Length", str(len(answer.body)))
            self.end_headers()
            self.wfile.write(answer.body)
        except OSError:
            self.close_connection = True


def _error(status: int, message: str, code: str | None = None) -> _Answer:
    body = {"error": {"message": message, "type": "memeval_gateway", "code": code or status}}
    return _Answer(status, json.dumps(body).encode())


def _json_object(raw: bytes) -> dict[str, Any] | None:
    try:
        value = json_input.loads(raw, constants=True)
    except ValueError:  # nested too deeply to read included
        return None
    return value if isinstance(value, dict) else None


def _usage_of(response: Mapping[str, Any], seconds: float, cached: bool) -> LLMUsage:
    usage = response.get("usage")
    usage = usage if isinstance(usage, Mapping) else {}

    def count(name: str) -> int:
        value = usage.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    return LLMUsage(1, count("prompt_tokens"), count("completion_tokens"), seconds, int(cached))


def _miss_message(route: Route, endpoint: str, body: Mapping[str, Any], key: str, settings: LLMSettings) -> str:
    messages = body.get("messages")
    first = (
        messages[0].get("content")
        if isinstance(messages, list) and messages and isinstance(messages[0], dict)
        else None
    )
    opening = " ".join(str(first if first is not None else body.get("prompt", body.get("input", ""))).split())
    opening = opening if len(opening) <= 60 else opening[:57] + "..."
    return (
        f"replay cache miss: {route.caller} made an LLM call the recording does not hold (POST /v1/{endpoint}, "
        f"model {str(body.get('model', ''))!r}, prompt {opening!r}, key {key[:12]}) in {settings.cache_path}; "
        "record it with --memeval-llm-cache=readwrite"
    )


def _tool_calls_form(body: Mapping[str, Any]) -> dict[str, Any]:
    return llama_cpp_rules.with_tool_choice(llama_cpp_rules.with_empty_tool_call_content(body))


#: what an endpoint may refuse that OpenAI takes: how to tell, and the form it takes instead
_FORMS: dict[
    str, tuple[Callable[[Mapping[str, Any], int, str], bool], Callable[[Mapping[str, Any]], dict[str, Any]]]
] = {
    "json_schema response_format": (llama_cpp_rules.refuses_json_schema, llama_cpp_rules.with_json_object_schema),
    "tool-call history": (llama_cpp_rules.refuses_null_content, _tool_calls_form),
}


def _in_forms(body: Mapping[str, Any], names: set[str]) -> dict[str, Any]:
    out = dict(body)
    for name in sorted(names):
        out = _FORMS[name][1](out)
    return out


def _root(upstream: str) -> str:
    return upstream.removesuffix("/v1")


def _where(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}{f':{parts.port}' if parts.port else ''}"  # no userinfo


def _unchanged(text: str) -> str:
    return text
