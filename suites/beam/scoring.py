"""BEAM's scoring rules as src/evaluation/compute_metrics.py applies them (written anew from
reading it at commit b2a3ee8; nothing of it is copied), and the corrected variant.

Per rubric item the judge replies with a JSON object whose "score" is 1.0, 0.5 or 0.0; a
question's score is the sum over its rubric items divided by their number. As shipped
(protocol `official`, the default), nine abilities add `int(score)`, so a 0.5 counts 0 and a
score written as the string "0.5" stops the official evaluator (here: the item is an error,
never a number); event_ordering adds `float(score)`. The corrected variant (`corrected`)
adds every ability's score as a number in {0, 0.5, 1}.

Event ordering's published number (report_results.py) is `tau_norm` alone: the response's
lines (`split("\\n")`, empty lines included) are aligned to the rubric's items (each line,
in order, takes the first unused item a judge calls the same event; else it stays as
written), then Kendall's tau-b between the two orders' ranks, (tau + 1) / 2. The official
code also computes precision, recall, F1 and `final_score = tau_norm * F1` and discards
them from the report; the corrected variant reports `final_score`.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_memeval.errors import ConfigError
from pytest_memeval.llm.strict_json import InvalidOutput

OFFICIAL, CORRECTED = "official", "corrected"
SCORINGS = (OFFICIAL, CORRECTED)
EVENT_ORDERING = "event_ordering"
_FENCED = re.compile(r"```(?:json)?\s*(\[.*\]|\{.*\})\s*```", re.DOTALL)
_FIRST_JSON = re.compile(r"(\{.*?\}|\[.*?\])", re.DOTALL)


def scoring_setting(raw: str | None) -> str:
    """--memeval-suite-option beam.scoring (None: the default, official)."""
    value = OFFICIAL if raw is None else raw.strip().lower()
    if value not in SCORINGS:
        raise ConfigError(
            f"--memeval-suite-option beam.scoring={raw}: one of {OFFICIAL} (compute_metrics.py as shipped: "
            f"0.5 truncated to 0, the question left out of the judge prompt) or {CORRECTED}"
        )
    return value


def read_reply(text: str) -> Any:
    """The judge's reply as compute_metrics.py's parse_json_response reads it: a fenced block's
    content, else the whole text, else its first {...} or [...]. Its json_repair fallback is
    not reproduced: what none of these reads is invalid output."""
    text = text.strip()
    if text.startswith("```") and (fenced := _FENCED.search(text)):
        text = fenced.group(1).strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    found = _FIRST_JSON.search(text)
    if found:
        try:
            return json.loads(found.group(1))
        except json.JSONDecodeError:
            pass
    raise InvalidOutput("no JSON object in the reply")


def item_score(reply: Any, ability: str, scoring: str) -> float:
    """One rubric item's points from the parsed reply."""
    if not isinstance(reply, dict) or "score" not in reply:
        raise InvalidOutput("no score in the reply (the official evaluator stops on it: KeyError)")
    value = reply["score"]
    if scoring == CORRECTED:
        number = _number(value)
        if number not in (0.0, 0.5, 1.0):
            raise InvalidOutput(f"score {value!r} is not 0, 0.5 or 1")
        return number
    if ability == EVENT_ORDERING:
        return _number(value)
    try:
        return float(int(value))  # as shipped: int(0.5) == 0; int("0.5") raises
    except (TypeError, ValueError, OverflowError):
        raise InvalidOutput(f"int({value!r}) fails (the official evaluator stops on it)") from None


def _number(value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InvalidOutput(f"score {value!r} is not a number") from None
    if not math.isfinite(number):
        raise InvalidOutput(f"score {value!r} is not a finite number")
    return number


def question_score(points: Sequence[float]) -> float:
    """The question's llm_judge_score: the points summed over its rubric, divided by their number."""
    return sum(points) / len(points)


@dataclass(frozen=True)
class Ordering:
    precision: float
    recall: float
    f1: float
    #: (tau-b + 1) / 2; NaN where tau-b is undefined (as scipy gives it: a one-item rubric)
    tau_norm: float
    final_score: float
    #: the response's lines after alignment (a matched line is its rubric item)
    aligned: tuple[str, ...]

    def reported(self, scoring: str) -> float:
        return self.tau_norm if scoring == OFFICIAL else self.final_score


def align(reference: Sequence[str], system: Sequence[str], same: Callable[[str, str], bool]) -> list[str]:
    """align_with_llm's rule: each system line in order takes the first unused reference item
    that `same(reference_item, line)` accepts (one call per pair tried), else stays."""
    used: set[int] = set()
    out = []
    for line in system:
        match = None
        for index, candidate in enumerate(reference):
            if index not in used and same(candidate, line):
                match = index
                break
        if match is None:
            out.append(line)
        else:
            used.add(match)
            out.append(reference[match])
    return out


def ordering_score(reference: Sequence[str], response: str, same: Callable[[str, str], bool]) -> Ordering:
    """event_ordering_score with align_type "llm" on the response's lines."""
    from scipy.stats import kendalltau

    system = align(reference, response.split("\n"), same)
    tp = len(set(reference) & set(system))
    fp = sum(1 for x in system if x not in reference)
    fn = sum(1 for x in reference if x not in system)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    union = list(dict.fromkeys([*reference, *system]))
    tie = len(union) + 1

    def ranks(sequence: Sequence[str]) -> list[int]:
        position = {entry: i + 1 for i, entry in enumerate(sequence)}  # a repeated entry: its last place
        return [position.get(entry, tie) for entry in union]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns before it gives NaN for a one-item list
        tau = float(kendalltau(ranks(reference), ranks(system), variant="b", method="auto").statistic)
    tau_norm = (tau + 1) / 2
    return Ordering(precision, recall, f1, tau_norm, tau_norm * f1, tuple(system))
