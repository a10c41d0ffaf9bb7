"""The core install needs neither torch nor chromadb: loading the plugin imports neither (nor
openai, seconds to import in every pytest process and xdist worker, most calling no LLM),
and a run that needs an extra which is missing is one usage error naming the extra."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from harness import make_settings

from pytest_memeval.config import extras
from pytest_memeval.config.settings import Settings
from pytest_memeval.errors import ConfigError

HEAVY = ("torch", "chromadb", "sentence_transformers", "transformers", "mem0", "openai")


def settings(*systems: str, embedder: str = "minilm") -> Settings:
    return make_settings(*systems, embedder=embedder)


@pytest.mark.slow
def test_loading_the_plugin_and_collecting_imports_no_heavy_package(tmp_path: Path) -> None:
    code = (
        "import sys, pytest\n"
        "code = pytest.main(['--collect-only', '-q', '--memsystem=context', '--memeval-suite=multisource',"
        " '-p', 'no:cacheprovider'])\n"
        f"print('LOADED', sorted(m for m in {HEAVY!r} if m in sys.modules), int(code))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
    )
    last = run.stdout.strip().splitlines()[-1]
    assert last == "LOADED [] 0", run.stdout[-2000:] + run.stderr[-2000:]


def test_a_missing_extra_is_one_usage_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extras, "find_spec", lambda name: None)
    with pytest.raises(
        ConfigError, match=r"^--memsystem=chroma needs the 'chroma' extra: pip install 'pytest-memeval\[chroma\]'$"
    ):
        extras.check_extras(settings("context", "chroma"))
    extras.check_extras(settings("context", "none", "mypkg.mem:Mine"))  # the core install is enough


@pytest.mark.parametrize("system", ["chroma", "memos"])
def test_the_default_embedder_without_the_local_extra_says_what_to_do(
    monkeypatch: pytest.MonkeyPatch, system: str
) -> None:
    monkeypatch.setattr(extras, "find_spec", lambda name: None if name in extras.LOCAL_MODULES else object())
    with pytest.raises(ConfigError) as raised:
        extras.check_extras(settings(system))
    message = str(raised.value)
    assert message.startswith(f"--memsystem={system} embeds with minilm")
    assert "pip install 'pytest-memeval[local]' --extra-index-url https://download.pytorch.org/whl/cpu" in message
    assert message.endswith("or pass --memeval-embedder=hashing") and "\n" not in message
    extras.check_extras(replace(settings(system), embedder="hashing"))


@pytest.mark.slow
def test_the_usage_error_reaches_the_command_line(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extras, "find_spec", lambda name: None)
    result = pytester.runpytest("--memsystem=chroma", "--memeval-suite=multisource")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: --memsystem=chroma needs the 'chroma' extra: pip install 'pytest-memeval[chroma]'"]
    )
