"""Files a user names (an option's path, a file of a data directory, the journal beside a
report): regular files only, and nothing ever blocks on opening one.

A FIFO would block its reader (or its writer) for ever, a device or a socket is no file a
run reads or writes, and a directory is not a file. Every file the plugin reads or writes
at a user's path is opened or checked here: `open_regular` opens without blocking and
checks the opened file itself (so a file swapped after a check is still caught), and
raises `NotARegularFile`, an `OSError` whose strerror says what the file is ("not a
regular file (a FIFO)"), which each caller already turns into its one line naming the file.
A symlink to a regular file is one.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO, TextIO


class NotARegularFile(OSError):
    """A file at a user's path that is a FIFO, a socket, a device or a directory."""


def open_regular(path: str | os.PathLike[str], flags: int = os.O_RDONLY, mode: int = 0o666) -> int:
    """`os.open(path, flags, mode)` if it is (or creates) a regular file; the descriptor is
    blocking. A FIFO is refused at once whatever the flags (opening it for writing without
    a reader fails with ENXIO, which is reported as what it is too)."""
    try:
        fd = os.open(path, flags | os.O_NONBLOCK, mode)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a FIFO (or socket) opened for writing that no one reads
            check_regular(path)
        raise
    try:
        file_mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(file_mode):
            raise _not_regular(path, file_mode)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def check_regular(path: str | os.PathLike[str]) -> None:
    """Raise NotARegularFile when something that is not a regular file is at `path` (a
    missing path passes: it is created as a regular file)."""
    try:
        file_mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(file_mode):
        raise _not_regular(path, file_mode)


def open_text(path: str | os.PathLike[str], encoding: str = "utf-8", newline: str | None = None) -> TextIO:
    """The regular file at `path` opened for reading text."""
    return open(open_regular(path), encoding=encoding, newline=newline)


def read_text(path: str | os.PathLike[str], encoding: str = "utf-8") -> str:
    """The whole text of the regular file at `path`."""
    with open_text(path, encoding) as handle:
        return handle.read()


def open_bytes(path: str | os.PathLike[str]) -> BinaryIO:
    """The regular file at `path` opened for reading bytes."""
    return open(open_regular(path), "rb")


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The whole content of the regular file at `path`."""
    with open_bytes(path) as handle:
        return handle.read()


def kind(file_mode: int) -> str:
    """What a file of this mode is, in words ("a FIFO")."""
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a directory"),
    ):
        if test(file_mode):
            return name
    return "not a file"


def _not_regular(path: str | os.PathLike[str], file_mode: int) -> NotARegularFile:
    return NotARegularFile(errno.EINVAL, f"not a regular file ({kind(file_mode)})", str(Path(path)))
