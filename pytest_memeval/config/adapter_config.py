"""--memeval-adapter-config: a TOML file of adapter settings, one table per memory system.

A table is named by its `--memsystem` entry: `[chroma]`, and for an own adapter its import
path, which TOML wants quoted: `["mymem:TfidfMemory"]`. What users write instead is taken
when it names exactly one entry of `--memsystem`: the class name alone (`[TfidfMemory]`) or
the dotted path (`[mymem.TfidfMemory]`, which TOML reads as a table `TfidfMemory` inside a
table `mymem`). Anything else is one line saying how to name the table.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..files.user_files import read_text

OPTION = "--memeval-adapter-config"
#: an unquoted table header holding a colon, `[mymem:TfidfMemory]`, which TOML refuses
_UNQUOTED_IMPORT_PATH = re.compile(r"^\s*\[\s*([\w.]+:[\w.]+)\s*\]", re.MULTILINE)


def read_adapter_config(raw: str | None, memsystems: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """The file's tables keyed by the `--memsystem` entry each is for; a table for no
    system of the run, or two tables for one, is an error."""
    if raw is None:
        return {}
    try:
        text = read_text(Path(raw).expanduser())
    except OSError as exc:
        raise ConfigError(f"{OPTION}: cannot read {raw}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{OPTION}: {raw} is not a UTF-8 text file (expected TOML)") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        unquoted = _UNQUOTED_IMPORT_PATH.search(text)
        hint = f' (quote a table named by import path: ["{unquoted.group(1)}"])' if unquoted else ""
        raise ConfigError(f"{OPTION}: {raw} is not valid TOML: {exc}{hint}") from None
    except RecursionError:
        raise ConfigError(f"{OPTION}: {raw} is nested too deeply to be adapter settings") from None
    config: dict[str, dict[str, Any]] = {}
    for name, system, table in _tables(raw, data, memsystems):
        if system in config:
            raise ConfigError(f"{OPTION}: {raw} has two tables for {system!r} (the second: [{name}])")
        config[system] = table
    return config


def _tables(raw: str, data: dict[str, Any], memsystems: tuple[str, ...]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(the table's name as written, the --memsystem entry it is for, its settings)."""
    for name, table in data.items():
        yield from _named(raw, name, table, memsystems)


def _named(raw: str, name: str, table: Any, memsystems: tuple[str, ...]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    if not isinstance(table, dict):
        raise ConfigError(f"{OPTION}: {raw}: '{name}' must be a table like [{name}]")
    system = _system_named(name, memsystems)
    if system is not None:
        yield name, system, table
        return
    if any(_dotted(entry).startswith(f"{name}.") for entry in memsystems if ":" in entry):
        for key, inner in table.items():  # a dotted header: [mymem.TfidfMemory]
            yield from _named(raw, f"{name}.{key}", inner, memsystems)
        return
    own = next((entry for entry in memsystems if ":" in entry), None)
    example = f'["{own}"]' if own is not None else f"[{memsystems[0]}]" if memsystems else "[chroma]"
    raise ConfigError(
        f"{OPTION}: {raw} has settings for '{name}', which is not in --memsystem "
        f"({', '.join(memsystems) or 'none given'}); name each table by its --memsystem entry, e.g. {example}"
    )


def _system_named(name: str, memsystems: tuple[str, ...]) -> str | None:
    """The entry `name` means: itself, or the one own adapter whose class name or dotted
    path it is."""
    if name in memsystems:
        return name
    fits = [entry for entry in memsystems if ":" in entry and name in (_class_name(entry), _dotted(entry))]
    return fits[0] if len(fits) == 1 else None


def _class_name(entry: str) -> str:
    """`TfidfMemory` for `mymem:TfidfMemory` (and for `mymem:Outer.TfidfMemory`)."""
    return entry.rpartition(":")[2].rpartition(".")[2]


def _dotted(entry: str) -> str:
    """`mymem.TfidfMemory` for `mymem:TfidfMemory`."""
    return entry.replace(":", ".")
