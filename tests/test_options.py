"""docs/options.md documents every option of the plugin in the group `pytest --help` lists it
in, names no option it lacks, and lists the suites the registry holds.

(Bad option values are the matrix of tests/test_bad_input.py.)
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_memeval.running.registry import BUNDLED_SUITES

OPTIONS_PAGE = Path(__file__).resolve().parents[1] / "docs" / "options.md"
#: an option of the plugin, as --help and the page write it
OPTION = re.compile(r"--mem(?:eval|system)[a-z0-9-]*")


def _page_sections() -> dict[str, set[str]]:
    """Each `## ` section of the page -> the options its table rows name."""
    page = OPTIONS_PAGE.read_text(encoding="utf-8")
    sections = re.split(r"^## ", page, flags=re.MULTILINE)[1:]
    return {
        section.partition("\n")[0].strip(): {
            m.group(1) for m in re.finditer(rf"^\| `({OPTION.pattern})", section, re.M)
        }
        for section in sections
    }


@pytest.mark.slow
def test_the_options_page_and_pytest_help_name_the_same_options_in_the_same_groups(pytester: pytest.Pytester) -> None:
    help_text = pytester.runpytest("--help").stdout.str()
    # each feature declares its group (its options.py); they are listed in the page's order
    titles = re.findall(r"^(memeval: .+):$", help_text, re.MULTILINE)
    sections = _page_sections()
    assert [t.removeprefix("memeval: ").lower() for t in titles] == [s.lower() for s, rows in sections.items() if rows]
    in_help: dict[str, set[str]] = {}
    for title in titles:
        group = help_text[help_text.index(f"\n{title}:\n") :]
        group = group[: group.index("\n\n")]
        in_help[title] = {m.group(1) for m in re.finditer(rf"^  ({OPTION.pattern})", group, re.MULTILINE)}
    everything = set().union(*in_help.values())
    assert len(everything) >= 30, in_help
    assert set(OPTION.findall(help_text)) <= everything, "an option outside the plugin's groups"
    for title, options in in_help.items():
        heading = title.removeprefix("memeval: ")
        documented = next((rows for name, rows in sections.items() if name.lower() == heading.lower()), None)
        assert documented is not None, f"docs/options.md has no section '## {heading[0].upper()}{heading[1:]}'"
        assert sorted(options - documented) == [], f"options of the group {title!r} without a row in its section"
        assert sorted(documented - options) == [], f"rows of the section {heading!r} for options of another group"
    page = OPTIONS_PAGE.read_text(encoding="utf-8")
    assert sorted(set(OPTION.findall(page)) - everything) == [], "docs/options.md names options pytest does not have"


def test_the_options_page_lists_every_bundled_suite() -> None:
    row = next(
        line for line in OPTIONS_PAGE.read_text(encoding="utf-8").splitlines() if line.startswith("| `--memeval-suite ")
    )
    listed = re.search(r"the suites to run: ([a-z, ]+) \(", row)
    assert listed is not None, row
    assert sorted(name.strip() for name in listed.group(1).split(",")) == sorted(BUNDLED_SUITES), row
