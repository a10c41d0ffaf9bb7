"""Which schema library reads and writes records fastest: msgspec or pydantic v2.

    .venv/bin/python benchmarks/bench_schema_libraries.py --source memeval-report.json \\
        [--records 34560] [--repeat 5]

`--source` is a report of `make main`; its multisource records, repeated with new ids up to
--records, are the document. Each library reads it typed, straight from the text, into
frozen values that refuse unknown fields (msgspec: the plugin's `Record`; pydantic: a
`BaseModel` of the same fields, strict, `extra="forbid"`, frozen), then turns the values
back into dicts for the JSON encoder. The standard library's `json.loads` of the same text
is shown beside them. Rounds alternate the libraries' order; prints the median seconds of
each and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import msgspec
from pydantic import BaseModel, ConfigDict

from pytest_memeval.results.records import Record


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class PKey(_Model):
    suite: str
    memsystem: str
    responder: str = "reader"
    judge: str = "deterministic"
    k: int = 10


class PMemory(_Model):
    text: str
    id: str | None = None
    score: int | float | None = None
    length: int = 0


class PTokens(_Model):
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_calls: int = 0
    cached_prompt_tokens: int = 0
    cached_completion_tokens: int = 0


class PFill(_Model):
    tokens: dict[str, PTokens] = {}
    llm_seconds: float = 0.0
    fill_ms: float = 0.0


class PRecord(_Model):
    id: str
    key: PKey
    suite_ref: str
    context: str
    cluster: str
    task: str
    status: Literal["scored", "invalid", "error"]
    strata: dict[str, str] = {}
    reason: str = ""
    answer: str | None = None
    abstained: bool = False
    correct: bool | None = None
    score: int | float | None = None
    gold: Any = None
    n_memories: int = 0
    retrieved_tokens: int = 0
    retrieve_ms: int | float | None = None
    answer_ms: int | float | None = None
    detail: dict[str, Any] = {}
    answer_detail: dict[str, Any] = {}
    stage: str = ""
    memory_unreadable: bool = False
    raw: str = ""
    question: str = ""
    memories: tuple[PMemory, ...] = ()
    judge_reason: str = ""
    repeat: int = 0
    ingest: dict[str, Any] = {}
    llm_tokens: dict[str, dict[str, PTokens]] = {}
    ingest_ms: tuple[float, ...] = ()
    judge_ms: int | float | None = None
    context_fill: PFill | None = None


class PRecords(_Model):
    records: tuple[PRecord, ...]


class MRecords(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    records: tuple[Record, ...]


def document(source: Path, records: int) -> str:
    data = json.loads(source.read_text(encoding="utf-8"))
    base = [r for r in data["records"] if r["key"]["suite"] == "multisource"]
    if not base:
        sys.exit(f"{source} holds no multisource record")
    copies = [dict(base[i % len(base)], id=f"{base[i % len(base)]['id']}-copy{i // len(base)}") for i in range(records)]
    return json.dumps({"records": copies})


def timed(work: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = work()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=Path, required=True, help="a report of make main")
    parser.add_argument("--records", type=int, default=34_560)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    text = document(args.source, args.records)
    arms: dict[str, tuple[Callable[[], Any], Callable[[Any], Any]]] = {
        "msgspec": (lambda: msgspec.json.decode(text, type=MRecords), msgspec.to_builtins),
        "pydantic": (lambda: PRecords.model_validate_json(text), lambda m: m.model_dump()),
        "json.loads (untyped)": (lambda: json.loads(text), lambda d: d),
    }
    seconds: dict[str, dict[str, list[float]]] = {name: {"read": [], "to dicts": []} for name in arms}
    loads = [os.getloadavg()[0]]
    for round_ in range(args.repeat):
        names = list(arms) if round_ % 2 == 0 else list(reversed(arms))
        for name in names:
            read, dump = arms[name]
            read_s, value = timed(read)
            start = time.perf_counter()
            dump(value)
            dump_s = time.perf_counter() - start
            seconds[name]["read"].append(read_s)
            seconds[name]["to dicts"].append(dump_s)
            del value
        loads.append(os.getloadavg()[0])
    print(f"{args.records:,} records, {len(text) / 1e6:.0f} MB; medians of {args.repeat} rounds")
    for name, measured in seconds.items():
        print(f"{name}: " + ", ".join(f"{what} {statistics.median(v):.2f} s" for what, v in measured.items()))
    print(f"load average (1 min) {min(loads):.2f} to {max(loads):.2f}")


if __name__ == "__main__":
    main()
