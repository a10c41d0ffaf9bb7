"""The run's embedder behind an OpenAI-compatible `/v1/embeddings` endpoint on 127.0.0.1.

Memory services that embed on their own side (a Letta server) take an embeddings URL, not
a Python object. Serving the plugin's embedder (MiniLM by default, with its on-disk cache)
lets such a service embed exactly as the `chroma` and `mem0` adapters do, offline; a
generative GGUF model served by llama.cpp would also answer `/v1/embeddings`, but its
pooled hidden states are far weaker sentence embeddings than MiniLM's.

    with EmbeddingEndpoint(embedder) as endpoint:
        endpoint.base_url        # http://127.0.0.1:PORT/v1
"""

from __future__ import annotations

import base64
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

import numpy as np

from .embedders import Embedder

#: the largest request body accepted (a batch of long passages stays far below it)
MAX_BODY_BYTES = 64 * 1024 * 1024


class EmbeddingEndpoint:
    def __init__(self, embedder: Embedder, port: int = 0) -> None:
        self.embedder = embedder
        self._lock = threading.Lock()  # embedders (and the cache's SQLite connection) are not thread-safe
        self._httpd = _Server(("127.0.0.1", port), _Handler, self)
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        port = self._httpd.server_address[1]
        return f"http://127.0.0.1:{port}/v1"

    def embed(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            return self.embedder.embed(texts)

    def close(self) -> None:
        if self._thread.is_alive():
            self._httpd.shutdown()
            self._httpd.server_close()
            self._thread.join(timeout=10)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type, owner: EmbeddingEndpoint) -> None:
        self.owner = owner
        super().__init__(address, handler)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/v1/models":
            name = self.server.owner.embedder.name
            self._send(200, {"object": "list", "data": [{"id": name, "object": "model"}]})
        else:
            self._send(404, _error(f"no route {self.path}"))

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if self.path.rstrip("/") != "/v1/embeddings":
            self._send(404, _error(f"no route {self.path}"))
            return
        if length > MAX_BODY_BYTES:
            self._send(413, _error(f"request body over {MAX_BODY_BYTES} bytes"))
            return
        try:
            body = json.loads(self.rfile.read(length))
            texts = _inputs(body)
        except ValueError as exc:
            self._send(400, _error(str(exc)))
            return
        vectors = self.server.owner.embed(texts)
        as_base64 = body.get("encoding_format") == "base64"
        data = [
            {"object": "embedding", "index": i, "embedding": _encode(row, as_base64)} for i, row in enumerate(vectors)
        ]
        model = str(body.get("model") or self.server.owner.embedder.name)
        self._send(
            200, {"object": "list", "data": data, "model": model, "usage": {"prompt_tokens": 0, "total_tokens": 0}}
        )

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        raw = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)
        except OSError:
            self.close_connection = True


def _inputs(body: Any) -> list[str]:
    """The `input` of an embeddings request: a string or a list of strings (token ids are not served)."""
    if not isinstance(body, dict) or "input" not in body:
        raise ValueError("expected a JSON object with 'input'")
    given = body["input"]
    texts = [given] if isinstance(given, str) else given
    if not isinstance(texts, list) or not all(isinstance(text, str) for text in texts):
        raise ValueError("'input' must be a string or a list of strings")
    return texts


def _encode(row: np.ndarray, as_base64: bool) -> Any:
    if as_base64:  # what the openai client asks for by default
        return base64.b64encode(np.asarray(row, dtype="<f4").tobytes()).decode()
    return [float(x) for x in row]


def _error(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error"}}
