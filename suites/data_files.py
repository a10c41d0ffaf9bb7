"""Reading the files of a released data layout (--memeval-data): regular files only.

A FIFO named like a data file would block its reader for ever, and a device or a socket is
no data file either; a dangling symlink (an editor's lock file) cannot be read at all.
Every suite's loader opens its files through `open_text`/`read_text`, which refuse anything
but a regular file (a symlink to one is fine) with an `OSError` whose strerror says what the
file is: each loader already turns an OSError into its own one-line message naming the
file. Directory listings go through `regular_files`, which skips anything else with a
`DataFileWarning` naming it.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from ..config.errors import DataError


class DataFileWarning(UserWarning):
    """A file of a data directory was skipped: it is not a regular file."""


class NotARegularFile(OSError):
    """A data file that is a FIFO, a socket, a device or a directory."""


def open_text(path: Path, encoding: str = "utf-8", newline: str | None = None) -> TextIO:
    """The file opened for reading text, if it is a regular file (checked on the opened file,
    which a FIFO lets us open without waiting for a writer)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotARegularFile(errno.EINVAL, f"not a regular file ({_kind(mode)})", str(path))
        os.set_blocking(fd, True)
        return open(fd, encoding=encoding, newline=newline)
    except BaseException:
        os.close(fd)
        raise


def read_text(path: Path, encoding: str = "utf-8") -> str:
    """The whole text of a regular file (see `open_text`)."""
    with open_text(path, encoding) as handle:
        return handle.read()


def read_json(path: Path) -> Any:
    """The JSON value of a regular file; a DataError of one line when it cannot be read or
    is not JSON."""
    try:
        return json.loads(read_text(path))
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
            warnings.warn(DataFileWarning(f"{path}: skipped, not a regular file ({_kind(mode)})"), stacklevel=2)
    return kept


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a directory"),
    ):
        if test(mode):
            return name
    return "not a file"
