"""Running the conformance kit (pytest --pyargs pytest_memeval.testing) from the plugin's tests."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

TESTS_DIR = Path(__file__).resolve().parent
REPO_DIR = TESTS_DIR.parent
KIT = ("--pyargs", "pytest_memeval.testing", "-p", "no:cacheprovider", "-rfEs")
EXAMPLE_DIR = REPO_DIR / "examples" / "sqlite_fts"


def prepare(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.Pytester:
    """An empty project with tests/ and the example adapter importable and a private cache."""
    paths = [str(TESTS_DIR), str(EXAMPLE_DIR), os.environ.get("PYTHONPATH", "")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths))
    monkeypatch.setenv("MEMEVAL_CACHE_DIR", str(tmp_path / "memeval-cache"))
    create_embedding_cache(tmp_path / "memeval-cache")
    return pytester


def create_embedding_cache(cache_dir: Path) -> None:
    """Create the embedding cache before xdist workers open it.

    Workaround: two processes opening a fresh cache at once can fail with "database is
    locked" on `PRAGMA journal_mode=WAL` (CachedEmbedder does not retry it); these tests
    are about adapters, not about that race.
    """
    from pytest_memeval.memory.embedders import HashingEmbedder
    from pytest_memeval.memory.embedding_cache import CachedEmbedder

    CachedEmbedder(HashingEmbedder(), cache_dir / "embeddings.sqlite").close()


def run(pytester: pytest.Pytester, *args: str, timeout: float = 600) -> pytest.RunResult:
    return pytester.runpytest_subprocess(*KIT, *args, timeout=timeout)


def failed_tests(result: pytest.RunResult) -> set[str]:
    """Names of failed kit tests, without parameters: {'test_retrieve_honours_k', ...}."""
    return set(re.findall(r"^FAILED \S*::(test_\w+)", result.stdout.str(), re.MULTILINE))


def llm_adapter_config(tmp_path: Path, system: str, base_url: str, model: str, **extra: object) -> Path:
    """A --memeval-adapter-config file giving `system` an OpenAI-compatible LLM (and `extra` settings)."""
    lines = [f'llm_base_url = "{base_url}"', f'llm_model = "{model}"'] + [
        f"{k} = {json.dumps(v)}" for k, v in extra.items()
    ]
    config = tmp_path / f"{system}.toml"
    config.write_text(f"[{system}]\n" + "\n".join(lines) + "\n")
    return config
