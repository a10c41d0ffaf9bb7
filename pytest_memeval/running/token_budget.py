"""--memeval-token-budget: the retrieved memories cut to N tokens before the responder sees
them, so that memory systems are compared at equal context.

The tokens are `memory.tokens.count_tokens`'s (`TOKENIZER`): words and punctuation marks,
deterministic, offline and the same counter that `retrieved_tokens` reports. Memories keep
the order the system returned them in (its ranking, best first); the first that does not fit
whole is cut at a token boundary (its `verbatim`, the offline readers' form, to the same
number of tokens) and those after it are dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from ..memory.tokens import count_tokens, cut_to_tokens
from ..types import Memory


def within_budget(
    memories: Sequence[Memory], budget: int, count: Callable[[str], int] = count_tokens
) -> tuple[list[Memory], int]:
    """The memories that fit in `budget` tokens, best first, and the tokens they hold."""
    kept: list[Memory] = []
    used = 0
    for memory in memories:
        left = budget - used
        if left <= 0:
            break
        tokens = count(memory.text)
        if tokens <= left:
            kept.append(memory)
            used += tokens
            continue
        verbatim = None if memory.verbatim is None else cut_to_tokens(memory.verbatim, left)
        kept.append(replace(memory, text=cut_to_tokens(memory.text, left), verbatim=verbatim))
        used += left
        break
    return kept, used
