"""Helpers shared by the plugin's own tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# pytester's in-process runs restore sys.modules afterwards, and numpy's C extensions cannot
# be imported twice in one process: load what the plugin imports lazily (scipy pulls in
# numpy.fft) once here, outside every in-process run.
import scipy.stats  # noqa: F401

TESTS_DIR = Path(__file__).resolve().parent


@pytest.fixture
def toy_pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.Pytester:
    """A pytester project with the toy suite importable (also by xdist workers) and a private cache."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(TESTS_DIR), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("MEMEVAL_CACHE_DIR", str(tmp_path / "memeval-cache"))
    pytester.syspathinsert(TESTS_DIR)
    pytester.makepyfile(
        test_toy="""
        import pytest
        from pytest_memeval import check

        @pytest.mark.memeval("toysuite:ToySuite")
        def test_toy(memeval_result):
            check(memeval_result)
        """
    )
    return pytester
