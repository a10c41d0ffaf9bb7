"""Every bad option is a one-line usage error with exit status 4 and no traceback."""

from __future__ import annotations

import pytest

BAD_OPTIONS = [
    (["--memsystem=nosuch"], "--memsystem: unknown memory system 'nosuch'"),
    (["--memsystem=not a path:X"], "is not of the form pkg.module:Class"),
    (["--memsystem=nosuchmodule_xyz:Thing"], "cannot import 'nosuchmodule_xyz'"),
    (["--memsystem=json:NoSuchClass"], "'json' has no attribute 'NoSuchClass'"),
    (["--memsystem=context,context"], "--memsystem: context named twice"),
    (["--memsystem=context,"], "--memsystem: empty name"),
    (["--memsystem=context", "--memeval-suite=nosuch"], "--memeval-suite: unknown suite 'nosuch'"),
    (["--memsystem=context", "--memeval-size=huge"], "--memeval-size: 'huge' is not one of smoke, small, full"),
    (["--memsystem=context", "--memeval-split=holdout"], "--memeval-split: 'holdout' is not one of"),
    (["--memsystem=context", "--memeval-k=ten"], "--memeval-k: 'ten' is not an integer"),
    (["--memsystem=context", "--memeval-k=0"], "--memeval-k: must be at least 1, got 0"),
    (["--memsystem=context", "--memeval-seed=1,x"], "--memeval-seed: 'x' is not an integer"),
    (["--memsystem=context", "--memeval-seed=-3"], "--memeval-seed: '-3' is negative"),
    (["--memsystem=context", "--memeval-responder=gpt"], "--memeval-responder: unknown responder 'gpt'"),
    (["--memsystem=context", "--memeval-embedder=bert"], "--memeval-embedder: 'bert' is not one of minilm, hashing"),
    (["--memsystem=context", "--memeval-bootstrap=0"], "--memeval-bootstrap: must be at least 1"),
    (["--memsystem=context", "--memeval-report=/nonexistent-dir/r.json"], "directory /nonexistent-dir does not exist"),
    (
        ["--memsystem=context", "--memeval-data=/nonexistent-data"],
        "--memeval-data: /nonexistent-data is not a directory",
    ),
]


@pytest.mark.parametrize("args, message", BAD_OPTIONS, ids=[" ".join(a) for a, _ in BAD_OPTIONS])
def test_bad_option_is_a_one_line_usage_error(pytester: pytest.Pytester, args: list[str], message: str) -> None:
    pytester.makepyfile("def test_nothing(): pass")
    result = pytester.runpytest_subprocess(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.errlines if line.strip()]
    assert len(errors) == 1, result.errlines
    assert errors[0].startswith("ERROR: ") and message in errors[0]
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_report_path_that_is_a_directory(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--memsystem=context", f"--memeval-report={pytester.path}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --memeval-report: * is a directory, expected a file path"])


def test_cache_dir_that_is_a_file(pytester: pytest.Pytester) -> None:
    blocker = pytester.makefile(".txt", blocker="x")
    result = pytester.runpytest_subprocess("--memsystem=context", f"--memeval-cache-dir={blocker}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --memeval-cache-dir: * exists and is not a directory"])


def test_options_are_documented_in_help(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    for option in [
        "--memsystem",
        "--memeval-suite",
        "--memeval-size",
        "--memeval-split",
        "--memeval-seed",
        "--memeval-k",
        "--memeval-responder",
        "--memeval-report",
        "--memeval-data",
        "--memeval-embedder",
    ]:
        result.stdout.fnmatch_lines([f"*{option}*"])


@pytest.mark.parametrize(
    "toml, message",
    [
        ('[chroma]\nchunk_tokens = "big"\n', "--memsystem-config [chroma]: chunk_tokens must be int, got 'big'"),
        ("[chroma]\nchunk_tokens = true\n", "--memsystem-config [chroma]: chunk_tokens must be int, got True"),
        ("[chroma]\nprot = 1\n", "--memsystem-config [chroma]: unknown setting 'prot' (settings: path, host, port"),
        ("[context]\ntoken_budget = 10\n", "has settings for 'context', which is not in --memsystem"),
        ("[chroma\n", "is not valid TOML"),
        ("chroma = 3\n", "'chroma' must be a table like [chroma]"),
    ],
)
def test_bad_memsystem_config(pytester: pytest.Pytester, toml: str, message: str) -> None:
    config = pytester.makefile(".toml", memsystems=toml)
    result = pytester.runpytest_subprocess("--memsystem=chroma", f"--memsystem-config={config}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert len([line for line in result.errlines if line.strip()]) == 1
    assert message in result.errlines[0]


def test_unreadable_memsystem_config(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--memsystem=chroma", "--memsystem-config=missing.toml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --memsystem-config: cannot read missing.toml: No such file or directory"])


def test_data_and_split_options_must_apply_to_every_selected_suite(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess(
        "--memsystem=context", "--memeval-suite=bayes", f"--memeval-data={pytester.path}"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--memeval-data: " in result.errlines[0] and "is not a BayesBench checkout" in result.errlines[0]
    result = pytester.runpytest_subprocess("--memsystem=context", "--memeval-suite=bayes", "--memeval-split=train")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == "ERROR: --memeval-split: suite 'bayes' has no 'train' split (splits: test, all)"
