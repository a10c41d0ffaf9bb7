"""The README is a front page that keeps its promises: short, its links alive, and its
adapter a working one (with its imports, found the way it says)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_a_front_page() -> None:
    assert len(README.splitlines()) < 200


def test_every_relative_link_of_the_readme_names_a_file() -> None:
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    local = [link for link in links if "://" not in link]
    assert local and [link for link in local if not (REPO / link).exists()] == []


@pytest.mark.slow
def test_the_readme_adapter_passes_the_conformance_kit_as_the_readme_runs_it(tmp_path: Path) -> None:
    (adapter,) = re.findall(r"```python\n(# mymem\.py\n.*?)```", README, re.DOTALL)
    assert "from pytest_memeval import Memory, Message" in adapter
    (tmp_path / "mymem.py").write_text(adapter, encoding="utf-8")
    (command,) = [line.strip() for line in README.splitlines() if "--pyargs pytest_memeval.testing" in line]
    assert command == "PYTHONPATH=. pytest --pyargs pytest_memeval.testing --memsystem=mymem:KeywordMemory"
    env = dict(os.environ, PYTHONPATH=".", MEMEVAL_CACHE_DIR=str(tmp_path / "cache"))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", *command.split()[2:], "-p", "no:cacheprovider", "-q"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert " passed" in run.stdout.splitlines()[-1] and "failed" not in run.stdout.splitlines()[-1]
