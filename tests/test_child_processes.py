"""A server the plugin starts dies with the process that started it, even on SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

PARENT = """
import subprocess, sys, time
from pytest_memeval.child_processes import {preexec}
child = subprocess.Popen([sys.executable, "-c", {child!r}], preexec_fn={preexec}, start_new_session=True)
print(child.pid, flush=True)
time.sleep(60)
"""
SLEEPS = "import time; time.sleep(60)"
#: a server whose graceful shutdown waits for the generation in flight (uvicorn): SIGTERM does not stop it
IGNORES_SIGTERM = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
@pytest.mark.parametrize("preexec, child", [("die_with_parent", SLEEPS), ("killed_with_parent", IGNORES_SIGTERM)])
def test_a_child_dies_when_its_parent_is_killed(tmp_path: Path, preexec: str, child: str) -> None:
    code = PARENT.format(preexec=preexec, child=child)
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        child_pid = int(parent.stdout.readline())  # type: ignore[union-attr]
        os.kill(child_pid, 0)  # alive
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.kill(child_pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)
        os.kill(child_pid, signal.SIGKILL)
        pytest.fail("the child outlived its killed parent")
    finally:
        parent.kill()
