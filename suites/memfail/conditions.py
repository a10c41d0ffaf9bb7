"""Condition types of Conditional-Facts (paper B.2, Table 3): 32 types in 9 groups.

A rule "E does B only when C" picks one condition of a type: a categorical value (weather:
rain) or a threshold (motivation at least 8 out of 10). Each value has clause forms for the
Easy rule sentence ("it is raining"), predicate forms for the Hard condition sentence
("{E} often finds herself out in the rain") and situations for the question ("There's a
steady drizzle against the windows"). Situations never repeat their rule's words, so the
question cannot be matched to the rule by string overlap; the reader has to know what a
situation means. The phrase tables live in `condition_data`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .phrases import find_number, matches


@dataclass(frozen=True)
class Option:
    """One value of a categorical type. A value without rules is only ever a situation
    that fails every rule (spring, when the rule says autumn)."""

    value: str
    rules: tuple[str, ...]
    states: tuple[str, ...]
    situations: tuple[str, ...]


@dataclass(frozen=True)
class Numeric:
    """A threshold type: the rule holds when the situation's number m is >= n (or < n)."""

    rules: tuple[str, ...]
    states: tuple[str, ...]
    situations: tuple[str, ...]
    at_least: bool
    thresholds: tuple[int, ...]
    span: tuple[int, int]

    def holds(self, threshold: int, value: int) -> bool:
        return value >= threshold if self.at_least else value < threshold


@dataclass(frozen=True)
class ConditionType:
    name: str
    group: str
    #: externally observable triggers, the only ones pets get (B.2)
    pets: bool
    options: tuple[Option, ...] = ()
    numeric: Numeric | None = None

    def option(self, value: str) -> Option:
        return next(o for o in self.options if o.value == value)

    @property
    def targets(self) -> tuple[Option, ...]:
        return tuple(o for o in self.options if o.rules)


@dataclass(frozen=True)
class Condition:
    """A rule's condition: (type, value) or (type, threshold)."""

    type: str
    value: str | None = None
    threshold: int | None = None


@dataclass(frozen=True)
class Situation:
    """What a question says is the case: (type, value) or (type, number)."""

    type: str
    value: str | None = None
    number: int | None = None


def holds(condition: Condition, situation: Situation, types: Mapping[str, ConditionType]) -> bool | None:
    """Whether the situation satisfies the condition; None when they are about different things."""
    if condition.type != situation.type:
        return None
    numeric = types[condition.type].numeric
    if numeric is not None:
        if condition.threshold is None or situation.number is None:
            return None
        return numeric.holds(condition.threshold, situation.number)
    return condition.value == situation.value


def conditions_in(normalized: str, types: Mapping[str, ConditionType]) -> list[Condition]:
    """Every condition (rule clause or state) stated in a normalised sentence."""
    found: list[Condition] = []
    for kind in types.values():
        if kind.numeric is not None:
            for template in kind.numeric.rules + kind.numeric.states:
                number = find_number(template, normalized, "n")
                if number is not None:
                    found.append(Condition(kind.name, threshold=number))
                    break
            continue
        for option in kind.options:
            if any(matches(t, normalized) for t in option.rules + option.states):
                found.append(Condition(kind.name, value=option.value))
    return found


def situations_in(normalized: str, types: Mapping[str, ConditionType]) -> list[Situation]:
    """Every situation described in a normalised question."""
    found: list[Situation] = []
    for kind in types.values():
        if kind.numeric is not None:
            for template in kind.numeric.situations:
                number = find_number(template, normalized, "m")
                if number is not None:
                    found.append(Situation(kind.name, number=number))
                    break
            continue
        for option in kind.options:
            if any(matches(t, normalized) for t in option.situations):
                found.append(Situation(kind.name, value=option.value))
    return found
