"""The golds of the KnowMe-Bench release, read as shipped.

A released answer is a string, or (T4 of datasets 1 and 2, one T6 item of dataset 2) a
list of {rank, event, reasoning}. The gold keeps that value unchanged under "answer" and
adds what our diagnostic scorer for the task can read out of it:

    T1  entities split out of the prose                      entity_f1_text (approximate)
    T2  an abstention phrase ("not mentioned in the text",
        "unable to answer", ...)                              abstain
        a letter order "A -> B -> C" (dataset 3 ships 51 of
        these in its T2 file)                                 order
    T3  a letter order, or a duration ("8 minutes 40 s")      order / duration
    T4  the ranked events, from the list or the numbered prose ranking_text (approximate)
    else                                                      text_coverage_approx

`reference_text` is what an LLM judge reads as the reference answer: the string, or the
ranked list written one "rank. event (reasoning)" per line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .scoring import parse_duration, split_entities

#: how the release phrases "the records do not say" in T2 golds
ABSTENTION_PHRASES = (
    "not mention",
    "unable to answer",
    "insufficient",
    "don't know",
    "do not know",
    "cannot be answered",
    "cannot answer",
)
_LETTER_ORDER = re.compile(r"^\s*[A-Z](?:\s*(?:->|→|>)\s*[A-Z])+\b")
_STEP_SPLIT = re.compile(r"\n|->|→|;|\d+\.\s")


def is_ranking(value: Any) -> bool:
    """A list of {rank, event, ...} records, the release's shape of a ranked answer."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(e, Mapping) and "rank" in e and "event" in e for e in value)
    )


def ranked_events(ranking: Sequence[Mapping[str, Any]]) -> list[str]:
    return [str(e["event"]).strip() for e in sorted(ranking, key=lambda e: _rank_key(e["rank"]))]


def _rank_key(rank: Any) -> tuple[int, str]:
    try:
        return int(rank), ""
    except (TypeError, ValueError):
        return 1 << 30, str(rank)


def reference_text(value: Any) -> str:
    """The released answer as text (a ranking one line per rank)."""
    if is_ranking(value):
        lines = []
        for entry in sorted(value, key=lambda e: _rank_key(e["rank"])):
            reasoning = str(entry.get("reasoning") or "").strip()
            lines.append(f"{entry['rank']}. {str(entry['event']).strip()}" + (f" ({reasoning})" if reasoning else ""))
        return "\n".join(lines)
    if isinstance(value, list):
        return "\n".join(str(v) for v in value)
    return "" if value is None else str(value).strip()


def is_abstention(text: str) -> bool:
    lowered = text.lower().replace("’", "'")
    return any(phrase in lowered for phrase in ABSTENTION_PHRASES)


def letter_order(text: str) -> list[str] | None:
    """['B', 'C', 'A'] for 'B -> C -> A (Event B is ...)'; None when the text does not start with one."""
    found = _LETTER_ORDER.match(text)
    return re.findall(r"[A-Z]", found.group(0)) if found else None


def released_gold(task: str, value: Any) -> tuple[dict[str, Any], str] | None:
    """(gold, diagnostic scorer) of one released answer; None when the answer is empty."""
    text = reference_text(value)
    if not text:
        return None
    gold: dict[str, Any] = {"answer": value}
    if task == "T1":
        return {**gold, "entities": split_entities(text) or [text]}, "entity_f1_text"
    if task == "T2" and is_abstention(text):
        return gold, "abstain"
    order = letter_order(text) if task in ("T2", "T3") else None
    if order:
        return {**gold, "order": order}, "order"
    if task == "T3" and parse_duration(text) is not None:
        return {**gold, "seconds": parse_duration(text)}, "duration"
    if task == "T4":
        events = (
            ranked_events(value)
            if is_ranking(value)
            else [s.strip() for s in _STEP_SPLIT.split(text) if s.strip(" -.")]
        )
        if len(events) >= 2:
            return {**gold, "events": events}, "ranking_text"
    return {**gold, "reference": text}, "text_coverage_approx"
