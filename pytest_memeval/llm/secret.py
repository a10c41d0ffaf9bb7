"""The API key, which must never be stored: read from OPENAI_API_KEY only when a client is
built, kept in a `Secret` whose repr hides it, and scrubbed from any text we emit.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ..errors import ConfigError
from .redaction import redact, redact_body, redact_joined


class Secret:
    """A string that does not show itself: repr, str and format print a placeholder."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def scrub(self, text: str) -> str:
        """`text` with every piece of the secret (8 characters or more) replaced (redaction.py)."""
        return redact(text, self._value)

    def scrub_body(self, text: str) -> str:
        """A server's body scrubbed in what it decodes to: JSON escapes undone, a stream's
        deltas joined (redaction.py)."""
        return redact_body(text, self._value)

    def scrub_joined(self, parts: Sequence[str]) -> tuple[str, ...]:
        """`parts` (e.g. log-prob tokens) scrubbed as one text, boundaries kept (redaction.py)."""
        return redact_joined(parts, self._value)

    def __repr__(self) -> str:
        return "Secret(<redacted>)"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return repr(self)

    def __reduce__(self) -> Any:
        raise TypeError("a Secret is not picklable")


def api_key_from_env(base_url: str | None) -> Secret:
    """OPENAI_API_KEY; local servers (a base URL is set) accept a placeholder."""
    key = os.environ.get("OPENAI_API_KEY", "")
    if key:
        return Secret(key)
    if base_url:
        return Secret("EMPTY")
    raise ConfigError("no API key: set OPENAI_API_KEY, or point OPENAI_BASE_URL at a local server")
