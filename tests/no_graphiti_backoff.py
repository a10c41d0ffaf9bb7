"""A pytest plugin for the tests' runs of graphiti (`-p no_graphiti_backoff`): graphiti sleeps
5 to 120 s between the attempts of an LLM call whose reply it cannot parse (tenacity's
random exponential wait). The tests check its attempts, not its sleeps, which took about
50 s of each replay of a recorded graphiti run."""

from __future__ import annotations

from typing import Any

import pytest
from tenacity import wait_none


def graphiti_retrying() -> Any:
    """graphiti's retry policy of its LLM calls (a tenacity AsyncRetrying)."""
    from graphiti_core.llm_client.client import LLMClient

    return LLMClient._generate_response_with_retry.retry  # type: ignore[attr-defined]


def pytest_configure(config: pytest.Config) -> None:
    graphiti_retrying().wait = wait_none()
