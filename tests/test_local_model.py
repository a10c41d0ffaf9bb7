"""The local model server: names and paths, one-line errors, and its lifetime (started once
per run on the controller, shared by xdist workers, stopped however the run ends)."""

from __future__ import annotations

import json
import re
import socket
import time
import urllib.request
from pathlib import Path

import pytest
from live import SMOLLM

from pytest_memeval.config.model_specs import ModelSpec, parse_specs
from pytest_memeval.errors import ConfigError
from pytest_memeval.llm import local_model
from pytest_memeval.llm.local_model import LocalServer

HEADER = re.compile(r"memeval: local model server (\S+) at (http://127\.0\.0\.1:\d+/v1) \(n_ctx (\d+), pid (\d+)\)")
needs_extra = pytest.mark.skipif(
    not __import__("importlib.util").util.find_spec("llama_cpp"),
    reason='the [llm-local] extra is not installed (pip install "pytest-memeval[llm-local]")',
)


def test_model_names_paths_and_aliases(tmp_path: Path) -> None:
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF")
    specs = parse_specs("--m", f"smollm2-135m, {gguf}, mine={gguf}")
    assert specs == (
        ModelSpec("smollm2-135m", "smollm2-135m"),
        ModelSpec("tiny", str(gguf)),
        ModelSpec("mine", str(gguf)),
    )
    for raw, message in (
        ("llama-7b", "neither a known model"),
        ("smollm2-135m,,gemma3-270m", "empty model name"),
        (f"{gguf},{gguf}", "must be distinct"),
        ("=x", "not NAME, PATH or ALIAS=PATH"),
    ):
        with pytest.raises(ConfigError, match=message):
            parse_specs("--m", raw)


def test_the_tool_calling_smollm2_is_the_same_gguf_served_with_function_calling(tmp_path: Path) -> None:
    (plain, tools) = parse_specs("--m", "smollm2-135m,smollm2-135m-tools")
    assert tools.alias == "smollm2-135m-tools"
    assert tools.known is not None and plain.known is not None
    assert (tools.known.package, tools.known.file) == (plain.known.package, plain.known.file)
    assert (plain.known.chat_format, tools.known.chat_format) == (None, "chatml-function-calling")


@pytest.mark.slow
def test_a_missing_extra_is_one_line_naming_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(local_model.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ConfigError) as info:
        LocalServer(parse_specs("--m", "smollm2-135m"), cache_dir=tmp_path).start()
    assert str(info.value) == local_model.EXTRA and "pip install" in str(info.value)


@pytest.mark.slow
def test_usage_errors_of_the_local_model_options(suite_pytester: pytest.Pytester) -> None:
    cases = {
        (
            "--memeval-timeout=inf",
            "--memeval-responder=openai:m",
        ): "--memeval-timeout: must be a positive finite number",
        ("--memeval-timeout-per-1k-tokens=-1", "--memeval-responder=openai:m"): "must be at least 0",
        ("--memeval-local-model=smollm2-135m",): "no LLM uses it",
        ("--memeval-local-model=smollm2-135m", "--memeval-responder=openai:gpt-x"): "'gpt-x' is not served",
        (
            "--memeval-local-model=smollm2-135m",
            "--memeval-responder=openai:smollm2-135m",
            "--memeval-base-url=http://x/v1",
        ): "drop --memeval-base-url",
        ("--memeval-local-model=nope.gguf", "--memeval-responder=openai:nope"): "neither a known model",
        ("--memeval-structured=xml", "--memeval-responder=openai:m"): "--memeval-structured: 'xml' is not one of",
        ("--memeval-context-window=0", "--memeval-responder=openai:m"): "--memeval-context-window: must be at least 1",
    }
    for args, message in cases.items():
        result = suite_pytester.runpytest("--memsystem=none", "--memeval-suite=multisource", "--collect-only", *args)
        assert result.ret == pytest.ExitCode.USAGE_ERROR, args
        errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
        assert len(errors) == 1 and message in errors[0], (args, result.stderr.lines)


@pytest.mark.slow
@needs_extra
def test_a_busy_port_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(ConfigError, match=f"port {port} on 127.0.0.1 is busy"):
            LocalServer(parse_specs("--m", "smollm2-135m"), cache_dir=tmp_path, port=port).start()


def _gone(pid: int, within_s: float = 15.0) -> bool:
    """Whether `pid` exited (a zombie left to an init that does not reap counts as exited)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:  # bounded
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return True
        except (OSError, IndexError):
            return True
        time.sleep(0.2)
    return False


@needs_extra
@pytest.mark.slow
@pytest.mark.live_model
@pytest.mark.xdist_group("live_model")
def test_the_launcher_serves_until_stopped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seen: dict[str, object] = {}

    def probe() -> None:  # runs while main() serves
        served = re.search(r"at (\S+) \(n_ctx \d+, pid (\d+)\)", capsys.readouterr().out)
        assert served is not None
        with urllib.request.urlopen(f"{served.group(1)}/models", timeout=10) as response:
            seen["models"] = [m["id"] for m in json.load(response)["data"]]
        seen["pid"] = int(served.group(2))

    assert local_model.main([SMOLLM, "--cache-dir", str(tmp_path)], wait=probe) == 0
    assert seen["models"] == [SMOLLM]
    assert _gone(int(seen["pid"]))  # type: ignore[call-overload]
    assert local_model.main(["nope"]) == 4


@pytest.mark.slow
@needs_extra
@pytest.mark.live_model
@pytest.mark.xdist_group("live_model")
def test_one_server_per_run_shared_by_workers_and_stopped_after(suite_pytester: pytest.Pytester) -> None:
    report = suite_pytester.path / "report.json"
    result = suite_pytester.runpytest_subprocess(
        "--memsystem=none",
        "--memeval-suite=multisource",
        f"--memeval-local-model={SMOLLM}",
        f"--memeval-responder=openai:{SMOLLM}",
        "--memeval-max-tokens=48",
        f"--memeval-report={report}",
        "-n",
        "2",
        "-p",
        "no:cacheprovider",
        "-k",
        "stable_121-A1 or stable_122-A1",
        timeout=600,
    )
    header = HEADER.search(result.stdout.str())
    assert header is not None, result.stdout.str()[-2000:]
    assert header.group(1) == SMOLLM and header.group(3) == "8192"
    records = json.loads(report.read_text())["records"]
    assert len(records) == 2 and all(r["status"] == "scored" for r in records)
    # both workers answered through the controller's one server (its address, not their own)
    assert len({r["context"] for r in records}) == 2
    assert _gone(int(header.group(4)))


@pytest.mark.slow
@needs_extra
@pytest.mark.live_model
@pytest.mark.xdist_group("live_model")
def test_the_server_is_stopped_when_the_run_is_interrupted(suite_pytester: pytest.Pytester) -> None:
    suite_pytester.makepyfile(test_interrupt="def test_interrupted():\n    raise KeyboardInterrupt\n")
    result = suite_pytester.runpytest_subprocess(
        "--memsystem=none",
        f"--memeval-local-model={SMOLLM}",
        f"--memeval-responder=openai:{SMOLLM}",
        "-p",
        "no:cacheprovider",
        "test_interrupt.py",
        timeout=300,
    )
    assert result.ret == pytest.ExitCode.INTERRUPTED
    header = HEADER.search(result.stdout.str())
    assert header is not None, result.stdout.str()[-2000:]
    assert _gone(int(header.group(4)))
