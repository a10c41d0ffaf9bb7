"""Exceptions with one-line messages; the plugin turns them into usage errors or test errors."""

from __future__ import annotations


class MemevalError(Exception):
    """Base class: the message is one line a user can act on."""


class ConfigError(MemevalError):
    """A bad option, name or path; becomes a pytest usage error (exit status 4)."""


class DataError(MemevalError, ValueError):
    """A benchmark data file is missing or malformed; the message names the file."""


class AdapterError(MemevalError):
    """A memory system raised; the item is an error, never a score."""


class ResponseError(MemevalError):
    """A response model or judge failed or produced unusable output."""
