"""A Letta server of our own on 127.0.0.1, with SQLite storage in a fresh directory.

    with LettaServer("letta-venv/bin/letta", home=tmp / "letta") as server:
        server.base_url          # http://127.0.0.1:PORT

The server is Letta's own (`letta server`), installed in an environment of its own:
Letta's dependencies (openai 1.x/2.x, pydantic < 2.12, pinned fastapi) do not fit beside
the plugin's. Letta 0.11.7 is the last release that stores in SQLite (from 0.12 on it
needs Postgres with pgvector):

    python -m venv letta-venv
    letta-venv/bin/pip install "letta[sqlite,server]==0.11.7" asyncpg

Start-up is bounded; the process group is always stopped (terminate, then kill). Nothing
of the server is sent anywhere: Sentry and tracing stay off (their variables are removed
from its environment) and it keeps its data under `home`.
"""

from __future__ import annotations

import os
import shutil
import socket
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Self

from ..child_processes import die_with_parent, last_log_line, stop_process_group, wait_until_answers
from ..errors import ConfigError

STOP_TIMEOUT_S = 15.0
#: environment variables that would send data out of the machine or leave SQLite
_DROPPED = (
    "SENTRY_DSN",
    "LETTA_OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "LETTA_PG_URI",
    "LETTA_PG_DB",
    "LETTA_PG_USER",
    "LETTA_PG_PASSWORD",
    "LETTA_PG_HOST",
    "LETTA_PG_PORT",
)

# Letta 0.11.7 declares archives_agents.created_at with the *string* default 'now()', which
# SQLite stores verbatim and then cannot read back as a date: every archival insert fails
# with HTTP 400 "Invalid isoformat string: 'now()'". Creating that one table first, with a
# real timestamp default, avoids it; Letta creates the other tables around it.
_ARCHIVES_AGENTS = """
CREATE TABLE IF NOT EXISTS archives_agents (
    agent_id VARCHAR NOT NULL,
    archive_id VARCHAR NOT NULL,
    created_at DATETIME DEFAULT CURRENT_TIMESTAMP NOT NULL,
    is_owner BOOLEAN NOT NULL,
    PRIMARY KEY (agent_id, archive_id),
    CONSTRAINT unique_agent_archive UNIQUE (agent_id),
    FOREIGN KEY(agent_id) REFERENCES agents (id) ON DELETE CASCADE,
    FOREIGN KEY(archive_id) REFERENCES archives (id) ON DELETE CASCADE
)
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def find_command(command: str) -> str:
    """The server executable, or a ConfigError saying how to install one."""
    found = shutil.which(command)
    if found is None:
        raise ConfigError(
            f"letta: cannot start a Letta server: {command!r} is not an executable; install the server in an "
            "environment of its own (python -m venv letta-venv && letta-venv/bin/pip install "
            "'letta[sqlite,server]==0.11.7' asyncpg), then set server_command = 'letta-venv/bin/letta', "
            "or set base_url to a running server"
        )
    return os.path.abspath(found)  # the server runs in its home directory: a relative path would miss


class LettaServer:
    host = "127.0.0.1"

    def __init__(
        self, command: str, home: Path, startup_timeout_s: float = 180.0, env: dict[str, str] | None = None
    ) -> None:
        self.command = find_command(command)
        self.extra_env = dict(env or {})
        self.home = Path(home)
        self.startup_timeout_s = startup_timeout_s
        self.port = 0
        self.log_path = self.home / "server.log"
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> Self:
        prepare_home(self.home)
        deadline = time.monotonic() + self.startup_timeout_s
        # A port picked free can be taken before the server binds it: try again while time is left.
        while True:
            self.port = free_port()
            self._spawn()
            if self._wait_until_up(deadline):
                return self
            self.stop()
            if time.monotonic() >= deadline or "address already in use" not in self.log().lower():
                break
        raise ConfigError(
            f"letta: the Letta server ({self.command}) did not answer on {self.host}:{self.port} within "
            f"{self.startup_timeout_s:.0f} s: {self.last_log_line()} (log: {self.log_path})"
        )

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            stop_process_group(process, STOP_TIMEOUT_S)

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def last_log_line(self) -> str:
        return last_log_line(self.log_path)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _spawn(self) -> None:
        env = {name: value for name, value in os.environ.items() if name not in _DROPPED}
        env.update(self.extra_env)
        env.update(HOME=str(self.home), LETTA_TELEMETRY_PROFILER="false")  # Letta keeps ~/.letta
        with open(self.log_path, "ab") as log:
            self._process = subprocess.Popen(
                [self.command, "server", "--host", self.host, "--port", str(self.port)],
                cwd=self.home,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # its own process group, stopped as a whole
                preexec_fn=die_with_parent,  # and stopped by the kernel if this process is killed
            )

    def _wait_until_up(self, deadline: float) -> bool:
        return wait_until_answers(f"{self.base_url}/v1/health/", deadline, lambda: self.running)


def prepare_home(home: Path) -> None:
    """A fresh Letta home whose SQLite database can hold archival memory (see above)."""
    database = home / ".letta" / "sqlite.db"
    database.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(database) as connection:
        connection.execute(_ARCHIVES_AGENTS)
    connection.close()
