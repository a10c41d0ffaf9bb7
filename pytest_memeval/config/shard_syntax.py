"""--memeval-shard I/N: which of N parts of a run this job runs (running/shards.py deals
the contexts to the parts)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import ConfigError

OPTION = "--memeval-shard"
#: more jobs than a CI matrix runs (GitHub Actions: 256 per workflow)
MAX_SHARDS = 1000


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based, as written on the command line
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    @classmethod
    def parse(cls, raw: str) -> Shard:
        found = re.fullmatch(r"([0-9]+)/([0-9]+)", raw)
        shard = cls(int(found[1]), int(found[2])) if found else None
        if shard is None or not 1 <= shard.index <= shard.count:
            raise ConfigError(f"{OPTION}: {raw!r} is not I/N with 1 <= I <= N (e.g. 2/3)")
        if shard.count > MAX_SHARDS:
            raise ConfigError(f"{OPTION}: {raw!r}: N is at most {MAX_SHARDS}")
        return shard
