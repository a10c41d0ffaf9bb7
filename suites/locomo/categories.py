"""LoCoMo's five question categories, their two readings, and which a run selects.

The release numbers its categories 1-5 and names them nowhere; the paper lists single-hop,
multi-hop, temporal, open-domain, adversarial in that order, which does not match the
numbers. Two readings are in use (snap-research/locomo#6):

- the scorer's (`task_eval/evaluation.py` comments; snap-research/locomo#29): 1 multi-hop,
  2 temporal, 3 open-domain, 4 single-hop, 5 adversarial. It fits the data: category 1's
  golds are comma-separated lists (the scorer splits them), category 4 is the largest;
- Mem0's (mem0ai/mem0#2609): 1 single-hop, 2 temporal, 3 multi-hop, 4 open-domain.

The report prints the scorer's reading unless `locomo.category_names=mem0`; markers carry
only the number (`locomo_cat1` ... `locomo_cat5`), so a selection means the same either way.
"""

from __future__ import annotations

from collections.abc import Mapping

from pytest_memeval.errors import ConfigError

READINGS: Mapping[str, Mapping[int, str]] = {
    "scorer": {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"},
    "mem0": {1: "single-hop", 2: "temporal", 3: "multi-hop", 4: "open-domain", 5: "adversarial"},
}
DEFAULT_READING = "scorer"
#: the published protocol leaves out category 5
DEFAULT_CATEGORIES = (1, 2, 3, 4)


def marker(category: int) -> str:
    return f"locomo_cat{category}"


def marker_descriptions() -> dict[str, str]:
    scorer, mem0 = READINGS["scorer"], READINGS["mem0"]
    return {
        marker(n): f"locomo category {n}: {scorer[n]} by the scorer's reading"
        + ("" if scorer[n] == mem0[n] else f", {mem0[n]} by Mem0's")
        for n in scorer
    }


def label(category: int, reading: str) -> str:
    """'1 multi-hop': the number and its name in `reading`."""
    return f"{category} {READINGS[reading][category]}"


def parse_categories(raw: str | None) -> tuple[int, ...]:
    if raw is None:
        return DEFAULT_CATEGORIES
    option = "--memeval-suite-option locomo.categories"
    parts = [p.strip() for p in raw.split(",") if p.strip()]
    if not parts or any(p not in {"1", "2", "3", "4", "5"} for p in parts):
        raise ConfigError(f"{option}={raw}: give categories 1-5 separated by commas (e.g. 1,2,3,4,5)")
    return tuple(sorted({int(p) for p in parts}))


def parse_reading(raw: str | None) -> str:
    if raw is None:
        return DEFAULT_READING
    if raw not in READINGS:
        raise ConfigError(f"--memeval-suite-option locomo.category_names={raw}: one of {', '.join(READINGS)}")
    return raw
