"""Whether two memeval JSON reports are the same but for timings.

    .venv/bin/python benchmarks/same_report.py BEFORE.json AFTER.json

Removes every key that holds a measured duration (`*_ms` and `latency`, at any depth),
then compares what is left value by value; prints the removed keys and the paths that
differ (at most 20), and exits 1 when any does. A change meant to make the plugin cheaper
must leave a run's report the same.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

TIMING = re.compile(r"_ms$|^latency$")


def without_timings(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: without_timings(item) for key, item in value.items() if not TIMING.search(key)}
    if isinstance(value, list):
        return [without_timings(item) for item in value]
    return value


def differences(a: Any, b: Any, path: str = "") -> list[str]:
    if type(a) is not type(b):
        return [path or "."]
    if isinstance(a, dict):
        found = []
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                found.append(f"{path}.{key}")
            else:
                found.extend(differences(a[key], b[key], f"{path}.{key}"))
        return found
    if isinstance(a, list):
        if len(a) != len(b):
            return [f"{path}[len]"]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [path or "."]


def timing_keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return {k for k in value if TIMING.search(k)} | {k for v in value.values() for k in timing_keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in timing_keys(v)}
    return set()


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    before, after = (json.loads(open(path, encoding="utf-8").read()) for path in sys.argv[1:])
    found = differences(without_timings(before), without_timings(after))
    print(f"timing keys left out: {', '.join(sorted(timing_keys(before) | timing_keys(after)))}")
    print(f"{len(found)} paths differ", *found[:20], sep="\n  ")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
