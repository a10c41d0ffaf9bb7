"""Writing a file so that a reader (or a run killed half-way) sees the old or the new
content, never a mixture and never an empty file.

The text goes to a temporary file beside the target (the same directory, so the same file
system), is flushed to disk, and replaces the target in one rename. Writing a report is
the last thing a run does; SIGKILL during it used to leave the previous good report at
0 bytes.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

#: characters encoded and written at a time
_SLICE = 1 << 20


def write_atomic(path: str | os.PathLike[str], text: str | Iterable[str]) -> None:
    """Replace `path` with `text` (UTF-8; or its pieces, written as they come) in one step;
    raises OSError as `open` would, and what making a piece raises (the target untouched)."""
    # a link is followed: the file it names is replaced, the link stays
    target = Path(os.path.realpath(path))
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    # created like `open(path, "w")` would create it: 0o666 less the umask
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        with open(descriptor, "w", encoding="utf-8") as handle:
            for piece in [text] if isinstance(text, str) else text:
                # a slice at a time: the writer encodes what it is given whole, a second
                # copy of a page's megabytes of data
                for start in range(0, len(piece), _SLICE):
                    handle.write(piece[start : start + _SLICE])
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
