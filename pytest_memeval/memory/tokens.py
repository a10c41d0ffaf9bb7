"""A dependency-free token count close enough to BPE counts for budgets and reports."""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict

_TOKEN = re.compile(r"\w+|[^\w\s]")

#: the name of `count_tokens`'s tokenizer, as a fingerprint's --memeval-token-budget names it
#: (bump the version if `_TOKEN` ever changes: a budget then means another amount of text)
TOKENIZER = "memeval-words/1"


def count_tokens(text: str) -> int:
    """Words and punctuation marks; within ~20% of GPT-style token counts on English prose."""
    return len(_TOKEN.findall(text))


def cut_to_tokens(text: str, tokens: int) -> str:
    """The first `tokens` tokens of `text`, cut right after the last one kept, so that
    `count_tokens` of the cut text is exactly `tokens` (or the whole text's, when shorter)."""
    if tokens <= 0:
        return ""
    for index, match in enumerate(_TOKEN.finditer(text)):
        if index == tokens - 1:
            return text[: match.end()]
    return text


class TokenCounter:
    """`count_tokens` that remembers the counts of texts it has seen, in bounded memory.

    A store that ignores the query (the `context` ceiling) returns the same long texts to
    every item of a context, so counts are worth keeping; but an adapter may return
    megabytes of new text for every item. Entries are keyed by a 16-byte digest of the
    text, never the text: each costs about 200 bytes whatever the text's length, so the
    cache holds at most `max_entries` x 200 bytes (13 MB at the default), least recently
    used first out.
    """

    def __init__(self, max_entries: int = 1 << 16) -> None:
        self.max_entries = max_entries
        self._counts: OrderedDict[bytes, int] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, text: str) -> int:
        key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        with self._lock:
            count = self._counts.get(key)
            if count is not None:
                self._counts.move_to_end(key)
                return count
        count = count_tokens(text)
        with self._lock:
            self._counts[key] = count
            while len(self._counts) > self.max_entries:
                self._counts.popitem(last=False)
        return count

    def __len__(self) -> int:
        return len(self._counts)


#: This process's remembered counts. The `context` store counts each message at ingest and
#: the runner counts the same texts when the store returns them: one counter, one count.
process_counter = TokenCounter()
