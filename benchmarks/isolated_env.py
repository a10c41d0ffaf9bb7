"""What the benchmarks that run pytest share: the machine's line, and an environment of
warm caches of its own (the suites' caches and Python's bytecode under `root`, also when
$PYTHONDONTWRITEBYTECODE is set; benchmarks/ on the path for their `-p` plugins)."""

from __future__ import annotations

import os
import platform
from pathlib import Path


def machine_line() -> str:
    return f"{platform.node()}: {os.cpu_count()} cores, Python {platform.python_version()}, load {os.getloadavg()}"


def isolated_env(root: Path) -> dict[str, str]:
    env = dict(
        os.environ,
        MEMEVAL_CACHE_DIR=str(root / "cache"),
        PYTHONPYCACHEPREFIX=str(root / "pycache"),
        PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parent), os.environ.get("PYTHONPATH", "")]),
    )
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env
