"""Where the papers' reference data lives: ../shared next to the checkout, or $MEMEVAL_SHARED_DIR.

Tests read it in place (it is never copied into the project) and skip cleanly without it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED_DIR = Path(os.environ.get("MEMEVAL_SHARED_DIR") or Path(__file__).resolve().parents[2] / "shared")
MULTISOURCE = SHARED_DIR / "reference" / "multisource"

needs_multisource_reference = pytest.mark.skipif(
    not (MULTISOURCE / "s20260324").is_dir(), reason=f"reference data not found at {MULTISOURCE}"
)
