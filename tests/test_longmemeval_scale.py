"""A large file in the released format is indexed and streamed in bounded memory: the loader
never holds a whole file (longmemeval_m_cleaned.json is 2.75 GB)."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from pytest_memeval.suites.longmemeval.sample import question_objects, write_file

#: what indexing and streaming every session of the file may add to the process's peak
#: resident memory; parsing the file whole takes several times its size
BOUND_MB = 60

MEASURE = textwrap.dedent(
    """
    import json, re, sys
    from pathlib import Path
    from pytest_memeval.framework.suite import SuiteOptions
    from pytest_memeval.suites.longmemeval.catalog import Catalog
    from pytest_memeval.running.progress_tracking import resident_mb

    data, cache = Path(sys.argv[1]), Path(sys.argv[2])
    before = resident_mb()
    options = SuiteOptions(size="full", split=None, seeds=None, k=10, data_dir=data, cache_dir=cache)
    catalog = Catalog(options)
    sessions = messages = 0
    for question_id in catalog.questions:
        for session in catalog.context(question_id).sessions:
            sessions += 1
            messages += len(session)
    # this process's peak (VmHWM); ru_maxrss would include the pytest process it was forked from
    peak = int(re.search(r"VmHWM:\\s+(\\d+) kB", Path("/proc/self/status").read_text()).group(1)) / 1024
    print(json.dumps({"before": before, "peak": peak, "questions": len(catalog.questions),
                      "sessions": sessions, "messages": messages}))
    """
)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="reads the peak from Linux's /proc")
def test_indexing_and_streaming_a_large_file_keeps_memory_flat(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    path = data / "longmemeval_s_cleaned.json"
    seeds = range(1, 9)  # 8 x 16 questions of about 1.2 MB each
    write_file(
        path, itertools.chain.from_iterable(question_objects("s", s, fillers=150, filler_turns=60) for s in seeds)
    )
    size_mb = path.stat().st_size / 2**20
    assert size_mb > 120
    run = subprocess.run(
        [sys.executable, "-c", MEASURE, str(data), str(tmp_path / "cache")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    measured = json.loads(run.stdout)
    assert measured["questions"] == 8 * 16
    assert measured["sessions"] > 8 * 16 * 150 and measured["messages"] > measured["sessions"] * 50
    grown = measured["peak"] - measured["before"]
    assert grown < BOUND_MB, f"peak resident memory grew {grown:.0f} MB on a {size_mb:.0f} MB file"
