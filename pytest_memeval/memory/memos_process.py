"""The MemOS process of one `memos` adapter: memos_shim.py under MemOS's own Python.

    process = MemosProcess(".memos-venv/bin/python", config, log_path).start()
    process.call({"op": "retrieve", ...}, timeout_s=120)     # the shim's result
    process.stop()

Requests and answers are JSON lines over the child's stdin and stdout; every wait (start-up,
each write and each answer) has a deadline. A call past its deadline stops the process, as
does a process that exits mid-call: the call fails in one line, and the adapter starts a
new process on its next call (MemOS's embedded Qdrant keeps what was stored on disk).
The child runs in a process group of its own, stopped as a whole, and dies with its parent.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from pathlib import Path
from typing import Any, Self

from ..child_processes import die_with_parent, last_log_line, stop_process_group
from ..errors import AdapterError, ConfigError

SHIM = Path(__file__).with_name("memos_shim.py")
STOP_TIMEOUT_S = 10.0
_READ_BYTES = 1 << 16
#: environment variables through which MemOS would send logs or fetch its configuration elsewhere
_DROPPED_PREFIXES = ("CUSTOM_LOGGER_", "NACOS_")


class _Gone(Exception):
    """The process closed its end of a pipe."""


class MemosProcess:
    def __init__(
        self,
        python: str,
        config: dict[str, Any],
        log_path: Path,
        startup_timeout_s: float = 180.0,
        env: dict[str, str] | None = None,
    ) -> None:
        self.python = python
        self.config = config
        self.log_path = Path(log_path)
        self.startup_timeout_s = startup_timeout_s
        self.extra_env = dict(env or {})
        #: MemoryOS's version, as the process reports it once started
        self.version: str | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._buffer = b""

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> Self:
        """Start the shim and wait for its ready line; a ConfigError in one line when it does not come."""
        try:
            self._spawn()
        except OSError as exc:
            raise ConfigError(f"memos: cannot run MemOS's Python {self.python}: {exc}") from None
        deadline = time.monotonic() + self.startup_timeout_s
        try:
            hello = self._read(deadline)
        except TimeoutError:
            self.stop()
            raise ConfigError(
                f"memos: MemOS ({self.python}) did not start within {self.startup_timeout_s:g} s: "
                f"{last_log_line(self.log_path)} (log: {self.log_path})"
            ) from None
        except _Gone:
            self.stop()
            raise ConfigError(
                f"memos: MemOS ({self.python}) exited at start-up: {last_log_line(self.log_path)} (log: {self.log_path})"
            ) from None
        if not hello.get("ready"):
            self.stop()
            raise ConfigError(f"memos: MemOS ({self.python}) could not start: {hello.get('error', hello)}")
        self.version = str(hello.get("version"))
        return self

    def call(self, request: dict[str, Any], timeout_s: float) -> Any:
        """Send one request and return the shim's result; AdapterError (one line) otherwise."""
        op = request.get("op")
        if not self.running:
            raise AdapterError(f"memos: the MemOS process is not running ({op})")
        deadline = time.monotonic() + timeout_s
        try:
            self._write((json.dumps(request, ensure_ascii=True) + "\n").encode(), deadline)
            answer = self._read(deadline)
        except TimeoutError:
            self.stop(graceful=False)  # it is busy with the call: waiting for it is what timed out
            raise AdapterError(
                f"memos: {op} did not answer within {timeout_s:g} s; the MemOS process was stopped "
                "(the next call starts it again, with what it had stored)"
            ) from None
        except _Gone:
            status = self._process.wait(timeout=STOP_TIMEOUT_S) if self._process is not None else None
            self.stop()
            raise AdapterError(
                f"memos: the MemOS process exited during {op} (status {status}): {last_log_line(self.log_path)} "
                f"(log: {self.log_path})"
            ) from None
        if not answer.get("ok"):
            raise AdapterError(f"memos: {op} failed: {answer.get('error', answer)}")
        return answer.get("result")

    def stop(self, graceful: bool = True) -> None:
        """Ask the shim to close its stores and exit (`graceful`), else end its process group."""
        process, self._process = self._process, None
        self._buffer = b""
        if process is None:
            return
        if process.poll() is None and not (graceful and _closed_on_request(process)):
            stop_process_group(process, STOP_TIMEOUT_S)
        for pipe in (process.stdin, process.stdout):
            if pipe is not None and not pipe.closed:
                pipe.close()

    # -- helpers ------------------------------------------------------------------------------
    def _spawn(self) -> None:
        env = {name: value for name, value in os.environ.items() if not name.startswith(_DROPPED_PREFIXES)}
        env.update(self.extra_env)
        workdir = Path(self.config["path"])
        workdir.mkdir(parents=True, exist_ok=True)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        env["MEMOS_BASE_PATH"] = str(workdir)  # MemOS keeps its own log files under $MEMOS_BASE_PATH/.memos
        with open(self.log_path, "ab") as log:
            self._process = subprocess.Popen(
                # -I: neither the shim's own directory (which holds the adapter's memos.py) nor
                # $PYTHONPATH comes before MemOS's environment on sys.path
                [self.python, "-I", str(SHIM), json.dumps(self.config)],
                cwd=workdir,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                bufsize=0,
                start_new_session=True,  # its own process group, stopped as a whole
                preexec_fn=die_with_parent,  # and stopped by the kernel if this process is killed
            )
        assert self._process.stdin is not None
        os.set_blocking(self._process.stdin.fileno(), False)
        self._buffer = b""

    def _write(self, data: bytes, deadline: float) -> None:
        assert self._process is not None and self._process.stdin is not None
        fd = self._process.stdin.fileno()
        while data:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            if not select.select([], [fd], [], remaining)[1]:
                continue
            try:
                data = data[os.write(fd, data) :]
            except BlockingIOError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                raise _Gone from None

    def _read(self, deadline: float) -> dict[str, Any]:
        assert self._process is not None and self._process.stdout is not None
        fd = self._process.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            if not select.select([fd], [], [], remaining)[0]:
                continue
            chunk = os.read(fd, _READ_BYTES)
            if not chunk:
                raise _Gone
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            answer = json.loads(line)
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            raise AdapterError(f"memos: the MemOS process wrote {line[:200]!r}, not a JSON object")
        return answer


def _closed_on_request(process: subprocess.Popen[bytes]) -> bool:
    """Whether the shim closed its Qdrant stores and exited when asked, within STOP_TIMEOUT_S."""
    try:
        assert process.stdin is not None
        process.stdin.write(b'{"op": "close"}\n')
        process.stdin.close()
        process.wait(timeout=STOP_TIMEOUT_S)
        return True
    except (OSError, subprocess.TimeoutExpired):
        return False
