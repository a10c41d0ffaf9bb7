"""MemOS's textual memory behind JSON lines on stdin/stdout, for the `memos` adapter.

This file is not imported by the plugin: the adapter runs it with the Python of MemOS's
own environment (MemoryOS pins openai 1.x, transformers 4.x and an old fastapi, which do
not fit beside the plugin), so it uses nothing but the standard library and MemOS:

    .memos-venv/bin/python memos_shim.py '{"path": ..., "llm": {...}, "embedder": {...}}'

It runs MemOS's own code unchanged. Each namespace is one MemOS MemCube (a
`GeneralMemCube` whose textual memory is `GeneralTextMemory` on embedded Qdrant, in a
directory of its own); its user and cube id are the namespace's hashed name, chosen by the
adapter. Ingest with `extract` asks MemOS's extractor LLM for its "memory list" JSON
(`GeneralTextMemory.extract`) and adds what it returns; without it every message is stored
as one memory, as MemOS's `MOS.add` stores messages in a `general_text` cube. Search is
`GeneralTextMemory.search` (the run's embedder, served over loopback by the adapter).
A memory keeps the ids of the messages it was made from in its metadata's `info` (MemOS's
free key-value field, stored with it): its own message's without extraction, every message
of its session's with (MemOS's extractor does not say which message a memory came from).

Protocol: one JSON object per line each way. After start-up the shim writes
`{"ready": true, "version": ...}` (or `{"ready": false, "error": ...}` and exits); then
for each request `{"op": ..., ...}` it answers `{"ok": true, "result": ...}` or
`{"ok": false, "error": "<one line>"}`. The API key is read from $OPENAI_API_KEY, never
from the command line. MemOS logs to stdout: the protocol keeps a private copy of the
stdout descriptor and everything else written to stdout goes to stderr (the adapter's log).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from collections import OrderedDict
from pathlib import Path
from typing import Any

#: cubes kept open at once (each holds a Qdrant client); a closed cube reopens from disk
MAX_OPEN_CUBES = 32
#: how much of an unreadable extraction answer an error line quotes
QUOTED_CHARS = 160
COLLECTION = "memories"
#: the cube names the adapter makes (hashed namespaces): safe as directory names
SAFE_NAME = re.compile(r"[A-Za-z0-9_-]{1,100}")
#: the key of a memory's metadata `info` that holds the ids of its source messages
SOURCES_KEY = "memeval_sources"


def describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


class ExtractionError(Exception):
    """MemOS's extractor LLM answered, but not with the JSON MemOS reads."""


class Cubes:
    """The MemCubes of one adapter, one per namespace, under `path`."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.path = Path(config["path"])
        self.extract = bool(config["extract"])
        self.llm = config["llm"]
        self.embedder = config["embedder"]
        self._open: OrderedDict[str, Any] = OrderedDict()
        #: the extractor's raw answers of the current request (quoted when MemOS cannot read them)
        self._answers: list[str] = []

    # -- requests ---------------------------------------------------------------------------
    def ingest(self, namespace: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
        from memos.memories.textual.item import TextualMemoryItem

        cube = self._cube(namespace, create=True)
        text_mem = cube.text_mem
        if self.extract:
            items = self._extracted(text_mem, messages, namespace)
            session_ids = [m["id"] for m in messages if m.get("id")]
            for item in items:
                item.metadata.info = {**(item.metadata.info or {}), SOURCES_KEY: session_ids}
        else:
            items = [
                TextualMemoryItem(
                    memory=m["content"],
                    metadata={
                        "user_id": namespace,
                        "source": "conversation",
                        "info": {SOURCES_KEY: [m["id"]] if m.get("id") else []},
                    },
                )
                for m in messages
            ]
        if items:
            text_mem.add(items)
        return {"added": len(items)}

    def retrieve(self, namespace: str, query: str, k: int) -> list[dict[str, Any]]:
        cube = self._cube(namespace, create=False)
        if cube is None:
            return []
        return [_memory(item) for item in cube.text_mem.search(query, top_k=k)]

    def dump(self, namespace: str) -> list[dict[str, Any]]:
        cube = self._cube(namespace, create=False)
        if cube is None:
            return []
        items = sorted(cube.text_mem.get_all(), key=lambda item: (item.metadata.updated_at or "", item.id))
        return [_memory(item) for item in items]

    def reset(self, namespace: str) -> None:
        cube = self._open.pop(namespace, None)
        if cube is not None:
            _close(cube)
        shutil.rmtree(self._dir(namespace), ignore_errors=True)

    def close(self) -> None:
        while self._open:
            _close(self._open.popitem()[1])

    # -- helpers ------------------------------------------------------------------------------
    def _dir(self, namespace: str) -> Path:
        if not SAFE_NAME.fullmatch(namespace):
            raise ValueError(f"namespace {namespace[:80]!r} is not a cube name the adapter makes")
        return self.path / "cubes" / namespace

    def _cube(self, namespace: str, create: bool) -> Any:
        if namespace in self._open:
            self._open.move_to_end(namespace)
            return self._open[namespace]
        directory = self._dir(namespace)
        if not create and not directory.is_dir():
            return None
        from memos.configs.mem_cube import GeneralMemCubeConfig
        from memos.mem_cube.general import GeneralMemCube

        directory.mkdir(parents=True, exist_ok=True)
        config = GeneralMemCubeConfig(
            user_id=namespace,
            cube_id=namespace,
            text_mem={"backend": "general_text", "config": self._text_memory_config(directory)},
        )
        cube = GeneralMemCube(config)
        self._bound_llm(cube.text_mem.extractor_llm)
        self._open[namespace] = cube
        while len(self._open) > MAX_OPEN_CUBES:
            _close(self._open.popitem(last=False)[1])
        return cube

    def _text_memory_config(self, directory: Path) -> dict[str, Any]:
        llm, embedder = self.llm, self.embedder
        api_key = os.environ.get("OPENAI_API_KEY") or "not-set"
        return {
            "extractor_llm": {
                "backend": "openai",
                "config": {
                    "model_name_or_path": llm["model"],
                    "api_key": api_key,
                    "api_base": llm["base_url"],
                    "temperature": llm["temperature"],
                    "max_tokens": llm["max_tokens"],
                    "remove_think_prefix": True,
                },
            },
            "vector_db": {
                "backend": "qdrant",
                "config": {
                    "collection_name": COLLECTION,
                    "vector_dimension": embedder["dim"],
                    "distance_metric": "cosine",
                    "path": str(directory / "qdrant"),
                },
            },
            "embedder": {
                "backend": "universal_api",
                "config": {
                    "provider": "openai",
                    "api_key": "unused",
                    "base_url": embedder["base_url"],
                    "model_name_or_path": embedder["model"],
                },
            },
        }

    def _bound_llm(self, llm: Any) -> None:
        """MemOS's OpenAI client waits up to 10 minutes per call: bound it to the run's LLM
        timeout and retries, and keep each raw answer for the error line of an unreadable one."""
        llm.client = llm.client.with_options(timeout=self.llm["timeout"], max_retries=self.llm["max_retries"])
        generate, answers = llm.generate, self._answers

        def recorded(messages: Any, **kwargs: Any) -> Any:
            answer = generate(messages, **kwargs)
            answers.append(answer if isinstance(answer, str) else repr(answer))
            return answer

        llm.generate = recorded

    def _extracted(self, text_mem: Any, messages: list[dict[str, Any]], namespace: str) -> list[Any]:
        said = [
            {
                "role": m["role"],
                "content": f"[{m['timestamp']}]: {m['content']}" if m.get("timestamp") else m["content"],
            }
            for m in messages
        ]
        self._answers.clear()
        try:
            items = text_mem.extract(said)
        except Exception as exc:
            if not self._answers:  # the LLM call itself failed
                raise
            answer = self._answers[-1]
            reason = describe(exc)
            if isinstance(exc, KeyError) and exc.args == ("memory list",):
                # MemOS reads an answer that is not valid JSON (cut at max_tokens, say) as {}
                reason = 'no "memory list" in it, or not valid JSON'
            raise ExtractionError(
                f"MemOS could not read its extractor's answer as the JSON it asks for "
                f'({{"memory list": [{{"key", "value", "tags"}}]}}): {reason}; '
                f"the model wrote {answer[:QUOTED_CHARS]!r}{' [...]' if len(answer) > QUOTED_CHARS else ''}"
            ) from exc
        for item in items:
            item.metadata.user_id = namespace
        return list(items)


def _memory(item: Any) -> dict[str, Any]:
    meta = item.metadata
    metadata = {
        name: value
        for name, value in (("key", meta.key), ("tags", meta.tags), ("updated_at", meta.updated_at))
        if value is not None
    }
    sources = (meta.info or {}).get(SOURCES_KEY) or []
    return {"id": item.id, "text": item.memory, "metadata": metadata, "sources": sources}


def _close(cube: Any) -> None:
    client = getattr(cube.text_mem.vector_db, "client", None)
    if client is not None:
        client.close()


def serve(cubes: Cubes, requests: Any, send: Any) -> None:
    for line in requests:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            op = request["op"]
            if op == "close":
                cubes.close()
                send({"ok": True, "result": None})
                return
            if op == "ingest":
                result: Any = cubes.ingest(request["namespace"], request["messages"])
            elif op == "retrieve":
                result = cubes.retrieve(request["namespace"], request["query"], int(request["k"]))
            elif op == "dump":
                result = cubes.dump(request["namespace"])
            elif op == "reset":
                cubes.reset(request["namespace"])
                result = None
            else:
                raise ValueError(f"unknown op {op!r}")
        except Exception as exc:
            send({"ok": False, "error": describe(exc)})
        else:
            send({"ok": True, "result": result})
    cubes.close()


def main() -> int:
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # MemOS's console log goes to stdout: keep it out of the protocol
    sys.stdout = sys.stderr

    def send(message: dict[str, Any]) -> None:
        protocol.write(json.dumps(message, ensure_ascii=True) + "\n")
        protocol.flush()

    try:
        config = json.loads(sys.argv[1])
        Path(config["path"]).mkdir(parents=True, exist_ok=True)
        from importlib.metadata import version

        import memos.mem_cube.general  # noqa: F401  (fail here, in one line, when MemOS is missing)

        cubes = Cubes(config)
    except Exception as exc:
        send({"ready": False, "error": describe(exc)})
        return 1
    send({"ready": True, "version": version("MemoryOS")})
    serve(cubes, sys.stdin, send)
    return 0


if __name__ == "__main__":
    sys.exit(main())
