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
from pytest_memeval.running.child_processes import die_with_parent
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], preexec_fn=die_with_parent,
                         start_new_session=True)
print(child.pid, flush=True)
time.sleep(60)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_child_dies_when_its_parent_is_killed(tmp_path: Path) -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
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
