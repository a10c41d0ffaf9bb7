"""--memeval-adapter-config: which --memsystem entry each table is for, as users write it.

(Its errors are rows of tests/test_bad_input.py.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_memeval.config.adapter_config import read_adapter_config
from pytest_memeval.errors import ConfigError

OWN = ("mymem:TfidfMemory", "chroma")


def _read(tmp_path: Path, toml: str, memsystems: tuple[str, ...] = OWN) -> dict[str, dict[str, object]]:
    path = tmp_path / "adapters.toml"
    path.write_text(toml, encoding="utf-8")
    return read_adapter_config(str(path), memsystems)


@pytest.mark.parametrize(
    "header",
    ['["mymem:TfidfMemory"]', "[TfidfMemory]", "[mymem.TfidfMemory]", "['mymem:TfidfMemory']"],
    ids=["quoted-import-path", "class-name", "dotted-path", "single-quoted"],
)
def test_an_own_adapters_table_is_found_by_the_names_users_write(tmp_path: Path, header: str) -> None:
    config = _read(tmp_path, f"{header}\nmin_df = 2\n\n[chroma]\nchunk_tokens = 64\n")
    assert config == {"mymem:TfidfMemory": {"min_df": 2}, "chroma": {"chunk_tokens": 64}}


def test_a_dotted_path_reaches_two_classes_of_one_module(tmp_path: Path) -> None:
    config = _read(tmp_path, "[mymem.A]\nx = 1\n[mymem.B]\ny = 2\n", ("mymem:A", "mymem:B"))
    assert config == {"mymem:A": {"x": 1}, "mymem:B": {"y": 2}}


def test_a_class_name_two_entries_share_is_not_guessed(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="has settings for 'Memory', which is not in --memsystem"):
        _read(tmp_path, "[Memory]\nx = 1\n", ("one:Memory", "two:Memory"))


def test_two_tables_for_one_system_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"two tables for 'mymem:TfidfMemory' \(the second: \[TfidfMemory\]\)"):
        _read(tmp_path, '["mymem:TfidfMemory"]\nx = 1\n[TfidfMemory]\nx = 2\n')


def test_a_table_of_settings_for_a_built_in_system_stays_its_setting(tmp_path: Path) -> None:
    """A nested table under a built-in system's table is a setting of it, not a dotted name."""
    assert _read(tmp_path, "[chroma.extra]\nk = 1\n") == {"chroma": {"extra": {"k": 1}}}
