"""Parsing one raw option value; every problem is a ConfigError with a one-line message."""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from urllib.parse import urlsplit

from ..errors import ConfigError
from ..files.user_files import check_regular, open_regular

#: a class named by its import path (--memsystem, --memeval-suite): pkg.module:Class
IMPORT_PATH = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


def names(option: str, raw: str | None) -> tuple[str, ...]:
    if raw is None:
        return ()
    parts = tuple(part.strip() for part in raw.split(","))
    if not all(parts):
        raise ConfigError(f"{option}: empty name in {raw!r}")
    duplicates = sorted({part for part in parts if parts.count(part) > 1})
    if duplicates:
        raise ConfigError(f"{option}: {', '.join(duplicates)} named twice")
    return parts


def import_path(option: str, raw: str) -> str:
    """`raw`, checked to be of the form pkg.module:Class (not imported here)."""
    if not IMPORT_PATH.match(raw):
        raise ConfigError(f"{option}: {raw!r} is not of the form pkg.module:Class")
    return raw


def choice(option: str, raw: str, choices: tuple[str, ...]) -> str:
    if raw not in choices:
        raise ConfigError(f"{option}: {raw!r} is not one of {', '.join(choices)}")
    return raw


def integer(option: str, raw: str, minimum: int) -> int:
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise ConfigError(f"{option}: {raw!r} is not an integer") from None
    if value < minimum:
        raise ConfigError(f"{option}: must be at least {minimum}, got {value}")
    return value


def positive_float(option: str, raw: str) -> float:
    value = _number(option, raw)
    if not (value > 0 and math.isfinite(value)):
        raise ConfigError(f"{option}: must be a positive finite number, got {raw}")
    return value


def non_negative_float(option: str, raw: str) -> float:
    value = _number(option, raw)
    if not (value >= 0 and math.isfinite(value)):
        raise ConfigError(f"{option}: must be at least 0 and finite, got {raw}")
    return value


def _number(option: str, raw: str) -> float:
    try:
        return float(raw)
    except (TypeError, ValueError):
        raise ConfigError(f"{option}: {raw!r} is not a number") from None


def http_url(option: str, raw: str | None) -> str | None:
    """An http:// or https:// URL with a host (an endpoint's base URL), else a ConfigError:
    anything else would fail every call of the run, each after its retries."""
    if raw is None:
        return None
    url = raw.strip()
    parts = urlsplit(url)
    try:
        valid = parts.scheme in ("http", "https") and bool(parts.hostname) and (parts.port or 1) > 0
    except ValueError:  # a port that is not a number, or out of range
        valid = False
    if not valid:
        shown = url if len(url) <= 80 else url[:77] + "..."
        raise ConfigError(
            f"{option}: {shown!r} is not an http:// or https:// URL with a host (e.g. http://127.0.0.1:8080/v1)"
        )
    return url


def readable_file(option: str, raw: str | None) -> Path | None:
    if raw is None:
        return None
    path = Path(raw).expanduser().resolve()
    if not path.exists():
        raise ConfigError(f"{option}: {raw} is not a file")
    regular_file(option, raw, path)
    if not os.access(path, os.R_OK):
        raise ConfigError(f"{option}: {raw} is not readable")
    return path


def writable_file(option: str, raw: str | None) -> Path | None:
    """A path the run can write its file to, checked now by opening it for writing (and
    removing it again when it did not exist), so that /proc/x or a device fails here."""
    if raw is None:
        return None
    path = Path(raw).expanduser().resolve()
    if path.is_dir():
        raise ConfigError(f"{option}: {raw} is a directory, expected a file path")
    if not path.parent.is_dir():
        raise ConfigError(f"{option}: directory {path.parent} does not exist")
    regular_file(option, raw, path)
    existed = path.exists()
    try:
        os.close(open_regular(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT))
    except OSError as exc:
        raise ConfigError(f"{option}: cannot write {raw}: {exc.strerror or exc}") from None
    if not existed:
        path.unlink(missing_ok=True)
    return path


def regular_file(option: str, raw: str | os.PathLike[str], path: Path) -> None:
    """A ConfigError when something other than a regular file (a FIFO, a device) is at
    `path`: reading or writing it could block for ever (files/user_files.py)."""
    try:
        check_regular(path)
    except OSError as exc:
        raise ConfigError(f"{option}: {raw} is {exc.strerror}") from None


def readable_dir(option: str, raw: str | None) -> Path | None:
    if raw is None:
        return None
    path = Path(raw).expanduser().resolve()
    if not path.is_dir():
        raise ConfigError(f"{option}: {raw} is not a directory")
    if not os.access(path, os.R_OK | os.X_OK):
        raise ConfigError(f"{option}: {raw} is not readable")
    return path


def cache_dir(raw: str | None) -> Path:
    if raw is None:
        raw = os.environ.get("MEMEVAL_CACHE_DIR")
    if raw is None:
        base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
        return Path(base) / "pytest-memeval"
    path = Path(raw).expanduser().resolve()
    if path.exists() and not path.is_dir():
        raise ConfigError(f"--memeval-cache-dir: {raw} exists and is not a directory")
    return path
