"""docs/options.md documents every option of the plugin, and names no option it lacks.

(Bad option values are the matrix of tests/test_bad_input.py.)
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

OPTIONS_PAGE = Path(__file__).resolve().parents[1] / "docs" / "options.md"
#: an option of the plugin, as --help and the page write it
OPTION = re.compile(r"--mem(?:eval|system)[a-z0-9-]*")


@pytest.mark.slow
def test_the_options_page_and_pytest_help_name_the_same_options(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    help_text = result.stdout.str()
    group = help_text[help_text.index("memory-system evaluation (pytest-memeval):") :]
    group = group[: group.index("\n\n")]
    in_help = {m.group(1) for m in re.finditer(rf"^  ({OPTION.pattern})", group, re.MULTILINE)}
    assert len(in_help) >= 30, group
    page = OPTIONS_PAGE.read_text(encoding="utf-8")
    documented = {m.group(1) for m in re.finditer(rf"^\| `({OPTION.pattern})", page, re.MULTILINE)}
    assert sorted(in_help - documented) == [], "options without a row in docs/options.md"
    assert sorted(set(OPTION.findall(page)) - in_help) == [], "docs/options.md names options pytest does not have"
