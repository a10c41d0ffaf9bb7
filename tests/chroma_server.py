"""A real chroma server (`chroma run`, shipped with chromadb) on 127.0.0.1, for tests.

    with ChromaServer(tmp_path / "chroma") as server:
        client = chromadb.HttpClient(host=server.host, port=server.port)

Start-up waits are bounded; the server is always stopped (terminate, then kill).
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from pytest_memeval.child_processes import wait_until_answers

STARTUP_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 10.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def chroma_executable() -> Path:
    return Path(sys.executable).parent / "chroma"


class ChromaServer:
    host = "127.0.0.1"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.port = 0
        self.log_path = path.parent / f"{path.name}-server.log"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> ChromaServer:
        self.path.mkdir(parents=True, exist_ok=True)
        # A port picked free can be taken before the server binds it: try a few.
        for _ in range(3):
            self.port = free_port()
            with open(self.log_path, "ab") as log:
                self._process = subprocess.Popen(
                    [
                        str(chroma_executable()),
                        "run",
                        "--path",
                        str(self.path),
                        "--host",
                        self.host,
                        "--port",
                        str(self.port),
                    ],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                )
            if self._wait_until_up():
                return self
            self.stop()
        raise RuntimeError(f"chroma server did not start; log:\n{self.log()[-3000:]}")

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGCONT)  # a paused server cannot act on SIGTERM
        process.terminate()
        try:
            process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=STOP_TIMEOUT_S)

    def pause(self) -> None:
        """Freeze the server (SIGSTOP): connections stay open, nothing answers."""
        assert self._process is not None
        self._process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self._process is not None
        self._process.send_signal(signal.SIGCONT)

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def __enter__(self) -> ChromaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _wait_until_up(self) -> bool:
        url = f"http://{self.host}:{self.port}/api/v2/heartbeat"
        return wait_until_answers(url, time.monotonic() + STARTUP_TIMEOUT_S, lambda: self.running, 0.1)
