"""Reading the files of a released data layout (--memeval-data): regular files only.

A FIFO named like a data file would block its reader for ever, and a device or a socket is
no data file either; a dangling symlink (an editor's lock file) cannot be read at all.
Every suite's loader opens its files through `open_text`/`read_text` (the plugin's
files/user_files.py, which every file at a user's path goes through), which refuse anything
but a regular file (a symlink to one is fine) with an `OSError` whose strerror says what the
file is: each loader already turns an OSError into its own one-line message naming the
file. Directory listings go through `regular_files`, which skips anything else with a
`DataFileWarning` naming it.
"""

from __future__ import annotations

import json
import stat
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..errors import ConfigError, DataError
from ..files import json_input
from ..files.user_files import NotARegularFile, kind, open_text, read_text

__all__ = [
    "DataFileWarning",
    "NotARegularFile",
    "data_note",
    "open_text",
    "read_json",
    "read_text",
    "regular_files",
    "released_file",
]


class DataFileWarning(UserWarning):
    """A file of a data directory was skipped: it is not a regular file."""


def read_json(path: Path) -> Any:
    """The JSON value of a regular file; a DataError of one line when it cannot be read or
    is not JSON."""
    try:
        return json_input.loads(read_text(path), constants=True)
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: not JSON ({exc})") from None


def regular_files(paths: Iterable[Path]) -> list[Path]:
    """The regular files among `paths` (symlinks to regular files included), in their
    order; directories are left out, and each other entry (a FIFO, a dangling symlink, ...)
    is skipped with a warning."""
    kept = []
    for path in paths:
        try:
            mode = path.stat().st_mode
        except OSError:
            warnings.warn(DataFileWarning(f"{path}: skipped, a dangling symlink or unreadable entry"), stacklevel=2)
            continue
        if stat.S_ISREG(mode):
            kept.append(path)
        elif not stat.S_ISDIR(mode):
            warnings.warn(DataFileWarning(f"{path}: skipped, not a regular file ({kind(mode)})"), stacklevel=2)
    return kept


def released_file(directory: Path, names: Sequence[str], download: str) -> Path:
    """The first of a released file's `names` present in `directory` (--memeval-data); a
    ConfigError of one line saying where to download it when none is."""
    for name in names:
        if (directory / name).is_file():
            return directory / name
    raise ConfigError(f"--memeval-data {directory}: no {' or '.join(names)} (download it from {download})")


def data_note(file: str, sha256: str, sample: bool) -> str:
    """What a summary's note says of the data a run read."""
    if sample:
        return f"data: a generated sample in the released format ({file}), not the benchmark"
    return f"data: {file} (sha256 {sha256[:12]})"
