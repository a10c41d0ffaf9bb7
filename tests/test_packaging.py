"""The wheel carries every package, the bundled suites and the prompt templates, and a
repository with no test files of its own runs the suites from it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "--no-build-isolation", "-q", "-w", str(out)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (built,) = out.glob("pytest_memeval-*.whl")
    return built


def test_wheel_contains_every_package_suite_and_prompt(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    packages = sorted(p.parent.relative_to(REPO) for p in (REPO / "pytest_memeval").rglob("__init__.py"))
    # the suites' packages, which pyproject's package-dir installs below pytest_memeval
    packages += sorted("pytest_memeval" / p.parent.relative_to(REPO) for p in (REPO / "suites").rglob("__init__.py"))
    missing = [str(p) for p in packages if f"{p.as_posix()}/__init__.py" not in names]
    assert not missing, f"packages left out of the wheel (add them to pyproject.toml): {missing}"
    for suite in (REPO / "suites").glob("test_*.py"):
        assert f"pytest_memeval/suites/{suite.name}" in names
    for prompt in (REPO / "pytest_memeval" / "prompts").glob("*.toml"):
        assert f"pytest_memeval/prompts/{prompt.name}" in names
    assert "pytest_memeval/rendering/explorer.js" in names
    entry_points = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "memeval = pytest_memeval.plugin" in entry_points


@pytest.fixture
def their_repo(wheel: Path, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A repository with no test files, outside the checkout, and the environment in which
    the unpacked wheel comes first on the path, ahead of this checkout's editable install."""
    installed = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(installed)
    project = tmp_path / "their-repo"
    project.mkdir()
    env = dict(os.environ, PYTHONPATH=str(installed), MEMEVAL_CACHE_DIR=str(tmp_path / "cache"))
    where = subprocess.run(
        [sys.executable, "-c", "import pytest_memeval; print(pytest_memeval.__file__)"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert where.stdout.strip().startswith(str(installed))
    return project, env


def _pytest(project: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_a_repository_without_tests_runs_the_bundled_suites(their_repo: tuple[Path, dict[str, str]]) -> None:
    run = _pytest(
        *their_repo, "--memsystem=chroma", "-n", "2", "--memeval-embedder=hashing", "--memeval-suite=multisource", "-q"
    )
    assert run.returncode in (0, 1), run.stdout[-3000:] + run.stderr[-3000:]
    # the suite's table (its heading labels the generated sample), every item counted by pytest,
    # then the verdict
    assert re.search(r"^multisource  \(sample\)\n +chroma\n  items +216$", run.stdout, re.MULTILINE), run.stdout[-3000:]
    count = re.search(r"^(?:(\d+) failed, )?(\d+) passed in ", run.stdout, re.MULTILINE)
    assert count and int(count[1] or 0) + int(count[2]) == 216, run.stdout[-3000:]
    assert run.stdout.splitlines()[-1].startswith(f"memeval: exit status {run.returncode}: ")


def test_a_failed_id_printed_there_pastes_back_and_reruns_that_item(their_repo: tuple[Path, dict[str, str]]) -> None:
    run = _pytest(*their_repo, "--memsystem=none", "--memeval-suite=memfail", "-k", "coexisting")
    wrong = re.findall(r"^WRONG (\S+) - ", run.stdout, re.MULTILINE)
    assert run.returncode == 1 and wrong, run.stdout[-3000:] + run.stderr[-3000:]
    printed = wrong[-1]
    assert printed.startswith("test_memfail.py::test_memfail[s42-coexisting-")  # as pytest gives it there
    for extra in ((), ("-n", "2")):
        again = _pytest(*their_repo, printed, "--memsystem=none", "-v", *extra)
        assert again.returncode == 1, again.stdout[-3000:] + again.stderr[-3000:]
        assert any(printed in line and "FAILED" in line for line in again.stdout.splitlines()), again.stdout[-3000:]
        *_, count, verdict = again.stdout.splitlines()  # pytest's count, then the run's verdict
        assert " 1 failed" in count and verdict.startswith("memeval: exit status 1: 1 wrong answer:")
        assert "rootdir: " + str(their_repo[0]) in again.stdout
