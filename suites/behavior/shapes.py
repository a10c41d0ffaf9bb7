"""The shapes of the behavior lexicon: a principle (axis), its two poles, a held-out situation."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Pole:
    label: str
    #: anchor title in the Behavioral Specification
    title: str
    #: what is valued, "x over y" (the object of a `values` fact)
    value: str
    #: the pole's direction without a specific behaviour
    generic: str
    #: three specific behaviours; each reads after "I chose to" and "I would"
    variants: tuple[str, str, str]
    #: what the subject says after acting on this pole
    reflection: str


@dataclass(frozen=True)
class HeldOut:
    story: str
    ask: str
    norm: bool


@dataclass(frozen=True)
class Axis:
    key: str
    category: str
    #: a noun phrase naming what is at stake ("questions of <domain>")
    domain: str
    #: when the principle applies (the anchors' "Active when")
    active: str
    #: words that show this principle is at stake in a question or a story
    cues: tuple[str, ...]
    poles: tuple[Pole, Pole]
    #: (narrative, question) forms of a clause that puts this principle at stake too
    complications: tuple[tuple[str, str], ...]
    training: tuple[str, ...]
    heldout: tuple[HeldOut, ...]
