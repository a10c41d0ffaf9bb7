"""The benchmark scripts still run against the plugin's current interfaces (they are not
imported by anything else, so nothing else would notice when one falls behind)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def test_bench_adapters_builds_systems_as_a_run_does_and_reports_each(tmp_path: Path) -> None:
    out = tmp_path / "adapters.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_adapters.py"), "--memsystem", "context,chroma",
         "--sessions", "2", "--queries", "2", "--embedder", "hashing", "--json", str(out)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(out.read_text())
    assert [r["memsystem"] for r in results] == ["context", "chroma"]
    for result in results:
        assert result["ingest_per_session"]["n"] == 2 and result["retrieve_per_query"]["n"] == 2
        assert result["memories_stored"] and result["messages_per_session"] == 4
