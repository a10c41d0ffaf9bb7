"""A loopback stand-in for the Supermemory API, built from the official client's own types.

    with SupermemoryServer(api_key="sk-test") as server:
        Supermemory(api_key="sk-test", base_url=server.base_url)

It serves the endpoints the `supermemory` adapter calls, with the paths the client (5.x)
builds. Every reply is validated through the client's response model before it is sent
(`DocumentRef`, `Document`, `SearchResponse`, `ListResponse`, `NamespaceDeleted`), and
every request body is checked against the fields the client sends, so a change of the
client's API (a renamed path, field or required value) fails the tests that use it.

Behaviour, kept simple and deterministic: each document is one memory and one chunk with
its text verbatim, the document's metadata kept as given (a search result's own metadata is
empty; `include: {"documents": true}` adds its source document with that metadata); search ranks by the cosine of bag-of-words vectors (the plugin's hashing
embedder), ties by insertion order; a new document is "queued" until its status is read
once. `server.requests` records (method, path, body) for assertions.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self
from urllib.parse import parse_qs, unquote, urlsplit

import numpy as np
from supermemory.types import Document, DocumentRef, ListResponse, SearchResponse
from supermemory.types.namespace_deleted import NamespaceDeleted_Deleted

from pytest_memeval.memory.embedders import HashingEmbedder

#: request fields the client sends, per endpoint (None values are dropped by the client)
ADD_FIELDS = {"content", "id", "supportingContext", "metadata", "group", "date", "taskType", "dreaming"}
SEARCH_FIELDS = {"query", "filter", "searchMode", "limit", "include", "threshold", "rerank", "rewriteQuery"}
LIST_FIELDS = {"filter", "include"}
_ROUTE = re.compile(r"^/ns/(?P<ns>[^/]+)(?P<rest>/.*)?$")


@dataclass
class _Document:
    id: str
    content: str
    created: str
    metadata: dict[str, Any] = field(default_factory=dict)
    status_reads: int = 0


@dataclass
class _Store:
    documents: dict[str, list[_Document]] = field(default_factory=dict)
    counter: int = 0


class SupermemoryServer:
    def __init__(self, api_key: str = "sk-test") -> None:
        self.api_key = api_key
        self.store = _Store()
        self.requests: list[tuple[str, str, Any]] = []
        self.lock = threading.Lock()
        self.embedder = HashingEmbedder()
        self._httpd = _Server(("127.0.0.1", 0), _Handler, self)
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def namespaces(self) -> list[str]:
        with self.lock:
            return sorted(ns for ns, docs in self.store.documents.items() if docs)

    def start(self) -> SupermemoryServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- endpoints: each returns (status, wire payload) ---------------------------------------------
    def add(self, ns: str, body: dict[str, Any]) -> tuple[int, Any]:
        if not isinstance(body.get("content"), str):
            return 400, _error("content is required")
        with self.lock:
            self.store.counter += 1
            doc = _Document(f"doc-{self.store.counter:06d}", body["content"], _now(), dict(body.get("metadata") or {}))
            self.store.documents.setdefault(ns, []).append(doc)
        return 200, _checked(DocumentRef, {"id": doc.id, "status": "queued"})

    def get_document(self, ns: str, doc_id: str) -> tuple[int, Any]:
        with self.lock:
            doc = next((d for d in self.store.documents.get(ns, []) if d.id == doc_id), None)
            if doc is None:
                return 404, _error(f"no document {doc_id}")
            doc.status_reads += 1
            status = "queued" if doc.status_reads == 1 else "done"
        wire = {
            "id": doc.id,
            "type": "text",
            "content": doc.content,
            "metadata": doc.metadata,
            "system": {"status": status, "dreamingStatus": "idle", "createdAt": doc.created, "updatedAt": doc.created},
        }
        return 200, _checked(Document, wire)

    def search(self, ns: str, body: dict[str, Any]) -> tuple[int, Any]:
        if not isinstance(body.get("query"), str):
            return 400, _error("query is required")
        mode = body.get("searchMode", "hybrid")
        limit = int(body.get("limit", 10))
        threshold = float(body.get("threshold", 0.0))
        with_documents = bool((body.get("include") or {}).get("documents"))
        with self.lock:
            docs = [d for d in self.store.documents.get(ns, []) if d.status_reads > 1]
        if docs:
            vectors = self.embedder.embed([d.content for d in docs])
            similarity = np.clip(vectors @ self.embedder.embed([body["query"]])[0], 0.0, 1.0)
        ranked = (
            sorted(((float(similarity[i]), i) for i in range(len(docs))), key=lambda pair: (-pair[0], pair[1]))
            if docs
            else []
        )
        results = []
        for score, i in ranked:
            if score < threshold or len(results) >= limit:
                continue
            doc = docs[i]
            text_field = {"chunk": doc.content} if mode == "chunks" else {"memory": doc.content}
            results.append(
                {
                    "id": ("chunk-" if mode == "chunks" else "mem-") + doc.id,
                    **text_field,
                    "metadata": {},
                    "similarity": score,
                    "isLatest": True,
                    "isInference": False,
                    "system": {"createdAt": doc.created, "updatedAt": doc.created},
                    **({"included": {"document": _included(doc)}} if with_documents else {}),
                }
            )
        return 200, _checked(SearchResponse, {"results": results, "searchTime": 1.0})

    def list(self, ns: str, kind: str, query: dict[str, list[str]]) -> tuple[int, Any]:
        page = int(query.get("page", ["1"])[0])
        limit = int(query.get("limit", ["50"])[0])
        with self.lock:
            docs = [d for d in self.store.documents.get(ns, []) if d.status_reads > 1]
        window = docs[(page - 1) * limit : page * limit]
        memories = [
            {
                "id": "mem-" + d.id,
                "memory": d.content,
                "metadata": {},
                "isStatic": False,
                "isInference": False,
                "isLatest": True,
                "isForgotten": False,
                "version": 1,
                "system": {"createdAt": d.created, "updatedAt": d.created},
            }
            for d in window
        ]
        chunks = [
            {
                "id": "chunk-" + d.id,
                "position": 0,
                "content": d.content,
                "type": "text",
                "metadata": {},
                "system": {"createdAt": d.created},
                "documentId": d.id,
            }
            for d in window
        ]
        wire = {
            "documents": [],
            "chunks": chunks if kind == "chunks" else [],
            "memories": memories if kind == "memories" else [],
            "pagination": {
                "currentPage": page,
                "limit": limit,
                "totalItems": len(docs),
                "totalPages": max(1, -(-len(docs) // limit)),
            },
        }
        return 200, _checked(ListResponse, wire)

    def delete_namespace(self, ns: str) -> tuple[int, Any]:
        with self.lock:
            docs = self.store.documents.pop(ns, None)
        if docs is None:
            return 404, _error(f"no namespace {ns}")
        wire = {
            "status": "deleted",
            "namespace": ns,
            "deletedDocumentsCount": len(docs),
            "deletedMemoriesCount": len(docs),
        }
        return 200, _checked(NamespaceDeleted_Deleted, wire)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type, owner: SupermemoryServer) -> None:
        self.owner = owner
        super().__init__(address, handler)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._route("GET")

    def do_POST(self) -> None:
        self._route("POST")

    def do_DELETE(self) -> None:
        self._route("DELETE")

    def _route(self, method: str) -> None:
        owner = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else {}
        url = urlsplit(self.path)
        with owner.lock:
            owner.requests.append((method, url.path, body))
        if self.headers.get("Authorization") != f"Bearer {owner.api_key}":
            self._send(401, _error("unauthorized"))
            return
        match = _ROUTE.match(url.path)
        if match is None:
            self._send(404, _error(f"no route {url.path}"))
            return
        ns, rest = unquote(match["ns"]), match["rest"] or ""
        status, payload = self._dispatch(owner, method, ns, rest, body, parse_qs(url.query))
        self._send(status, payload)

    def _dispatch(
        self, owner: SupermemoryServer, method: str, ns: str, rest: str, body: Any, query: dict[str, list[str]]
    ) -> tuple[int, Any]:
        fields = {"/document": ADD_FIELDS, "/search": SEARCH_FIELDS}.get(
            rest, LIST_FIELDS if rest.startswith("/list/") else set()
        )
        unknown = set(body) - fields if isinstance(body, dict) else set()
        if method == "POST" and unknown:
            return 400, _error(f"unknown fields {sorted(unknown)}")
        if method == "POST" and rest == "/document":
            return owner.add(ns, body)
        if method == "GET" and rest.startswith("/document/"):
            return owner.get_document(ns, unquote(rest.removeprefix("/document/")))
        if method == "POST" and rest == "/search":
            return owner.search(ns, body)
        if method == "POST" and rest in ("/list/memories", "/list/chunks", "/list/documents"):
            return owner.list(ns, rest.removeprefix("/list/"), query)
        if method == "DELETE" and rest == "":
            return owner.delete_namespace(ns)
        return 404, _error(f"no route {method} /ns/{ns}{rest}")

    def _send(self, status: int, payload: Any) -> None:
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


def _checked(model: Any, wire: dict[str, Any]) -> Any:
    """The wire form, after the client's own model has accepted it (raises when it does not)."""
    return model.model_validate(wire).model_dump(mode="json", by_alias=True, exclude_none=True)


def _included(doc: _Document) -> dict[str, Any]:
    """A search result's source document, as `include: {"documents": true}` adds it."""
    return {"id": doc.id, "metadata": doc.metadata, "system": {"createdAt": doc.created, "updatedAt": doc.created}}


def _error(message: str) -> dict[str, Any]:
    return {"error": message}


def _now() -> str:
    return datetime.now(UTC).isoformat()
