"""A dependency-free token count close enough to BPE counts for budgets and reports."""

from __future__ import annotations

import re

_TOKEN = re.compile(r"\w+|[^\w\s]")


def count_tokens(text: str) -> int:
    """Words and punctuation marks; within ~20% of GPT-style token counts on English prose."""
    return len(_TOKEN.findall(text))
